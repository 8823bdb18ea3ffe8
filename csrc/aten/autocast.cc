// Automatic mixed precision for "tpu": torch.autocast("tpu", dtype=...).
//
// The AutocastPrivateUse1 key falls through for every op but the ones listed
// here, which cast their floating-point tensor arguments by PyTorch's own
// policies (the op lists that CUDA uses, from ATen/autocast_mode.h):
//   lower_precision_fp  matmuls and convolutions run in the autocast dtype
//   fp32                ops that need range or precision run in float32
//   fp32_set_opt_dtype  reductions with a dtype argument accumulate in float32
//   promote             mixed-dtype ops run in the widest input dtype
#include <ATen/autocast_mode.h>
#include <torch/library.h>

#include "aten/torch_compat.h"

namespace torchtpu::aten {
namespace {

using at::Scalar;
using at::ScalarType;
using at::Tensor;
using c10::IntArrayRef;

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
#define TORCHTPU_LOWER_PRECISION_FP(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define TORCHTPU_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define TORCHTPU_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define TORCHTPU_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
#define TORCHTPU_DIFFERENT_REDISPATCH(FUNC, NAME, SIGNATURE, REDISPATCH, POLICY) \
  KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE(FUNC, NAME, SIGNATURE, REDISPATCH, POLICY)

  AT_FORALL_LOWER_PRECISION_FP(TORCHTPU_LOWER_PRECISION_FP)
  AT_FORALL_FP32(TORCHTPU_FP32)
  AT_FORALL_FP32_SET_OPT_DTYPE(TORCHTPU_FP32_SET_OPT_DTYPE)
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(TORCHTPU_DIFFERENT_REDISPATCH)
  AT_FORALL_PROMOTE(TORCHTPU_PROMOTE)
  // Stacking and concatenating mixed-precision tensors (CUDA does the same).
  KERNEL_PRIVATEUSEONE(stack, promote)
  KERNEL_PRIVATEUSEONE(cat, promote)
  KERNEL_PRIVATEUSEONE(index_copy, promote)

#undef TORCHTPU_LOWER_PRECISION_FP
#undef TORCHTPU_FP32
#undef TORCHTPU_FP32_SET_OPT_DTYPE
#undef TORCHTPU_PROMOTE
#undef TORCHTPU_DIFFERENT_REDISPATCH
}

}  // namespace
}  // namespace torchtpu::aten
