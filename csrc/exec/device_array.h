// A device buffer shared by the storages and pending work that use it, with
// live-memory accounting.
#pragma once

#include <memory>

#include "hlo/types.h"
#include "runtime/buffer.h"

namespace torchtpu::exec {

class DeviceArray {
 public:
  explicit DeviceArray(runtime::Buffer buffer);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  const runtime::Buffer& buffer() const { return buffer_; }
  hlo::TensorType type() const { return {buffer_.elementType(), buffer_.dims()}; }
  size_t bytes() const { return bytes_; }
  int device() const { return buffer_.deviceIndex(); }

 private:
  runtime::Buffer buffer_;
  size_t bytes_;
};

using ArrayPtr = std::shared_ptr<DeviceArray>;

}  // namespace torchtpu::exec
