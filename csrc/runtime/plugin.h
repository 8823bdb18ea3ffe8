// A loaded PJRT plugin: the shared library and its function table.
#pragma once

#include <map>
#include <memory>
#include <string>

struct PJRT_Api;

namespace torchtpu::runtime {

struct ApiVersion {
  int major = 0;
  int minor = 0;
};

// The PJRT major version this build speaks. A plugin with another major
// version is refused.
int supportedApiMajorVersion();
// The minor version of the header this build was compiled against.
int compiledApiMinorVersion();

class Plugin {
 public:
  // Loads (once per process and file) the plugin at `path`, checks its API
  // version and initializes it. Throws Error: NOT_FOUND for a missing file,
  // INVALID_ARGUMENT for a file that is not a PJRT plugin, FAILED_PRECONDITION
  // for an incompatible API version. A plugin is never unloaded.
  static std::shared_ptr<Plugin> load(const std::string& path);

  const std::string& path() const { return path_; }
  ApiVersion version() const { return version_; }
  // Plugin attributes (xla_version, stablehlo_current_version, ...) as text.
  const std::map<std::string, std::string>& attributes() const { return attributes_; }
  // One line: path, API version and attributes.
  std::string describe() const;

  // For the runtime layer only.
  const PJRT_Api* api() const { return api_; }

  Plugin(std::string path, const PJRT_Api* api);

 private:
  std::string path_;
  const PJRT_Api* api_;
  ApiVersion version_;
  std::map<std::string, std::string> attributes_;
};

}  // namespace torchtpu::runtime
