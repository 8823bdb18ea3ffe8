// A device buffer shared by the storages and pending work that use it, with
// live-memory accounting.
#pragma once

#include <atomic>
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

// What a late array (below) waits for: the launch of the program that makes
// it, which runs on another thread while that program compiles.
class ArrayPromise {
 public:
  virtual ~ArrayPromise() = default;
  // Returns once the program launched (the array has its buffer), or throws
  // what made it fail.
  virtual void wait() const = 0;
};

class DeviceArray {
 public:
  explicit DeviceArray(runtime::Buffer buffer, ArrayOrigin origin = nullptr);
  // A late array: an output of a program compiled in the background
  // (exec/background_flush.h). Its type and device are known now; buffer()
  // waits until `promise`'s program launched. It counts in the live-memory
  // figures from then on, when its buffer exists.
  DeviceArray(hlo::TensorType type, int device, std::shared_ptr<const ArrayPromise> promise,
              ArrayOrigin origin = nullptr);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  const runtime::Buffer& buffer() const {
    if (late_.load(std::memory_order_acquire)) awaitBuffer();
    return buffer_;
  }
  // Whether its buffer is still to come (a late array whose program has not
  // launched yet).
  bool late() const { return late_.load(std::memory_order_acquire); }
  const hlo::TensorType& type() const { return type_; }
  size_t bytes() const { return bytes_; }
  int device() const { return device_; }
  // What made it ("" when not known).
  const std::string& origin() const;
  const ArrayOrigin& sharedOrigin() const { return origin_; }
  // The shape of the tensor it was made for, for memory reports (arrays are
  // flat storages): set once known, and carried to the arrays that replace it
  // in the same storage (exec/device_memory.h: labelShape, inheritShape).
  // The type reported: its element type with that shape (else its own dims).
  hlo::TensorType reportedType() const;

  // Gives late array `late` the buffer of `made` (the launched program's
  // output of the same type); `made` is left without one.
  friend void settleLate(DeviceArray& late, DeviceArray& made);

 private:
  friend void labelShape(DeviceArray& array, const std::vector<int64_t>& shape);
  friend void inheritShape(DeviceArray& array, const DeviceArray& from);
  friend bool labelledShape(const DeviceArray& array, std::vector<int64_t>& shape);
  void awaitBuffer() const;
  runtime::Buffer buffer_;
  hlo::TensorType type_;
  int device_ = 0;
  size_t bytes_;
  ArrayOrigin origin_;
  std::shared_ptr<const ArrayPromise> promise_;  // late arrays only
  std::atomic<bool> late_{false};
  bool counted_ = true;  // in the live-memory accounting
  // Guarded by the live-array lock (exec/device_memory.cc).
  std::vector<int64_t> shape_;
  bool hasShape_ = false;
};

using ArrayPtr = std::shared_ptr<DeviceArray>;

}  // namespace torchtpu::exec
