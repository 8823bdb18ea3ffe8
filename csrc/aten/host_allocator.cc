// Pinned host memory for "tpu": what tensor.pin_memory(), DataLoader's
// pin_memory=True and torch.accelerator's host-memory calls use. PJRT copies
// from any host memory, so a pinned block is ordinary aligned host memory
// that torchtpu tracks: is_pinned() is true for it, and its statistics are
// torch's host-allocator statistics.
#include <ATen/core/CachingHostAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <mutex>
#include <unordered_map>

#include "aten/storage.h"

namespace torchtpu::aten {
namespace {

class PinnedHostAllocator final : public at::HostAllocator {
 public:
  at::DataPtr allocate(size_t nbytes) override {
    void* ptr = nbytes == 0 ? nullptr : c10::alloc_cpu(nbytes);
    if (ptr != nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      blocks_[ptr] = nbytes;
      for (at::Stat* s : {&stats_.active_requests, &stats_.allocations}) s->increase(1);
      for (at::Stat* s : {&stats_.active_bytes, &stats_.allocated_bytes}) s->increase(nbytes);
      stats_.num_host_alloc += 1;
    }
    return {ptr, ptr, &deletePinned, at::Device(at::DeviceType::CPU)};
  }
  at::DeleterFnPtr raw_deleter() const override { return &deletePinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }

  bool record_event(void*, void*, c10::Stream) override { return true; }  // nothing to wait for
  void empty_cache() override {}  // freed blocks go back at once
  at::HostStats get_stats() override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  void reset_accumulated_stats() override {
    std::lock_guard<std::mutex> lock(mu_);
    for (at::Stat* s : {&stats_.active_requests, &stats_.allocations, &stats_.active_bytes,
                        &stats_.allocated_bytes})
      s->reset_accumulated();
    stats_.num_host_alloc = 0;
    stats_.num_host_free = 0;
  }
  void reset_peak_stats() override {
    std::lock_guard<std::mutex> lock(mu_);
    for (at::Stat* s : {&stats_.active_requests, &stats_.allocations, &stats_.active_bytes,
                        &stats_.allocated_bytes})
      s->reset_peak();
  }

  bool owns(const void* ptr) {
    std::lock_guard<std::mutex> lock(mu_);
    return blocks_.contains(ptr);
  }

  void release(void* ptr) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = blocks_.find(ptr);
      if (it != blocks_.end()) {
        for (at::Stat* s : {&stats_.active_requests, &stats_.allocations}) s->decrease(1);
        for (at::Stat* s : {&stats_.active_bytes, &stats_.allocated_bytes}) s->decrease(it->second);
        stats_.num_host_free += 1;
        blocks_.erase(it);
      }
    }
    c10::free_cpu(ptr);
  }

 private:
  static void deletePinned(void* ptr);
  std::mutex mu_;
  std::unordered_map<const void*, size_t> blocks_;
  at::HostStats stats_;
};

PinnedHostAllocator& pinned() {
  static auto* a = new PinnedHostAllocator();
  return *a;
}

void PinnedHostAllocator::deletePinned(void* ptr) { pinned().release(ptr); }

const bool registered = [] {
  at::setHostAllocator(at::DeviceType::PrivateUse1, &pinned());
  return true;
}();

}  // namespace

c10::Allocator* pinnedHostAllocator() { return &pinned(); }
bool isPinnedHostPointer(const void* ptr) { return ptr != nullptr && pinned().owns(ptr); }

}  // namespace torchtpu::aten
