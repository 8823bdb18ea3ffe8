// pow's CPU contract on "tpu".
//
// Meta kernels. The bridge learns an op's result types from its Meta kernel,
// and torch/_meta_registrations.py registers torch._refs.pow as the Meta
// kernel of every pow overload: it promotes a bool base to int64 even for a
// bool exponent (CPU: torch.pow(bool_t, False) is bool) and skips the CPU's
// "Integers to negative integer powers are not allowed." check. These route
// pow back to PyTorch's structured meta functions (at::meta::pow), the ones
// the CPU kernel runs, so dtypes and errors are the CPU's.
//
// The tpu kernel of pow(Tensor, Scalar). The bridge runs an op's Meta kernel
// once per call signature, and a Scalar exponent is a runtime value, not part
// of the signature: the meta check of a negative integer exponent would run
// only for the first exponent seen. This kernel makes that check on every
// call, then runs the bridge.
#include <ATen/ATen.h>
#include <ATen/ops/pow_meta_dispatch.h>
#include <torch/library.h>

#include "aten/bridge.h"

namespace torchtpu::aten {
namespace {

at::Tensor powTensorScalar(const at::Tensor& self, const at::Scalar& exponent) {
  return at::meta::pow(self, exponent);
}
at::Tensor powTensorTensor(const at::Tensor& self, const at::Tensor& exponent) {
  return at::meta::pow(self, exponent);
}
at::Tensor powScalar(const at::Scalar& self, const at::Tensor& exponent) {
  return at::meta::pow(self, exponent);
}
at::Tensor& powTensorScalarOut(const at::Tensor& self, const at::Scalar& exponent,
                               at::Tensor& out) {
  return at::meta::pow_outf(self, exponent, out);
}
at::Tensor& powTensorTensorOut(const at::Tensor& self, const at::Tensor& exponent,
                               at::Tensor& out) {
  return at::meta::pow_outf(self, exponent, out);
}
at::Tensor& powScalarOut(const at::Scalar& self, const at::Tensor& exponent, at::Tensor& out) {
  return at::meta::pow_outf(self, exponent, out);
}
at::Tensor& powInplaceScalar(at::Tensor& self, const at::Scalar& exponent) {
  return at::meta::pow_(self, exponent);
}
at::Tensor& powInplaceTensor(at::Tensor& self, const at::Tensor& exponent) {
  return at::meta::pow_(self, exponent);
}

// The Tensor-Scalar overloads: self, exponent, ... on the stack.
void powTensorScalarTpu(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const size_t nargs = op.schema().arguments().size();
  const c10::IValue& self = (*stack)[stack->size() - nargs];
  const c10::IValue& exponent = (*stack)[stack->size() - nargs + 1];
  if (self.isTensor() && exponent.isScalar()) {
    const c10::Scalar e = exponent.toScalar();
    TORCH_CHECK(!(at::isIntegralType(self.toTensor().scalar_type(), /*includeBool=*/true) &&
                  e.isIntegral(/*includeBool=*/true) && e.toLong() < 0),
                "Integers to negative integer powers are not allowed.");
  }
  boxedKernel(op, stack);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  for (const char* name : {"pow.Tensor_Scalar", "pow.Tensor_Scalar_out", "pow_.Scalar"}) {
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&powTensorScalarTpu>());
  }
}

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("pow.Tensor_Scalar", TORCH_FN(powTensorScalar));
  m.impl("pow.Tensor_Tensor", TORCH_FN(powTensorTensor));
  m.impl("pow.Scalar", TORCH_FN(powScalar));
  m.impl("pow.Tensor_Scalar_out", TORCH_FN(powTensorScalarOut));
  m.impl("pow.Tensor_Tensor_out", TORCH_FN(powTensorTensorOut));
  m.impl("pow.Scalar_out", TORCH_FN(powScalarOut));
  m.impl("pow_.Scalar", TORCH_FN(powInplaceScalar));
  m.impl("pow_.Tensor", TORCH_FN(powInplaceTensor));
}

}  // namespace
}  // namespace torchtpu::aten
