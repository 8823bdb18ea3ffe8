#include "exec/device_event.h"

#include <chrono>

#include "exec/executor.h"
#include "exec/trace.h"

namespace torchtpu::exec {
namespace {

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::shared_ptr<DeviceEvent> DeviceEvent::record(int device) {
  flushOwnTraces("event recorded");
  std::shared_ptr<DeviceEvent> e(new DeviceEvent(device));
  whenLaunchedWorkCompletes(device, e);
  e->complete();  // the recording's own count: complete once the work is
  return e;
}

void DeviceEvent::expect() {
  std::lock_guard<std::mutex> lock(mu_);
  ++remaining_;
}

void DeviceEvent::complete() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--remaining_ == 0) {
    doneNs_ = nowNs();
    cv_.notify_all();
  }
}

bool DeviceEvent::query() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remaining_ == 0;
}

void DeviceEvent::synchronize() const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return remaining_ == 0; });
}

int64_t DeviceEvent::completedNs() const {
  synchronize();
  std::lock_guard<std::mutex> lock(mu_);
  return doneNs_;
}

}  // namespace torchtpu::exec
