// Changing the byte size of a tpu storage, keeping its contents.
#pragma once

#include <c10/core/Storage.h>

namespace torchtpu::aten {

// Resizes `storage` to `nbytes`: contents up to the smaller size are kept, new
// bytes read as zeros; resizing to 0 frees the device memory.
void resizeStorageBytes(const c10::Storage& storage, size_t nbytes);

}  // namespace torchtpu::aten
