// Copies between the host and "tpu", and between tpu tensors; reading a
// single value (.item()).
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "aten/bridge.h"
#include "aten/call_contract.h"
#include "aten/dtype.h"
#include "aten/python_source.h"
#include "aten/storage.h"
#include "aten/without_gil.h"
#include "exec/metrics.h"
#include "exec/profile_events.h"
#include "exec/runtime_state.h"

namespace torchtpu::aten {
namespace {

bool isTpu(const at::Tensor& t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

// Copies tpu tensor `src` into `host`, a dense CPU tensor of its shape and dtype.
void readInto(const at::Tensor& src, const at::Tensor& host) {
  if (src.numel() == 0) return;
  if (deviceStorage(src).state() == exec::DeviceStorage::State::kUninitialized) {
    host.zero_();  // never written: zeros
    return;
  }
  exec::HostSpan span(exec::SpanKind::kCopyToHost, "tpu::copy_to_host", src.device().index());
  span.detail("bytes", static_cast<int64_t>(host.nbytes()));
  try {
    // Running the trace and waiting for the device take long: other Python
    // threads record and launch their own work meanwhile.
    const WithoutGil nogil;
    exec::ArrayPtr array = denseArray(src);
    array->buffer().copyToHost(host.data_ptr(), host.nbytes());
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    rethrowRuntimeError(e, "copying a tensor to the host");
  }
  exec::metrics().deviceToHostBytes += static_cast<int64_t>(host.nbytes());
}

// A dense CPU tensor with the values of tpu tensor `src`.
at::Tensor toHost(const at::Tensor& src) {
  at::Tensor host = at::empty(src.sizes(), src.options().device(at::kCPU));
  readInto(src, host);
  return host;
}

// toHost with the tensor's lazy conjugate and negative bits applied (PyTorch
// routes copies of such views here without resolving them).
at::Tensor hostValues(const at::Tensor& src) {
  at::Tensor host = toHost(src);
  if (src.is_conj()) host = host.conj_physical();
  if (src.is_neg()) host = host.neg();
  return host;
}

// The values of tpu tensor `src` with its lazy conjugate and negative bits
// applied, computed on its device (conj_physical and neg of the same view
// without the bits): a new tensor, no host copy (and so nothing to flush in
// defer mode, and capturable under torch.compile).
at::Tensor deviceValues(const at::Tensor& src) {
  at::Tensor v = src;
  if (v.is_conj()) v = at::conj_physical(at::_conj(v));
  if (v.is_neg()) v = at::neg(at::_neg_view(v));
  return v;
}

// Uploads a CPU tensor as a new dense array on `device`, as a tpu tensor.
at::Tensor toDevice(const at::Tensor& src, c10::ScalarType dtype, int device) {
  at::Tensor host = src.to(dtype).resolve_conj().resolve_neg().contiguous();
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, device));
  at::Tensor out =
      at::empty(host.sizes(), host.options().device(c10::DeviceType::PrivateUse1, device));
  if (host.numel() == 0) return out;
  exec::HostSpan span(exec::SpanKind::kCopyToDevice, "tpu::copy_to_device", device);
  span.detail("bytes", static_cast<int64_t>(host.nbytes()));
  try {
    const runtime::ElementType et = requireElementType(dtype);
    std::vector<int64_t> dims(host.sizes().begin(), host.sizes().end());
    auto buffer = exec::client()->toDevice(host.data_ptr(), et, dims, device);
    deviceStorage(out).setArray(
        std::make_shared<exec::DeviceArray>(std::move(buffer), hostCopyOrigin()));
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    rethrowRuntimeError(e, "copying a tensor to the device");
  }
  exec::metrics().hostToDeviceBytes += static_cast<int64_t>(host.nbytes());
  return out;
}

// Whether `t` is its whole storage, dense and row-major: writing all of it
// replaces the storage's array.
bool isWholeStorage(const at::Tensor& t) {
  return t.storage_offset() == 0 && t.is_contiguous() &&
         static_cast<size_t>(t.numel()) * t.dtype().itemsize() == t.storage().nbytes();
}

// Uploads host tensor `src` (broadcast to dst's shape, converted to its dtype)
// as the new array of dst's storage.
void uploadWhole(const at::Tensor& dst, const at::Tensor& src) {
  at::Tensor host =
      src.to(dst.scalar_type()).resolve_conj().resolve_neg().expand(dst.sizes()).contiguous();
  exec::HostSpan span(exec::SpanKind::kCopyToDevice, "tpu::copy_to_device", dst.device().index());
  span.detail("bytes", static_cast<int64_t>(host.nbytes()));
  try {
    const runtime::ElementType et = requireElementType(dst.scalar_type());
    std::vector<int64_t> dims(host.sizes().begin(), host.sizes().end());
    auto buffer = exec::client()->toDevice(host.data_ptr(), et, dims, dst.device().index());
    deviceStorage(dst).setArray(
        std::make_shared<exec::DeviceArray>(std::move(buffer), hostCopyOrigin()));
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    rethrowRuntimeError(e, "copying a tensor to the device");
  }
  exec::metrics().hostToDeviceBytes += static_cast<int64_t>(host.nbytes());
}

at::Tensor copyFrom(const at::Tensor& self, const at::Tensor& dst, bool /*non_blocking*/) {
  // `self` is the source.
  if (self.numel() == 0 || dst.numel() == 0) {
    // Nothing to copy, but the shapes must still fit, as on the CPU.
    if (isTpu(dst)) checkCopy(dst, self);
    return dst;
  }
  if (isTpu(dst)) checkCopy(dst, self);
  const bool lazyBits = self.is_conj() || self.is_neg();
  if (isTpu(self) && !isTpu(dst)) {
    if (!lazyBits && dst.is_contiguous() && dst.scalar_type() == self.scalar_type() &&
        dst.sizes() == self.sizes() && !dst.is_conj() && !dst.is_neg()) {
      readInto(self, dst);  // straight into the destination (tensor.cpu())
    } else {
      dst.copy_(hostValues(self));
    }
    return dst;
  }
  if (!isTpu(self) && isTpu(dst) && isWholeStorage(dst)) {
    uploadWhole(dst, self);  // the common case (tensor.to("tpu")): one upload, no program
    return dst;
  }
  if (!isTpu(self) && isTpu(dst)) {
    at::Tensor staged = toDevice(self, dst.scalar_type(), dst.device().index());
    deviceCopy(dst, staged);
    return dst;
  }
  if (self.device() != dst.device()) {
    deviceCopy(dst, toDevice(hostValues(self), dst.scalar_type(), dst.device().index()));
    return dst;
  }
  if (lazyBits) {
    deviceCopy(dst, deviceValues(self));
    return dst;
  }
  deviceCopy(dst, self);
  return dst;
}

at::Tensor copyFromAndResize(const at::Tensor& self, const at::Tensor& dst) {
  at::native::resize_output(dst, self.sizes());
  return copyFrom(self, dst, false);
}

at::Scalar localScalarDense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(),
              " elements cannot be converted to Scalar");
  return hostValues(self).item();
}

}  // namespace

at::Tensor resolveLazyBits(const at::Tensor& t) { return deviceValues(t); }

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_copy_from", copyFrom);
  m.impl("_copy_from_and_resize", copyFromAndResize);
  m.impl("_local_scalar_dense", localScalarDense);
}

}  // namespace torchtpu::aten
