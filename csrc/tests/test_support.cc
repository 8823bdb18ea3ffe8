#include "tests/test_support.h"

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "runtime/discovery.h"
#include "runtime/plugin.h"

namespace torchtpu::testing {

std::string builtLibrary(const char* variable) {
  const char* path = std::getenv(variable);
  if (path == nullptr || *path == '\0') {
    throw std::runtime_error(std::string(variable) + " is not set (run the tests through ctest)");
  }
  return path;
}

std::vector<std::string> siteDirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TORCHTPU_TEST_SITE_DIRS")) {
    std::stringstream in(env);
    std::string item;
    while (std::getline(in, item, ':')) {
      if (!item.empty()) dirs.push_back(item);
    }
  }
  return dirs;
}

std::shared_ptr<runtime::Client> testClient() {
  static std::once_flag once;
  static std::shared_ptr<runtime::Client> client;
  std::call_once(once, [] {
    const std::string path = runtime::resolvePluginPath("", siteDirs());
    auto plugin = runtime::Plugin::load(path);
    runtime::ClientOptions options;
    // Two CPU devices let the tests place buffers on a second device.
    if (path.find("cpu") != std::string::npos) options["cpu_device_count"] = int64_t{2};
    client = runtime::Client::create(plugin, options);
  });
  return client;
}

std::vector<HostArray> runProgram(const std::string& mlir, const std::vector<HostArray>& args) {
  auto client = testClient();
  auto exe = client->compile(mlir);
  std::vector<runtime::Buffer> buffers;
  buffers.reserve(args.size());
  for (const HostArray& a : args)
    buffers.push_back(client->toDevice(a.bytes.data(), a.type, a.dims));
  std::vector<const runtime::Buffer*> ptrs;
  for (const auto& b : buffers) ptrs.push_back(&b);
  runtime::ExecuteResult result = exe->execute(ptrs);
  std::vector<HostArray> out;
  for (const runtime::Buffer& b : result.outputs) {
    HostArray h;
    h.type = b.elementType();
    h.dims = b.dims();
    h.bytes.resize(b.hostSizeBytes());
    b.copyToHost(h.bytes.data(), h.bytes.size());
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace torchtpu::testing
