// Meta kernel for geqrf. The bridge learns an op's result types from its Meta
// kernel, and PyTorch ships none for geqrf, which has a tpu lowering
// (lower/linalg_qr.cc). Checks and shapes follow PyTorch's CPU kernel.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>

namespace torchtpu::aten {
namespace {

std::tuple<at::Tensor, at::Tensor> geqrfMeta(const at::Tensor& self) {
  TORCH_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "geqrf: Expected a floating point or complex tensor as input. Got ",
              self.scalar_type());
  const int64_t m = self.size(-2);
  const int64_t n = self.size(-1);
  std::vector<int64_t> tauShape(self.sizes().begin(), self.sizes().end() - 2);
  tauShape.push_back(std::min(m, n));
  // LAPACK's result is column-major (the CPU kernel's strides).
  at::Tensor a = at::empty(self.sizes(), self.options()).mT().contiguous().mT();
  at::Tensor tau = at::empty(tauShape, self.options());
  return {a, tau};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, Meta, m) { m.impl("geqrf", TORCH_FN(geqrfMeta)); }

}  // namespace torchtpu::aten
