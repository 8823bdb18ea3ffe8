#include "exec/device_storage.h"

#include <vector>

#include "exec/metrics.h"
#include "exec/runtime_state.h"

namespace torchtpu::exec {

bool DeviceStorage::materialized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return array_ != nullptr;
}

ArrayPtr DeviceStorage::array() const {
  std::lock_guard<std::mutex> lock(mu_);
  return array_;
}

void DeviceStorage::setArray(ArrayPtr array) {
  std::lock_guard<std::mutex> lock(mu_);
  array_ = std::move(array);
}

ArrayPtr DeviceStorage::materialize(runtime::ElementType dtype) {
  std::lock_guard<std::mutex> lock(mu_);
  if (array_) return array_;
  const size_t item = runtime::elementByteSize(dtype);
  const int64_t n = static_cast<int64_t>(nbytes_ / item);
  std::vector<uint8_t> zeros(static_cast<size_t>(n) * item, 0);
  array_ = std::make_shared<DeviceArray>(client()->toDevice(zeros.data(), dtype, {n}, device_));
  metrics().hostToDeviceBytes += static_cast<int64_t>(zeros.size());
  return array_;
}

void DeviceStorage::resetForSize(size_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  nbytes_ = nbytes;
  array_.reset();
}

}  // namespace torchtpu::exec
