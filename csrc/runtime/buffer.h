// A device array owned by the runtime (RAII over PJRT_Buffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/element_type.h"
#include "runtime/event.h"

struct PJRT_Buffer;

namespace torchtpu::runtime {

class Client;

class Buffer {
 public:
  Buffer() = default;
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  bool valid() const { return buffer_ != nullptr; }
  ElementType elementType() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t numElements() const;
  // Bytes of the dense row-major host copy.
  size_t hostSizeBytes() const;
  // Bytes the plugin allocated on the device.
  size_t onDeviceSizeBytes() const;
  // Index of the device (among the client's addressable devices) holding it.
  int deviceIndex() const { return device_; }

  // Completes when the buffer's contents are computed.
  Event readyEvent() const;
  // Starts copying the buffer into `dst` (dense, row-major, `size` bytes,
  // which must equal hostSizeBytes()). `dst` must stay valid until the event
  // completes.
  Event copyToHostAsync(void* dst, size_t size) const;
  // Copies and waits.
  void copyToHost(void* dst, size_t size) const;

  // True after the buffer was donated to an execution or deleted.
  bool isDeleted() const;
  // Frees the device memory now; the handle stays (isDeleted() is true).
  void deleteNow();

  // For the runtime layer only.
  Buffer(std::shared_ptr<const Client> client, PJRT_Buffer* buffer, int device);
  PJRT_Buffer* raw() const { return buffer_; }

 private:
  void reset();
  std::shared_ptr<const Client> client_;
  PJRT_Buffer* buffer_ = nullptr;
  ElementType type_ = ElementType::kF32;
  std::vector<int64_t> dims_;
  int device_ = 0;
};

}  // namespace torchtpu::runtime
