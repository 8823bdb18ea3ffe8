// A device buffer shared by the storages and pending work that use it, with
// live-memory accounting.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hlo/types.h"
#include "runtime/buffer.h"

namespace torchtpu::exec {

// What made an array ("aten::mm at train.py:12", "a copy from the host"), for
// the largest-arrays reports; shared by every array one program or call made.
using ArrayOrigin = std::shared_ptr<const std::string>;
ArrayOrigin makeOrigin(std::string what, const std::string& source = "");

class DeviceArray {
 public:
  explicit DeviceArray(runtime::Buffer buffer, ArrayOrigin origin = nullptr);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  const runtime::Buffer& buffer() const { return buffer_; }
  hlo::TensorType type() const { return {buffer_.elementType(), buffer_.dims()}; }
  size_t bytes() const { return bytes_; }
  int device() const { return buffer_.deviceIndex(); }
  // What made it ("" when not known).
  const std::string& origin() const;
  const ArrayOrigin& sharedOrigin() const { return origin_; }
  // The shape of the tensor it was made for, for memory reports (arrays are
  // flat storages): set once known, and carried to the arrays that replace it
  // in the same storage (exec/device_memory.h: labelShape, inheritShape).
  // The type reported: its element type with that shape (else its own dims).
  hlo::TensorType reportedType() const;

 private:
  friend void labelShape(DeviceArray& array, const std::vector<int64_t>& shape);
  friend void inheritShape(DeviceArray& array, const DeviceArray& from);
  friend bool labelledShape(const DeviceArray& array, std::vector<int64_t>& shape);
  runtime::Buffer buffer_;
  size_t bytes_;
  ArrayOrigin origin_;
  // Guarded by the live-array lock (exec/device_memory.cc).
  std::vector<int64_t> shape_;
  bool hasShape_ = false;
};

using ArrayPtr = std::shared_ptr<DeviceArray>;

}  // namespace torchtpu::exec
