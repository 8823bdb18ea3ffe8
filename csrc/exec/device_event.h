// Events on a device, as torch.Event / torch.tpu.Event use them: a point in
// the device's work that completes once every program launched on the device
// before it has completed, and the time it completed (for elapsed_time).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

namespace torchtpu::exec {

class DeviceEvent {
 public:
  // Marks the work launched on `device` so far: the calling thread's deferred
  // work is run first, so that what it recorded is part of it.
  static std::shared_ptr<DeviceEvent> record(int device);

  int device() const { return device_; }
  bool query() const;
  void synchronize() const;
  // When the work completed, in steady-clock nanoseconds (waits for it).
  int64_t completedNs() const;

  // For the launch tracker: one more program to wait for / one completed.
  void expect();
  void complete();

 private:
  explicit DeviceEvent(int device) : device_(device) {}
  int device_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  int remaining_ = 1;  // the recording itself, released at the end of record()
  int64_t doneNs_ = 0;
};

}  // namespace torchtpu::exec
