#include "runtime/plugin.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <sstream>

#include "runtime/pjrt_api.h"

namespace torchtpu::runtime {

int supportedApiMajorVersion() { return PJRT_API_MAJOR; }
int compiledApiMinorVersion() { return PJRT_API_MINOR; }

namespace {

std::string namedValueText(const PJRT_NamedValue& v) {
  std::ostringstream out;
  switch (v.type) {
    case PJRT_NamedValue_kString:
      out << std::string(v.string_value, v.value_size);
      break;
    case PJRT_NamedValue_kInt64:
      out << v.int64_value;
      break;
    case PJRT_NamedValue_kInt64List:
      for (size_t i = 0; i < v.value_size; ++i) out << (i ? "." : "") << v.int64_array_value[i];
      break;
    case PJRT_NamedValue_kFloat:
      out << v.float_value;
      break;
    case PJRT_NamedValue_kBool:
      out << (v.bool_value ? "true" : "false");
      break;
    default:
      out << "?";
  }
  return out.str();
}

}  // namespace

Plugin::Plugin(std::string path, const PJRT_Api* api) : path_(std::move(path)), api_(api) {
  version_ = {api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version};
}

std::shared_ptr<Plugin> Plugin::load(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<Plugin>> loaded;

  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(ErrorCode::kNotFound, "PJRT plugin file not found: '" + path + "'");
  }
  const std::string key = std::filesystem::canonical(path, ec).string();

  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(key); it != loaded.end()) return it->second;

  // RTLD_LOCAL keeps the plugin's many symbols (LLVM, absl, protobuf) from
  // colliding with PyTorch's. The handle is never closed: plugins register
  // process-wide state that does not survive unloading.
  void* handle = dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw Error(ErrorCode::kInvalidArgument,
                "cannot load '" + path + "' as a PJRT plugin: " + (why ? why : "dlopen failed"));
  }
  using GetApiFn = const PJRT_Api* (*)();
  auto get_api = reinterpret_cast<GetApiFn>(dlsym(handle, "GetPjrtApi"));
  if (get_api == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                "'" + path + "' is not a PJRT plugin: it does not export GetPjrtApi");
  }
  const PJRT_Api* api = get_api();
  if (api == nullptr) {
    throw Error(ErrorCode::kInvalidArgument, "'" + path + "': GetPjrtApi returned NULL");
  }
  // Only the first three fields are read before the version is known.
  if (api->pjrt_api_version.major_version != PJRT_API_MAJOR) {
    std::ostringstream msg;
    msg << "incompatible PJRT plugin '" << path << "': it implements PJRT C API version "
        << api->pjrt_api_version.major_version << "." << api->pjrt_api_version.minor_version
        << ", this build of torchtpu speaks major version " << PJRT_API_MAJOR
        << ". Install a plugin built for PJRT " << PJRT_API_MAJOR
        << ".x (for the CPU: pip install lammps-jax-pjrt-cpu)";
    throw Error(ErrorCode::kFailedPrecondition, msg.str());
  }
  if (api->struct_size < offsetof(PJRT_Api, PJRT_Client_BufferFromHostBuffer) + sizeof(void*)) {
    throw Error(ErrorCode::kFailedPrecondition,
                "incompatible PJRT plugin '" + path + "': its function table is too short (API " +
                    std::to_string(api->pjrt_api_version.major_version) + "." +
                    std::to_string(api->pjrt_api_version.minor_version) + ")");
  }

  auto plugin = std::make_shared<Plugin>(key, api);
  if (detail::hasFunction(api, &PJRT_Api::PJRT_Plugin_Initialize)) {
    detail::Args<PJRT_Plugin_Initialize_Args> init;
    TORCHTPU_PJRT_CALL(api, PJRT_Plugin_Initialize, init);
  }
  if (detail::hasFunction(api, &PJRT_Api::PJRT_Plugin_Attributes)) {
    detail::Args<PJRT_Plugin_Attributes_Args> attrs;
    TORCHTPU_PJRT_CALL(api, PJRT_Plugin_Attributes, attrs);
    for (size_t i = 0; i < attrs->num_attributes; ++i) {
      const PJRT_NamedValue& v = attrs->attributes[i];
      plugin->attributes_[std::string(v.name, v.name_size)] = namedValueText(v);
    }
  }
  loaded[key] = plugin;
  return plugin;
}

std::string Plugin::describe() const {
  std::ostringstream out;
  out << path_ << " (PJRT API " << version_.major << "." << version_.minor;
  for (const auto& [k, v] : attributes_) out << ", " << k << "=" << v;
  out << ")";
  return out.str();
}

}  // namespace torchtpu::runtime
