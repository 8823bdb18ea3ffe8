#include "lower/indexing/take_along.h"

namespace torchtpu::lower {
namespace {

Value indexConstant(Function& fn, const std::vector<int64_t>& idx) {
  const int64_t n = static_cast<int64_t>(idx.size());
  return fn.constantData(TensorType(ElementType::kS64, {n, 1}), idx.data());
}

}  // namespace

Value takeAlong(Function& fn, Value x, int64_t dim, const std::vector<int64_t>& idx) {
  const int64_t r = x.rank();
  hlo::GatherDims g;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) g.offsetDims.push_back(d < dim ? d + 1 : d);
  }
  g.collapsedSliceDims = {dim};
  g.startIndexMap = {dim};
  g.indexVectorDim = 1;
  std::vector<int64_t> sizes = x.dims();
  sizes[dim] = 1;
  Value out = fn.gather(x, indexConstant(fn, idx), g, sizes);
  // The index batch dim came first; move it to `dim`.
  std::vector<int64_t> perm;
  for (int64_t d = 1; d <= dim; ++d) perm.push_back(d);
  perm.push_back(0);
  for (int64_t d = dim + 1; d < r; ++d) perm.push_back(d);
  return fn.transpose(out, perm);
}

Value addAlong(Function& fn, Value g, int64_t dim, const std::vector<int64_t>& idx, int64_t n) {
  std::vector<int64_t> dims = g.dims();
  dims[dim] = n;
  Value zeros = fn.constant(0, g.dtype(), dims);
  hlo::ScatterDims s;
  for (int64_t d = 0; d < g.rank(); ++d) {
    if (d != dim) s.updateWindowDims.push_back(d);
  }
  s.insertedWindowDims = {dim};
  s.scatterDimsToOperandDims = {dim};
  s.indexVectorDim = 1;
  auto add = [](Function& r, const std::vector<Value>& a) {
    return std::vector<Value>{r.add(a[0], a[1])};
  };
  return fn.scatter({zeros}, indexConstant(fn, idx), {g}, s, add)[0];
}

}  // namespace torchtpu::lower
