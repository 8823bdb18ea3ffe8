// Changing the byte size or the element type of a tpu storage, keeping its
// contents.
#pragma once

#include <c10/core/Storage.h>

#include "exec/device_storage.h"

namespace torchtpu::aten {

// Resizes `storage` to `nbytes`: contents up to the smaller size are kept, new
// bytes read as zeros; resizing to 0 frees the device memory.
void resizeStorageBytes(const c10::Storage& storage, size_t nbytes);

// The same bytes as an array of `dtype` (flat, unless the element width is the
// same): what a view of another dtype reads (view_as_real, Tensor.view(dtype),
// byte-wise storage copies in torch.save / torch.load).
exec::ArrayPtr reinterpretArray(const exec::ArrayPtr& array, runtime::ElementType dtype);

// The storage's array as `dtype`, reinterpreting (and repointing the storage
// to) it when it holds another element type; null if uninitialized.
exec::ArrayPtr storageArrayAs(exec::DeviceStorage& storage, runtime::ElementType dtype);

}  // namespace torchtpu::aten
