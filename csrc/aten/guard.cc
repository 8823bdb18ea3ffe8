// The DeviceGuardImpl for "tpu": current device, streams and events.
//
// PJRT orders work by data dependencies, so there is one ordered stream per
// device in effect: streams are ids only, an event is complete once the
// work launched before it is, and synchronizing waits for launched programs.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>

#include "aten/storage.h"
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

  // Events carry no state: everything launched before record() is ordered
  // before whatever reads its results.
  void record(void** event, const Stream&, const DeviceIndex, const c10::EventFlag) const override {
    if (*event == nullptr) *event = reinterpret_cast<void*>(uintptr_t{1});
  }
  void block(void*, const Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void destroyEvent(void*, const DeviceIndex) const noexcept override {}
  void synchronizeEvent(void*) const override { exec::synchronize(-1); }
  bool queryStream(const Stream&) const override { return true; }
  void synchronizeStream(const Stream& s) const override { exec::synchronize(s.device_index()); }
  void synchronizeDevice(const DeviceIndex index) const override { exec::synchronize(index); }
  void recordDataPtrOnStream(const c10::DataPtr&, const Stream&) const override {}
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, TpuGuardImpl);

}  // namespace torchtpu::aten
