// unfold_backward: the gradient of Tensor.unfold (a view), which scatter-adds
// every window back to its place along the unfolded dim.
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

// grad_in has input_sizes with `dim` replaced by the window count and a
// trailing window dim; every element goes back to w * step + j along dim.
std::vector<Value> lowerUnfoldBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_in");
  const std::vector<int64_t> sizes = c.ints("input_sizes");
  const int64_t r = static_cast<int64_t>(sizes.size());
  const int64_t dim = normDim(c.i("dim"), r);
  const int64_t size = c.i("size"), step = c.i("step");
  if (r == 0) return {fn.reshape(g, {})};
  if (g.rank() != r + 1) c.fail("grad_in has an unexpected rank");
  const int64_t windows = g.dims()[dim];
  // (..., windows, ..., size) -> (..., windows, size, ...) -> (..., windows * size, ...)
  std::vector<int64_t> perm;
  for (int64_t d = 0; d <= dim; ++d) perm.push_back(d);
  perm.push_back(r);
  for (int64_t d = dim + 1; d < r; ++d) perm.push_back(d);
  Value t = fn.transpose(g, perm);
  std::vector<int64_t> merged = sizes;
  merged[dim] = windows * size;
  t = fn.reshape(t, merged);
  std::vector<int64_t> idx;
  for (int64_t w = 0; w < windows; ++w) {
    for (int64_t j = 0; j < size; ++j) idx.push_back(w * step + j);
  }
  std::vector<int64_t> outDims = sizes;
  Value zeros = fn.constant(0, g.dtype(), outDims);
  if (idx.empty()) return {zeros};
  hlo::ScatterDims s;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) s.updateWindowDims.push_back(d);
  }
  s.insertedWindowDims = {dim};
  s.scatterDimsToOperandDims = {dim};
  s.indexVectorDim = 1;
  const int64_t n = static_cast<int64_t>(idx.size());
  Value index = fn.constantData(TensorType(ElementType::kS64, {n, 1}), idx.data());
  auto add = [](Function& rg, const std::vector<Value>& a) {
    return std::vector<Value>{rg.add(a[0], a[1])};
  };
  return {fn.scatter({zeros}, index, {t}, s, add)[0]};
}
const Registrar kUnfoldBackward({"aten::unfold_backward", "aten::unfold_backward.out"},
                                lowerUnfoldBackward);

}  // namespace
}  // namespace torchtpu::lower
