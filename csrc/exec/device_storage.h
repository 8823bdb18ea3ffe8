// What a "tpu" tensor's storage points at: one device array and its state.
#pragma once

#include <cstddef>
#include <mutex>

#include "exec/device_array.h"
#include "runtime/element_type.h"

namespace torchtpu::exec {

class DeviceStorage {
 public:
  DeviceStorage(size_t nbytes, int device) : nbytes_(nbytes), device_(device) {}

  size_t nbytes() const { return nbytes_; }
  int device() const { return device_; }
  // Uninitialized storage has no array yet; reading it gives zeros.
  bool materialized() const;
  ArrayPtr array() const;
  // Repoints the storage (every tensor over it sees the new contents).
  void setArray(ArrayPtr array);
  // The array, created as zeros of `dtype` if the storage is uninitialized.
  ArrayPtr materialize(runtime::ElementType dtype);
  // Changes the byte size; existing contents are kept up to the smaller size
  // (handled by the caller), an uninitialized storage just changes size.
  void resetForSize(size_t nbytes);

 private:
  mutable std::mutex mu_;
  size_t nbytes_;
  int device_;
  ArrayPtr array_;
};

}  // namespace torchtpu::exec
