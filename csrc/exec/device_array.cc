#include "exec/device_array.h"

#include "exec/device_memory.h"
#include "exec/metrics.h"
#include "runtime/element_type.h"

namespace torchtpu::exec {

ArrayOrigin makeOrigin(std::string what, const std::string& source) {
  if (!source.empty()) what += " at " + source;
  return std::make_shared<const std::string>(std::move(what));
}

DeviceArray::DeviceArray(runtime::Buffer buffer, ArrayOrigin origin)
    : buffer_(std::move(buffer)),
      type_(buffer_.elementType(), buffer_.dims()),
      device_(buffer_.deviceIndex()),
      bytes_(buffer_.hostSizeBytes()),
      origin_(std::move(origin)) {
  metrics().liveBuffers += 1;
  metrics().addLiveBytes(static_cast<int64_t>(bytes_));
  noteAllocated(*this);
}

DeviceArray::DeviceArray(hlo::TensorType type, int device,
                         std::shared_ptr<const ArrayPromise> promise, ArrayOrigin origin)
    : type_(std::move(type)),
      device_(device),
      bytes_(static_cast<size_t>(type_.numElements()) * runtime::elementByteSize(type_.dtype)),
      origin_(std::move(origin)),
      promise_(std::move(promise)),
      late_(true),
      counted_(false) {}  // counted once it has its buffer (settleLate)

void DeviceArray::awaitBuffer() const {
  promise_->wait();  // throws the program's failure
  // The promise returns only after settleLate() gave this array its buffer.
}

void settleLate(DeviceArray& late, DeviceArray& made) {
  late.buffer_ = std::move(made.buffer_);
  // The memory moves from `made` to `late`: counted once, not twice.
  if (made.counted_) {
    noteFreed(made);
    metrics().liveBuffers -= 1;
    metrics().addLiveBytes(-static_cast<int64_t>(made.bytes_));
    made.counted_ = false;
  }
  late.counted_ = true;
  metrics().liveBuffers += 1;
  metrics().addLiveBytes(static_cast<int64_t>(late.bytes_));
  noteAllocated(late);
  late.late_.store(false, std::memory_order_release);
}

DeviceArray::~DeviceArray() {
  if (!counted_) return;
  noteFreed(*this);
  metrics().liveBuffers -= 1;
  metrics().addLiveBytes(-static_cast<int64_t>(bytes_));
}

const std::string& DeviceArray::origin() const {
  static const std::string unknown;
  return origin_ ? *origin_ : unknown;
}

}  // namespace torchtpu::exec
