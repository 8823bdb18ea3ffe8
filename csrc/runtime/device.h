// What the runtime reports about a device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace torchtpu::runtime {

struct DeviceInfo {
  int index = 0;   // position among the client's addressable devices
  int64_t id = 0;  // the plugin's global device id
  int64_t localHardwareId = -1;
  int processIndex = 0;
  std::string kind;         // e.g. "cpu", "NVIDIA H100 80GB HBM3", "TPU v5 lite"
  std::string description;  // the plugin's debug string
};

// Device memory statistics; only bytesInUse is guaranteed by PJRT.
struct MemoryStats {
  int64_t bytesInUse = 0;
  std::optional<int64_t> peakBytesInUse;
  std::optional<int64_t> bytesLimit;
  std::optional<int64_t> numAllocs;
  std::optional<int64_t> largestAllocSize;
};

}  // namespace torchtpu::runtime
