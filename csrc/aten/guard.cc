// The DeviceGuardImpl for "tpu": current device, streams and events.
//
// PJRT orders work by data dependencies, so there is one ordered stream per
// device in effect: streams are ids only, an event is complete once the
// work launched on its device before it is (exec::DeviceEvent, which also
// keeps the time it completed, for elapsed_time), and synchronizing waits
// for launched programs.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>

#include "aten/storage.h"
#include "exec/device_event.h"
#include "exec/executor.h"

namespace torchtpu::aten {
namespace {

using c10::Device;
using c10::DeviceIndex;
using c10::DeviceType;
using c10::Stream;

thread_local c10::StreamId tlsStream = 0;
std::atomic<c10::StreamId> nextStreamId{1};

struct TpuGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  DeviceType type() const override { return DeviceType::PrivateUse1; }

  Device exchangeDevice(Device d) const override {
    Device old = getDevice();
    if (old.index() != d.index()) setCurrentDevice(d.index());
    return old;
  }
  Device getDevice() const override { return Device(DeviceType::PrivateUse1, currentDevice()); }
  void setDevice(Device d) const override { setCurrentDevice(d.index()); }
  void uncheckedSetDevice(Device d) const noexcept override {
    try {
      setCurrentDevice(d.index());
    } catch (...) {
    }
  }

  Stream getStream(Device d) const override { return Stream(Stream::UNSAFE, d, tlsStream); }
  Stream getDefaultStream(Device d) const override { return Stream(Stream::DEFAULT, d); }
  Stream getNewStream(Device d, int /*priority*/) const override {
    return Stream(Stream::UNSAFE, d, nextStreamId++);
  }
  Stream getStreamFromGlobalPool(Device d, bool /*isHighPriority*/) const override {
    return Stream(Stream::DEFAULT, d);
  }
  Stream exchangeStream(Stream s) const override {
    Stream old = getStream(s.device());
    tlsStream = s.id();
    return old;
  }
  DeviceIndex deviceCount() const noexcept override {
    try {
      return aten::deviceCount();
    } catch (...) {
      return 0;
    }
  }

  // An event: what it marks since its last record(), and whether it times.
  struct EventBox {
    std::shared_ptr<exec::DeviceEvent> marked;  // null until recorded
    bool timing = false;
  };
  static EventBox* box(void* event) { return static_cast<EventBox*>(event); }

  void record(void** event, const Stream& stream, const DeviceIndex device,
              const c10::EventFlag flag) const override {
    if (*event == nullptr) *event = new EventBox();
    const DeviceIndex index = device >= 0 ? device : stream.device_index();
    box(*event)->marked = exec::DeviceEvent::record(index >= 0 ? index : currentDevice());
    box(*event)->timing = flag == c10::EventFlag::BACKEND_DEFAULT;
  }
  // Work on one device is ordered by its data: nothing to wait for here.
  void block(void*, const Stream&) const override {}
  bool queryEvent(void* event) const override {
    return event == nullptr || !box(event)->marked || box(event)->marked->query();
  }
  void destroyEvent(void* event, const DeviceIndex) const noexcept override { delete box(event); }
  void synchronizeEvent(void* event) const override {
    if (event != nullptr && box(event)->marked) box(event)->marked->synchronize();
  }
  double elapsedTime(void* start, void* end, const DeviceIndex) const override {
    TORCH_CHECK(start != nullptr && end != nullptr && box(start)->marked && box(end)->marked,
                "torchtpu: both events must be recorded before elapsed_time");
    TORCH_CHECK(box(start)->timing && box(end)->timing,
                "torchtpu: both events must be created with enable_timing=True");
    const int64_t ns = box(end)->marked->completedNs() - box(start)->marked->completedNs();
    return static_cast<double>(ns) / 1e6;
  }
  bool queryStream(const Stream&) const override { return true; }
  void synchronizeStream(const Stream& s) const override { exec::synchronize(s.device_index()); }
  void synchronizeDevice(const DeviceIndex index) const override { exec::synchronize(index); }
  void recordDataPtrOnStream(const c10::DataPtr&, const Stream&) const override {}
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, TpuGuardImpl);

}  // namespace torchtpu::aten
