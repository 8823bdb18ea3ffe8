// Tensor creation and the metadata-only kernels: views, resize_, set_.
// Views are ordinary PyTorch views over the shared storage; reading or
// writing through them is resolved when an op uses them (lower/core/views.cc).
#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/native/TensorShape.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <torch/library.h>

#include "aten/bridge.h"
#include "aten/dtype.h"
#include "aten/storage.h"
#include "aten/storage_resize.h"

namespace torchtpu::aten {
namespace {

constexpr c10::DispatchKeySet kTpuKeys{c10::DispatchKey::PrivateUse1};

c10::DeviceIndex targetDevice(std::optional<c10::Device> device) {
  return device.has_value() && device->has_index() ? device->index() : currentDevice();
}

at::Tensor emptyMemoryFormat(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                             std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                             std::optional<bool> /*pin_memory*/,
                             std::optional<c10::MemoryFormat> memory_format) {
  TORCH_CHECK(!layout.has_value() || *layout == c10::Layout::Strided,
              "torchtpu: only strided tensors are supported on the tpu device");
  const c10::ScalarType t = dtype.value_or(c10::get_default_dtype_as_scalartype());
  requireElementType(t);
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, targetDevice(device)));
  return at::detail::empty_generic(size, tpuAllocator(), kTpuKeys, t, memory_format);
}

at::Tensor emptyStrided(c10::IntArrayRef size, c10::IntArrayRef stride,
                        std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
                        std::optional<c10::Device> device, std::optional<bool> /*pin_memory*/) {
  TORCH_CHECK(!layout.has_value() || *layout == c10::Layout::Strided,
              "torchtpu: only strided tensors are supported on the tpu device");
  const c10::ScalarType t = dtype.value_or(c10::get_default_dtype_as_scalartype());
  requireElementType(t);
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, targetDevice(device)));
  return at::detail::empty_strided_generic(size, stride, tpuAllocator(), kTpuKeys, t);
}

const at::Tensor& resize(const at::Tensor& self, c10::IntArrayRef size,
                         std::optional<c10::MemoryFormat> memory_format) {
  auto* impl = self.unsafeGetTensorImpl();
  impl->set_sizes_contiguous(size);
  if (memory_format.has_value() && *memory_format != c10::MemoryFormat::Preserve) {
    impl->empty_tensor_restride(*memory_format);
  }
  const size_t itemsize = self.dtype().itemsize();
  const int64_t numel = self.numel();
  if (numel > 0) {
    // Bytes up to the last element the strides reach.
    int64_t extent = 1;
    for (int64_t d = 0; d < self.dim(); ++d) extent += (self.size(d) - 1) * self.stride(d);
    const size_t needed = static_cast<size_t>(self.storage_offset() + extent) * itemsize;
    if (needed > self.storage().nbytes()) resizeStorageBytes(self.storage(), needed);
  }
  return self;
}

at::Tensor& setStorage(at::Tensor& self, c10::Storage source, int64_t offset, c10::IntArrayRef size,
                       c10::IntArrayRef stride) {
  at::native::checkSetStorage(self, source, offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(offset);
  self.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride);
  return self;
}

at::Tensor& setSourceStorage(at::Tensor& self, c10::Storage source) {
  const int64_t n = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return setStorage(self, source, 0, {n}, {1});
}

at::Tensor& setSourceTensor(at::Tensor& self, const at::Tensor& src) {
  return setStorage(self, src.storage(), src.storage_offset(), src.sizes(), src.strides());
}

at::Tensor& setEmpty(at::Tensor& self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, tpuAllocator(), true);
  return setStorage(self, storage, 0, {0}, {});
}

// Whether `self` may take `from`'s storage and metadata in place
// (`param.data = t`): between dense CPU and tpu tensors, as PyTorch allows
// between the CPU and CUDA. nn.Module.to("tpu") then keeps its Parameter
// objects, so tied weights stay tied and optimizers keep their parameters.
bool hasCompatibleShallowCopyType(const at::Tensor& self, const at::Tensor& from) {
  auto dense = [](const at::Tensor& t) {
    return t.layout() == c10::kStrided &&
           (t.device().is_cpu() || t.device().type() == c10::DeviceType::PrivateUse1);
  };
  if (dense(self) && dense(from)) return true;
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_has_compatible_shallow_copy_type", hasCompatibleShallowCopyType);
  m.impl("empty.memory_format", emptyMemoryFormat);
  m.impl("empty_strided", emptyStrided);
  m.impl("as_strided", at::native::as_strided_tensorimpl);
  m.impl("view", at::native::view);
  m.impl("_reshape_alias", at::native::_reshape_alias);
  m.impl("unfold", at::native::unfold);
  m.impl("view_as_real", at::native::view_as_real);
  m.impl("view_as_complex", at::native::view_as_complex);
  m.impl("resize_", resize);
  m.impl("set_.source_Storage", setSourceStorage);
  m.impl("set_.source_Storage_storage_offset", setStorage);
  m.impl("set_.source_Tensor", setSourceTensor);
  m.impl("set_", setEmpty);
}

// Composite kernels that would otherwise run first and end in ops that raise
// for PrivateUse1 (convolution_overrideable): route them to the bridge.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("convolution", torch::CppFunction::makeFromBoxedFunction<&torchtpu::aten::boxedKernel>());
  m.impl("convolution_backward",
         torch::CppFunction::makeFromBoxedFunction<&torchtpu::aten::boxedKernel>());
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&torchtpu::aten::boxedKernel>());
}

}  // namespace torchtpu::aten
