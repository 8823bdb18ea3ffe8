// The subset of xla.CompileOptionsProto torchtpu sets, encoded by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace torchtpu::runtime {

struct CompileOptions {
  int64_t numReplicas = 1;
  int64_t numPartitions = 1;
  // -1 leaves the choice to the plugin (device 0 for a single device).
  int64_t deviceOrdinal = -1;
  // A portable executable can run on any device chosen at launch.
  bool portable = true;
  // XLA's optimization effort (ExecutableBuildOptionsProto.optimization_level,
  // an xla.ExecutionOptions effort level); unset leaves the plugin's default.
  std::optional<int64_t> optimizationLevel;

  // The serialized CompileOptionsProto bytes passed to PJRT_Client_Compile.
  std::string serialize() const;
  // A short stable text that identifies these options (for cache keys).
  std::string fingerprint() const;
};

}  // namespace torchtpu::runtime
