// max_unpool2d / max_unpool3d: the input scattered into zeros at the flat
// positions (within each output plane) that `indices` names.
#include "lower/core/common.h"
#include "lower/indexing/index_util.h"

namespace torchtpu::lower {
namespace {

using indexing::combiner;

std::vector<Value> lowerMaxUnpool(LowerCtx& c, int k) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  Value indices = c.tensor("indices");
  const std::vector<int64_t> outSize = c.ints("output_size");
  if (static_cast<int>(outSize.size()) != k || self.rank() < k) c.fail("bad output_size");
  if (indices.dims() != self.dims()) c.fail("indices and input must have the same shape");
  int64_t batch = 1, in = 1, out = 1;
  for (int64_t d = 0; d < self.rank() - k; ++d) batch *= self.dims()[d];
  for (int64_t d = self.rank() - k; d < self.rank(); ++d) in *= self.dims()[d];
  for (int64_t s : outSize) out *= s;
  std::vector<int64_t> resultDims(self.dims().begin(), self.dims().end() - k);
  resultDims.insert(resultDims.end(), outSize.begin(), outSize.end());
  if (batch * in == 0) return {fn.constant(0, self.dtype(), resultDims)};
  // Global flat position: row * out + index.
  Value idx = fn.reshape(castTo(fn, indices, ElementType::kS64), {batch, in});
  Value row = fn.multiply(fn.iota(TensorType(ElementType::kS64, {batch, in}), 0),
                          fn.constantInt(out, ElementType::kS64, {batch, in}));
  idx = fn.reshape(fn.add(row, idx), {batch * in, 1});
  hlo::ScatterDims s;
  s.insertedWindowDims = {0};
  s.scatterDimsToOperandDims = {0};
  s.indexVectorDim = 1;
  Value zeros = fn.constant(0, self.dtype(), {batch * out});
  Value res = fn.scatter({zeros}, idx, {fn.reshape(self, {batch * in})}, s, combiner(false))[0];
  return {fn.reshape(res, resultDims)};
}
const Registrar kMaxUnpool2d({"aten::max_unpool2d", "aten::max_unpool2d.out"},
                             [](LowerCtx& c) { return lowerMaxUnpool(c, 2); });
const Registrar kMaxUnpool3d({"aten::max_unpool3d", "aten::max_unpool3d.out"},
                             [](LowerCtx& c) { return lowerMaxUnpool(c, 3); });

}  // namespace
}  // namespace torchtpu::lower
