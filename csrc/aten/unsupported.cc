// Clear errors for tensor kinds the tpu device does not have: quantized and
// sparse tensors (instead of PyTorch's generic "Could not run ... backend").
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

namespace torchtpu::aten {
namespace {

template <const char* kKind>
void unsupported(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "torchtpu: ", kKind, " tensors are not supported on the tpu ",
                              "device (in ", op.schema().operator_name(),
                              "); keep them on the CPU, or convert to a dense tensor of a ",
                              "supported dtype first");
}

constexpr char kQuantized[] = "quantized";
constexpr char kSparse[] = "sparse";

TORCH_LIBRARY_IMPL(_, QuantizedPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&unsupported<kQuantized>>());
}
TORCH_LIBRARY_IMPL(_, SparsePrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&unsupported<kSparse>>());
}
TORCH_LIBRARY_IMPL(_, SparseCsrPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&unsupported<kSparse>>());
}

}  // namespace
}  // namespace torchtpu::aten
