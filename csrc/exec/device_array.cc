#include "exec/device_array.h"

#include "exec/device_memory.h"
#include "exec/metrics.h"

namespace torchtpu::exec {

DeviceArray::DeviceArray(runtime::Buffer buffer)
    : buffer_(std::move(buffer)), bytes_(buffer_.hostSizeBytes()) {
  metrics().liveBuffers += 1;
  metrics().addLiveBytes(static_cast<int64_t>(bytes_));
  noteAllocated(*this);
}

DeviceArray::~DeviceArray() {
  noteFreed(*this);
  metrics().liveBuffers -= 1;
  metrics().addLiveBytes(-static_cast<int64_t>(bytes_));
}

}  // namespace torchtpu::exec
