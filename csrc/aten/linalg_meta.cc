// Meta kernels for geqrf and linalg_lstsq.out. The bridge learns an op's
// result types from its Meta kernel, and PyTorch ships none for these two,
// which have tpu lowerings (lower/linalg/qr.cc, lower/linalg/lstsq.cc). Checks
// and shapes follow PyTorch's CPU kernels, including the CPU's default driver
// (gelsy), so results match the CPU's. One difference: the residuals of the
// gelsd / gelss drivers (tall A) are returned even when A is rank-deficient,
// where the CPU returns an empty tensor (a shape that depends on the data).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

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

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&> lstsqOutMeta(
    const at::Tensor& self, const at::Tensor& b, std::optional<double> /*rcond*/,
    std::optional<c10::string_view> driverArg, at::Tensor& solution, at::Tensor& residuals,
    at::Tensor& rank, at::Tensor& singularValues) {
  TORCH_CHECK(self.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  TORCH_CHECK(self.scalar_type() == b.scalar_type(),
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
              "input's dtype ",
              self.scalar_type(), " and other's dtype ", b.scalar_type());
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "torch.linalg.lstsq: Expected a floating point or complex tensor as input. Got ",
              self.scalar_type());
  const bool vector = b.dim() == self.dim() - 1;
  TORCH_CHECK(vector || b.dim() >= 2,
              "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
              "(input.dim() - other.dim()) <= 1");
  const int64_t m = self.size(-2);
  const int64_t n = self.size(-1);
  const int64_t bRows = vector ? b.size(-1) : b.size(-2);
  TORCH_CHECK(bRows == m, "torch.linalg.lstsq: input.size(-2) should match other.size(",
              vector ? -1 : -2, ")");
  const int64_t nrhs = vector ? 1 : b.size(-1);
  const std::string driver = driverArg.has_value() ? std::string(*driverArg) : "gelsy";
  TORCH_CHECK(
      driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss",
      "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const auto selfBatch = self.sizes().slice(0, self.dim() - 2);
  const auto bBatch = vector ? b.sizes().slice(0, b.dim() - 1) : b.sizes().slice(0, b.dim() - 2);
  const std::vector<int64_t> batch = at::infer_size(selfBatch, bBatch);
  auto with = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> s = batch;
    s.insert(s.end(), tail);
    return s;
  };
  solution.resize_(vector ? with({n}) : with({n, nrhs}));
  residuals.resize_(m > n && driver != "gelsy" ? with({nrhs}) : std::vector<int64_t>{0});
  rank.resize_(driver != "gels" ? batch : std::vector<int64_t>{0});
  singularValues.resize_(driver == "gelsd" || driver == "gelss" ? with({std::min(m, n)})
                                                                : std::vector<int64_t>{0});
  return {solution, residuals, rank, singularValues};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("geqrf", TORCH_FN(geqrfMeta));
  m.impl("linalg_lstsq.out", TORCH_FN(lstsqOutMeta));
}

}  // namespace torchtpu::aten
