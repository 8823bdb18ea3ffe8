// Per-device accounting of the device arrays torchtpu holds, in the terms of
// torch.cuda's memory statistics: bytes and arrays now, at their peak, and
// allocated and freed in total; and the largest arrays alive (for
// out-of-memory messages). The plugin's own statistics, where it has them,
// come on top (runtime::Client::memoryStats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hlo/types.h"

namespace torchtpu::exec {

class DeviceArray;

struct DeviceMemoryStats {
  int64_t bytes = 0, peakBytes = 0, allocatedBytes = 0, freedBytes = 0;
  int64_t arrays = 0, peakArrays = 0, allocations = 0, frees = 0;
  int64_t outOfMemory = 0;  // out-of-memory errors raised for this device
};

// Devices beyond this index are counted in the last slot.
inline constexpr int kMaxAccountedDevices = 256;

void noteAllocated(const DeviceArray& array);
void noteFreed(const DeviceArray& array);
void noteOutOfMemory(int device);

// The shape of the tensor an array holds (DeviceArray::reportedType); ignored
// when its element count differs from the array's.
void labelShape(DeviceArray& array, const std::vector<int64_t>& shape);
// `array` replaces `from` in a storage: it takes `from`'s shape unless it has
// one of its own.
void inheritShape(DeviceArray& array, const DeviceArray& from);
// The shape `array` was labelled with, if any.
bool labelledShape(const DeviceArray& array, std::vector<int64_t>& shape);

DeviceMemoryStats deviceMemoryStats(int device);
// (free, total) bytes of a device: from the plugin's limit, or for the XLA CPU
// plugin, whose device memory is the host's, the host's available and total
// memory; nothing where neither is known.
std::optional<std::pair<int64_t, int64_t>> deviceMemoryInfo(int device);
// empty_cache: on the XLA CPU plugin, whose device buffers are host mallocs
// kept in the heap when freed (torchtpu/_host_malloc.py), gives the heap's
// free memory back to the system (glibc's malloc_trim); says whether it did.
// Nothing to do on other plugins: their buffers are freed at once.
bool releaseFreedDeviceMemory();

// Peaks start again from what is allocated now.
void resetPeakDeviceMemory(int device);
// Totals (allocated, freed, allocations, frees, out-of-memory errors) start at 0.
void resetAccumulatedDeviceMemory(int device);

struct LiveArray {
  int device = 0;
  hlo::TensorType type;
  size_t bytes = 0;
  std::string origin;  // what made it ("" when not known)
};
// "f32[512, 1024]": an element type and dims.
std::string arrayLabel(const hlo::TensorType& type);

// The `n` largest arrays alive on `device` (-1: any), largest first.
std::vector<LiveArray> largestLiveArrays(int device, size_t n);
// "f32[1024, 1024] (4.0 MiB) on device 0, ..." for messages; "" when none.
std::string describeLargestLiveArrays(int device, size_t n);

}  // namespace torchtpu::exec
