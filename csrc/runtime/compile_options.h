// The subset of xla.CompileOptionsProto torchtpu sets, encoded by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchtpu::runtime {

struct CompileOptions {
  int64_t numReplicas = 1;
  // The plugin's global device id of each replica (one partition). When set,
  // numReplicas is its size and the executable is not portable: it runs on
  // these devices, one launch across all of them (Executable::executeReplicated).
  std::vector<int64_t> replicaDevices;
  int64_t numPartitions = 1;
  // -1 leaves the choice to the plugin (device 0 for a single device).
  int64_t deviceOrdinal = -1;
  // A portable executable can run on any device chosen at launch.
  bool portable = true;
  // XLA's optimization effort (ExecutableBuildOptionsProto.optimization_level,
  // an xla.ExecutionOptions effort level); unset leaves the plugin's default.
  std::optional<int64_t> optimizationLevel;
  // XLA debug options set by name (CompileOptionsProto.env_option_overrides,
  // applied over the plugin's defaults): defaultXlaOptions().
  std::vector<std::pair<std::string, bool>> xlaOptions = defaultXlaOptions();

  // Min/max propagate NaN, as StableHLO specifies (the XLA CPU plugin's
  // "fast" min/max otherwise drops NaN: max(NaN, 1) = 1, inside reductions
  // and scans too); then the boolean options of TORCHTPU_XLA_OPTIONS
  // ("name=1,name=0"), read once, which add to or replace these.
  static std::vector<std::pair<std::string, bool>> defaultXlaOptions();

  // The serialized CompileOptionsProto bytes passed to PJRT_Client_Compile.
  std::string serialize() const;
  // A short stable text that identifies these options (for cache keys).
  std::string fingerprint() const;
  // Whether these are the default options (what a plain compile uses).
  bool isDefault() const;
};

}  // namespace torchtpu::runtime
