#include "runtime/buffer.h"

#include <string>

#include "runtime/client.h"
#include "runtime/element_type_pjrt.h"
#include "runtime/fork_guard.h"
#include "runtime/pjrt_api.h"

namespace torchtpu::runtime {

Buffer::Buffer(std::shared_ptr<const Client> client, PJRT_Buffer* buffer, int device)
    : client_(std::move(client)), buffer_(buffer), device_(device) {
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_ElementType_Args> t;
  t->buffer = buffer_;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_ElementType, t);
  type_ = detail::fromPjrt(t->type);
  detail::Args<PJRT_Buffer_Dimensions_Args> d;
  d->buffer = buffer_;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_Dimensions, d);
  dims_.assign(d->dims, d->dims + d->num_dims);
}

Buffer::~Buffer() { reset(); }

Buffer::Buffer(Buffer&& other) noexcept
    : client_(std::move(other.client_)),
      buffer_(other.buffer_),
      type_(other.type_),
      dims_(std::move(other.dims_)),
      device_(other.device_) {
  other.buffer_ = nullptr;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    reset();
    client_ = std::move(other.client_);
    buffer_ = other.buffer_;
    type_ = other.type_;
    dims_ = std::move(other.dims_);
    device_ = other.device_;
    other.buffer_ = nullptr;
  }
  return *this;
}

void Buffer::reset() {
  if (buffer_ == nullptr) return;
  if (forkedAfterClient()) {  // the parent's buffer: not this process's to free
    buffer_ = nullptr;
    return;
  }
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_Destroy_Args> args;
  args->buffer = buffer_;
  if (PJRT_Error* e = api->PJRT_Buffer_Destroy(args.get())) (void)detail::takeError(api, e, "");
  buffer_ = nullptr;
}

int64_t Buffer::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

size_t Buffer::hostSizeBytes() const {
  return static_cast<size_t>(numElements()) * elementByteSize(type_);
}

size_t Buffer::onDeviceSizeBytes() const {
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_OnDeviceSizeInBytes_Args> args;
  args->buffer = buffer_;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_OnDeviceSizeInBytes, args);
  return args->on_device_size_in_bytes;
}

Event Buffer::readyEvent() const {
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_ReadyEvent_Args> args;
  args->buffer = buffer_;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_ReadyEvent, args);
  return Event(api, args->event);
}

Event Buffer::copyToHostAsync(void* dst, size_t size) const {
  if (buffer_ == nullptr) throw Error(ErrorCode::kFailedPrecondition, "copy from an empty buffer");
  if (size != hostSizeBytes()) {
    throw Error(ErrorCode::kInvalidArgument,
                "device-to-host copy of " + std::to_string(hostSizeBytes()) +
                    " bytes into a host region of " + std::to_string(size) + " bytes");
  }
  if (isDeleted()) {
    throw Error(ErrorCode::kFailedPrecondition,
                "the device buffer was deleted or donated to a program; it cannot be read");
  }
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_ToHostBuffer_Args> args;
  args->src = buffer_;
  args->dst = dst;
  args->dst_size = size;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_ToHostBuffer, args);
  return Event(api, args->event);
}

void Buffer::copyToHost(void* dst, size_t size) const { copyToHostAsync(dst, size).await(); }

bool Buffer::isDeleted() const {
  if (buffer_ == nullptr) return true;
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_IsDeleted_Args> args;
  args->buffer = buffer_;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_IsDeleted, args);
  return args->is_deleted;
}

void Buffer::deleteNow() {
  if (buffer_ == nullptr) return;
  const PJRT_Api* api = client_->plugin().api();
  detail::Args<PJRT_Buffer_Delete_Args> args;
  args->buffer = buffer_;
  TORCHTPU_PJRT_CALL(api, PJRT_Buffer_Delete, args);
}

}  // namespace torchtpu::runtime
