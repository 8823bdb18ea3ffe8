// The PrivateUse1 hooks: availability, generators, devices of pointers and
// storage resizing (FSDP2 frees and re-allocates parameter storage this way).
#include <ATen/detail/PrivateUse1HooksInterface.h>

#include "aten/generator.h"
#include "aten/storage.h"
#include "aten/storage_resize.h"
#include "exec/runtime_state.h"

namespace torchtpu::aten {
namespace {

struct TpuHooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return aten::deviceCount() > 0; }
  const at::Generator& getDefaultGenerator(c10::DeviceIndex device) const override {
    return defaultGenerator(device);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device) const override {
    return newGenerator(device);
  }
  at::Device getDeviceFromPtr(void* data) const override {
    return at::Device(c10::DeviceType::PrivateUse1,
                      static_cast<exec::DeviceStorage*>(data)->device());
  }
  bool isPinnedPtr(const void* data) const override { return isPinnedHostPointer(data); }
  c10::Allocator* getPinnedMemoryAllocator() const override { return pinnedHostAllocator(); }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  void init() const override {}
  c10::DeviceIndex deviceCount() const override { return aten::deviceCount(); }
  void setCurrentDevice(c10::DeviceIndex d) const override { aten::setCurrentDevice(d); }
  c10::DeviceIndex getCurrentDevice() const override { return aten::currentDevice(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex d) const override {
    auto old = aten::currentDevice();
    aten::setCurrentDevice(d);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex d) const override {
    return exchangeDevice(d);
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    resizeStorageBytes(storage, newsize);
  }
};

const bool registered = [] {
  at::RegisterPrivateUse1HooksInterface(new TpuHooks());
  return true;
}();

}  // namespace
}  // namespace torchtpu::aten
