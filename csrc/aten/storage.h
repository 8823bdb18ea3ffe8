// The "tpu" allocator: a storage's DataPtr owns an exec::DeviceStorage (its
// context); the data pointer is an opaque token that is never dereferenced.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>

#include <functional>

#include "exec/device_storage.h"
#include "ir/op_call.h"

namespace torchtpu::aten {

c10::Allocator* tpuAllocator();
// Pinned host memory for tpu copies (aten/host_allocator.cc), and whether a
// pointer is the start of a block it holds.
c10::Allocator* pinnedHostAllocator();
bool isPinnedHostPointer(const void* ptr);

// The device storage behind a tpu tensor or storage; throws if it has none.
exec::DeviceStorage& deviceStorage(const c10::Storage& storage);
inline exec::DeviceStorage& deviceStorage(const at::TensorBase& t) {
  return deviceStorage(t.storage());
}

// The tensor's view over its storage array (array index left at -1).
ir::TensorRef viewOf(const at::TensorBase& t);

// The current device of this thread, and setting it.
c10::DeviceIndex currentDevice();
void setCurrentDevice(c10::DeviceIndex index);
// The number of devices; starts the runtime through the lazy-init hook when it
// has not started (0 if it cannot).
c10::DeviceIndex deviceCount();
// Installs the hook (the Python package's lazy initialization; it must not
// throw).
void setLazyInit(std::function<void()> init);

}  // namespace torchtpu::aten
