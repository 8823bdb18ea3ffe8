#include "aten/storage.h"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/util/Exception.h>

#include <functional>

#include "aten/dtype.h"
#include "exec/device_memory.h"
#include "exec/runtime_state.h"

namespace torchtpu::aten {
namespace {

thread_local c10::DeviceIndex tlsDevice = 0;

void deleteStorage(void* ctx) { delete static_cast<exec::DeviceStorage*>(ctx); }

void fill(c10::CachingAllocator::StatArray& stat, int64_t current, int64_t peak, int64_t allocated,
          int64_t freed) {
  for (c10::CachingAllocator::Stat& s : stat) {
    s.current = current;
    s.peak = peak;
    s.allocated = allocated;
    s.freed = freed;
  }
}

// The tpu allocator: storages are exec::DeviceStorage objects (the device
// array comes with the first write). As a c10::DeviceAllocator it answers
// torch.accelerator's memory calls (memory_allocated, memory_stats,
// empty_cache, ...) from torchtpu's accounting (exec/device_memory.h); there
// is no cache of freed buffers, so reserved equals allocated (empty_cache
// gives the CPU plugin's freed host heap back to the system).
class TpuAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    const c10::DeviceIndex device = currentDevice();
    auto* storage = new exec::DeviceStorage(nbytes, device);
    return c10::DataPtr(storage, storage, &deleteStorage,
                        c10::Device(c10::DeviceType::PrivateUse1, device));
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
  void copy_data(void*, const void*, std::size_t) const override {
    TORCH_CHECK(false, "torchtpu: device memory cannot be copied as raw bytes; use tensor.copy_()");
  }

  bool initialized() override { return exec::runtimeInitialized(); }
  void emptyCache(c10::MempoolId_t) override { exec::releaseFreedDeviceMemory(); }
  void recordStream(const c10::DataPtr&, c10::Stream) override {}  // one stream per device
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    const exec::DeviceMemoryStats m = exec::deviceMemoryStats(device);
    c10::CachingDeviceAllocator::DeviceStats s;
    for (auto* bytes : {&s.allocated_bytes, &s.reserved_bytes, &s.active_bytes, &s.requested_bytes})
      fill(*bytes, m.bytes, m.peakBytes, m.allocatedBytes, m.freedBytes);
    for (auto* count : {&s.allocation, &s.segment, &s.active})
      fill(*count, m.arrays, m.peakArrays, m.allocations, m.frees);
    s.num_ooms = m.outOfMemory;
    s.num_device_alloc = m.allocations;
    s.num_device_free = m.frees;
    return s;
  }
  void resetAccumulatedStats(c10::DeviceIndex device) override {
    exec::resetAccumulatedDeviceMemory(device);
  }
  void resetPeakStats(c10::DeviceIndex device) override { exec::resetPeakDeviceMemory(device); }
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    const auto info = exec::deviceMemoryInfo(device);
    TORCH_CHECK(info.has_value(),
                "torchtpu: the plugin reports no memory limit for tpu:", static_cast<int>(device));
    return {static_cast<size_t>(info->first), static_cast<size_t>(info->second)};
  }
};

TpuAllocator allocator;

}  // namespace

c10::Allocator* tpuAllocator() { return &allocator; }

exec::DeviceStorage& deviceStorage(const c10::Storage& storage) {
  const c10::DataPtr& ptr = storage.data_ptr();
  TORCH_CHECK(ptr.get_deleter() == &deleteStorage,
              "torchtpu: this storage was not allocated by the tpu allocator");
  return *static_cast<exec::DeviceStorage*>(ptr.get_context());
}

ir::TensorRef viewOf(const at::TensorBase& t) {
  ir::TensorRef ref;
  ref.dtype = requireElementType(t.scalar_type());
  ref.sizes.assign(t.sizes().begin(), t.sizes().end());
  ref.strides.assign(t.strides().begin(), t.strides().end());
  ref.offset = t.storage_offset();
  return ref;
}

c10::DeviceIndex currentDevice() { return tlsDevice; }

void setCurrentDevice(c10::DeviceIndex index) {
  TORCH_CHECK(index >= 0 && index < deviceCount(), "torchtpu: invalid device index ",
              static_cast<int>(index), " (there are ", static_cast<int>(deviceCount()),
              " tpu devices)");
  tlsDevice = index;
}

namespace {
std::function<void()>& lazyInit() {
  static auto* f = new std::function<void()>();
  return *f;
}
}  // namespace

void setLazyInit(std::function<void()> init) { lazyInit() = std::move(init); }

c10::DeviceIndex deviceCount() {
  if (!exec::runtimeInitialized()) {
    // PyTorch may ask before any tpu tensor exists (autograd's engine sizes
    // its device queues at the first backward): start the runtime now.
    thread_local bool inside = false;
    if (lazyInit() && !inside) {
      inside = true;
      lazyInit()();
      inside = false;
    }
    if (!exec::runtimeInitialized()) return 0;
  }
  return static_cast<c10::DeviceIndex>(exec::deviceCountNoThrow());
}

}  // namespace torchtpu::aten

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &torchtpu::aten::allocator);
