#include "runtime/discovery.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "runtime/error.h"

namespace torchtpu::runtime {
namespace {

namespace fs = std::filesystem;

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool tpuPresent() {
  return exists("/dev/accel0") || exists("/dev/vfio/0") || exists("/dev/vfio/vfio");
}

bool gpuPresent() { return exists("/dev/nvidia0") || exists("/dev/nvidiactl"); }

std::string findInDirs(const std::string& shortName, const std::vector<std::string>& dirs) {
  if (shortName == "tpu") {
    if (const char* p = std::getenv("TPU_LIBRARY_PATH"); p && exists(p)) return p;
  }
  for (const std::string& rel : pluginCandidates(shortName)) {
    for (const std::string& dir : dirs) {
      fs::path p = fs::path(dir) / rel;
      if (exists(p.string())) return p.string();
    }
  }
  return "";
}

std::string installHint(const std::string& shortName) {
  if (shortName == "cpu") return "pip install lammps-jax-pjrt-cpu";
  if (shortName == "cuda") return "pip install jax-cuda13-pjrt (or jax-cuda12-pjrt)";
  if (shortName == "tpu") return "pip install libtpu (or set TPU_LIBRARY_PATH)";
  return "";
}

bool isShortName(const std::string& s) { return s == "cpu" || s == "cuda" || s == "tpu"; }

}  // namespace

std::vector<std::string> pluginCandidates(const std::string& shortName) {
  if (shortName == "cpu") {
    return {"lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so",
            "xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"};
  }
  if (shortName == "cuda") {
    return {"jax_plugins/xla_cuda13/xla_cuda_plugin.so",
            "jax_plugins/xla_cuda12/xla_cuda_plugin.so"};
  }
  if (shortName == "tpu") return {"libtpu/libtpu.so"};
  return {};
}

std::string autoPluginName(const std::vector<std::string>& searchDirs) {
  if (tpuPresent() && !findInDirs("tpu", searchDirs).empty()) return "tpu";
  if (gpuPresent() && !findInDirs("cuda", searchDirs).empty()) return "cuda";
  return "cpu";
}

std::string resolvePluginPath(const std::string& specIn,
                              const std::vector<std::string>& searchDirs) {
  std::string spec = specIn;
  if (spec.empty() || spec == "auto") {
    const char* env = std::getenv(kPluginEnvVar);
    spec = (env && *env) ? std::string(env) : std::string("auto");
  }
  if (spec == "auto") spec = autoPluginName(searchDirs);
  if (!isShortName(spec)) {
    if (!exists(spec)) {
      throw Error(
          ErrorCode::kNotFound,
          "PJRT plugin '" + spec +
              "' not found: give a plugin file path or one of the short names cpu, cuda, tpu "
              "(set by " +
              kPluginEnvVar + " or torchtpu's plugin option)");
    }
    return spec;
  }
  std::string path = findInDirs(spec, searchDirs);
  if (path.empty()) {
    std::ostringstream msg;
    msg << "no PJRT plugin for '" << spec << "' is installed: looked for";
    for (const std::string& rel : pluginCandidates(spec)) msg << " " << rel;
    msg << " under " << searchDirs.size()
        << " search directories. Install it with: " << installHint(spec);
    throw Error(ErrorCode::kNotFound, msg.str());
  }
  return path;
}

}  // namespace torchtpu::runtime
