#include "exec/device_array.h"

#include "exec/device_memory.h"
#include "exec/metrics.h"

namespace torchtpu::exec {

ArrayOrigin makeOrigin(std::string what, const std::string& source) {
  if (!source.empty()) what += " at " + source;
  return std::make_shared<const std::string>(std::move(what));
}

DeviceArray::DeviceArray(runtime::Buffer buffer, ArrayOrigin origin)
    : buffer_(std::move(buffer)), bytes_(buffer_.hostSizeBytes()), origin_(std::move(origin)) {
  metrics().liveBuffers += 1;
  metrics().addLiveBytes(static_cast<int64_t>(bytes_));
  noteAllocated(*this);
}

DeviceArray::~DeviceArray() {
  noteFreed(*this);
  metrics().liveBuffers -= 1;
  metrics().addLiveBytes(-static_cast<int64_t>(bytes_));
}

const std::string& DeviceArray::origin() const {
  static const std::string unknown;
  return origin_ ? *origin_ : unknown;
}

}  // namespace torchtpu::exec
