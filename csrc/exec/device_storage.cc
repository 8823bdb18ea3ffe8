#include "exec/device_storage.h"

#include <vector>

#include "exec/device_memory.h"
#include "exec/metrics.h"
#include "exec/runtime_state.h"

namespace torchtpu::exec {

void DeviceStorage::adoptResolved() const {
  if (pending_ && pending_->resolved) {
    array_ = pending_->resolved;
    pending_.reset();
  }
}

DeviceStorage::State DeviceStorage::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  adoptResolved();
  if (pending_) return State::kPending;
  return array_ ? State::kMaterialized : State::kUninitialized;
}

ArrayPtr DeviceStorage::array() const {
  PendingPtr p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    adoptResolved();
    if (!pending_) return array_;
    p = pending_;
  }
  resolvePending(p);
  std::lock_guard<std::mutex> lock(mu_);
  adoptResolved();
  return array_;
}

DeviceStorage::Contents DeviceStorage::contents() const {
  std::lock_guard<std::mutex> lock(mu_);
  adoptResolved();
  if (pending_) return {nullptr, pending_};
  return {array_, nullptr};
}

PendingPtr DeviceStorage::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  adoptResolved();
  return pending_;
}

void DeviceStorage::setArray(ArrayPtr array) {
  std::lock_guard<std::mutex> lock(mu_);
  // The tensor's shape, for memory reports, carries over to what replaces it.
  if (array && array_) inheritShape(*array, *array_);
  array_ = std::move(array);
  pending_.reset();
}

void DeviceStorage::setPending(PendingPtr value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (value && !value->hasShape) {
    std::vector<int64_t> shape;
    const bool known = pending_ ? pending_->hasShape : (array_ && labelledShape(*array_, shape));
    if (pending_ && known) shape = pending_->shape;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (known && n == value->type.numElements()) {
      value->shape = std::move(shape);
      value->hasShape = true;
    }
  }
  array_.reset();
  pending_ = std::move(value);
}

ArrayPtr DeviceStorage::materialize(runtime::ElementType dtype) {
  if (ArrayPtr a = array()) return a;
  std::lock_guard<std::mutex> lock(mu_);
  if (array_) return array_;
  const size_t item = runtime::elementByteSize(dtype);
  const int64_t n = static_cast<int64_t>(nbytes_ / item);
  std::vector<uint8_t> zeros(static_cast<size_t>(n) * item, 0);
  static const auto* origin = new ArrayOrigin(makeOrigin("the zeros of a storage never written"));
  array_ =
      std::make_shared<DeviceArray>(client()->toDevice(zeros.data(), dtype, {n}, device_), *origin);
  metrics().hostToDeviceBytes += static_cast<int64_t>(zeros.size());
  return array_;
}

void DeviceStorage::resetForSize(size_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  nbytes_ = nbytes;
  array_.reset();
  pending_.reset();
}

}  // namespace torchtpu::exec
