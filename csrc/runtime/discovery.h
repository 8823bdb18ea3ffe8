// Finding a PJRT plugin by short name, path or environment.
#pragma once

#include <string>
#include <vector>

namespace torchtpu::runtime {

// The environment variable that overrides the automatic choice: a path to a
// plugin file or a short name ("cpu", "cuda", "tpu").
inline constexpr const char* kPluginEnvVar = "TORCHTPU_PJRT_PLUGIN";

// The short name the automatic choice picks on this machine: "tpu" when a TPU
// is present, else "cuda" when an NVIDIA GPU is present, else "cpu". A device
// whose plugin is not installed is passed over.
std::string autoPluginName(const std::vector<std::string>& searchDirs);

// Files (relative to a search directory, e.g. site-packages) that hold the
// plugin for a short name, in order of preference.
std::vector<std::string> pluginCandidates(const std::string& shortName);

// Resolves `spec` to a plugin file. `spec` may be empty or "auto" (the
// environment variable, else the automatic choice), a short name, or a path.
// Throws Error(NOT_FOUND) naming what to install when nothing is found.
std::string resolvePluginPath(const std::string& spec, const std::vector<std::string>& searchDirs);

}  // namespace torchtpu::runtime
