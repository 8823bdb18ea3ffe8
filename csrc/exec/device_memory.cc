#include "exec/device_memory.h"

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_set>

#include "exec/device_array.h"
#include "exec/runtime_state.h"
#include "runtime/element_type.h"

namespace torchtpu::exec {
namespace {

struct Slot {
  std::atomic<int64_t> bytes{0}, peakBytes{0}, allocatedBytes{0}, freedBytes{0};
  std::atomic<int64_t> arrays{0}, peakArrays{0}, allocations{0}, frees{0};
  std::atomic<int64_t> outOfMemory{0};
};

Slot& slot(int device) {
  static auto* slots = new std::array<Slot, kMaxAccountedDevices>();
  const int k = std::clamp(device, 0, kMaxAccountedDevices - 1);
  return (*slots)[static_cast<size_t>(k)];
}

void raisePeak(std::atomic<int64_t>& peak, int64_t now) {
  int64_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
}

// Every live array, for the largest-arrays report (out of memory only).
std::mutex liveMu;
std::unordered_set<const DeviceArray*>& live() {
  static auto* s = new std::unordered_set<const DeviceArray*>();
  return *s;
}

std::string humanBytes(size_t bytes) {
  char buf[32];
  if (bytes >= (size_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (size_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  }
  return buf;
}

}  // namespace

void noteAllocated(const DeviceArray& array) {
  Slot& s = slot(array.device());
  const auto bytes = static_cast<int64_t>(array.bytes());
  raisePeak(s.peakBytes, s.bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes);
  raisePeak(s.peakArrays, s.arrays.fetch_add(1, std::memory_order_relaxed) + 1);
  s.allocatedBytes.fetch_add(bytes, std::memory_order_relaxed);
  s.allocations.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(liveMu);
  live().insert(&array);
}

void noteFreed(const DeviceArray& array) {
  Slot& s = slot(array.device());
  const auto bytes = static_cast<int64_t>(array.bytes());
  s.bytes.fetch_sub(bytes, std::memory_order_relaxed);
  s.arrays.fetch_sub(1, std::memory_order_relaxed);
  s.freedBytes.fetch_add(bytes, std::memory_order_relaxed);
  s.frees.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(liveMu);
  live().erase(&array);
}

void labelShape(DeviceArray& array, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n != array.type().numElements()) return;
  std::lock_guard<std::mutex> lock(liveMu);
  array.shape_ = shape;
  array.hasShape_ = true;
}

void inheritShape(DeviceArray& array, const DeviceArray& from) {
  if (&array == &from || array.type().numElements() != from.type().numElements()) return;
  std::lock_guard<std::mutex> lock(liveMu);
  if (array.hasShape_ || !from.hasShape_) return;
  array.shape_ = from.shape_;
  array.hasShape_ = true;
}

bool labelledShape(const DeviceArray& array, std::vector<int64_t>& shape) {
  std::lock_guard<std::mutex> lock(liveMu);
  if (array.hasShape_) shape = array.shape_;
  return array.hasShape_;
}

hlo::TensorType DeviceArray::reportedType() const {
  if (!hasShape_) return type();
  return {buffer_.elementType(), shape_};
}

void noteOutOfMemory(int device) { slot(device).outOfMemory += 1; }

DeviceMemoryStats deviceMemoryStats(int device) {
  const Slot& s = slot(device);
  DeviceMemoryStats out;
  out.bytes = s.bytes.load();
  out.peakBytes = s.peakBytes.load();
  out.allocatedBytes = s.allocatedBytes.load();
  out.freedBytes = s.freedBytes.load();
  out.arrays = s.arrays.load();
  out.peakArrays = s.peakArrays.load();
  out.allocations = s.allocations.load();
  out.frees = s.frees.load();
  out.outOfMemory = s.outOfMemory.load();
  return out;
}

std::optional<std::pair<int64_t, int64_t>> deviceMemoryInfo(int device) {
  const auto& c = client();
  if (auto s = c->memoryStats(device); s && s->bytesLimit && *s->bytesLimit > 0) {
    const int64_t used = s->bytesInUse > 0 ? s->bytesInUse : deviceMemoryStats(device).bytes;
    return std::make_pair(std::max<int64_t>(*s->bytesLimit - used, 0), *s->bytesLimit);
  }
  if (c->platformName() == "cpu") {
    const int64_t page = sysconf(_SC_PAGESIZE);
    const int64_t total = sysconf(_SC_PHYS_PAGES) * page;
    const int64_t free = sysconf(_SC_AVPHYS_PAGES) * page;
    if (total > 0 && free >= 0) return std::make_pair(free, total);
  }
  return std::nullopt;
}

bool releaseFreedDeviceMemory() {
#if defined(__GLIBC__)
  if (runtimeInitialized() && client()->platformName() == "cpu") {
    malloc_trim(0);
    return true;
  }
#endif
  return false;
}

void resetPeakDeviceMemory(int device) {
  Slot& s = slot(device);
  s.peakBytes = s.bytes.load();
  s.peakArrays = s.arrays.load();
}

void resetAccumulatedDeviceMemory(int device) {
  Slot& s = slot(device);
  s.allocatedBytes = 0;
  s.freedBytes = 0;
  s.allocations = 0;
  s.frees = 0;
  s.outOfMemory = 0;
}

std::string arrayLabel(const hlo::TensorType& type) {
  std::string out(runtime::elementTypeName(type.dtype));
  out += '[';
  for (size_t k = 0; k < type.dims.size(); ++k) {
    if (k > 0) out += ", ";
    out += std::to_string(type.dims[k]);
  }
  return out + ']';
}

std::vector<LiveArray> largestLiveArrays(int device, size_t n) {
  std::vector<LiveArray> all;
  {
    std::lock_guard<std::mutex> lock(liveMu);
    for (const DeviceArray* a : live()) {
      if (device >= 0 && a->device() != device) continue;
      all.push_back({a->device(), a->reportedType(), a->bytes(), a->origin()});
    }
  }
  const size_t k = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(),
                    [](const LiveArray& a, const LiveArray& b) { return a.bytes > b.bytes; });
  all.resize(k);
  return all;
}

std::string describeLargestLiveArrays(int device, size_t n) {
  std::string out;
  for (const LiveArray& a : largestLiveArrays(device, n)) {
    if (!out.empty()) out += ", ";
    out +=
        arrayLabel(a.type) + " (" + humanBytes(a.bytes) + ") on device " + std::to_string(a.device);
    if (!a.origin.empty()) out += ", made by " + a.origin;
  }
  return out;
}

}  // namespace torchtpu::exec
