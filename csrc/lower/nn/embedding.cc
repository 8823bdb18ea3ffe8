// embedding (rows of the weight picked by index) and embedding_dense_backward
// (the output gradient rows summed into the picked rows; padding_idx rows get
// no gradient; scale_grad_by_freq divides by how often each index occurs).
#include "lower/core/common.h"
#include "lower/core/device_checks.h"

namespace torchtpu::lower {
namespace {

Value flatIndices(LowerCtx& c, Value indices) {
  if (!runtime::isInteger(indices.dtype())) c.fail("indices must be an integer tensor");
  return c.fn.reshape(castTo(c.fn, indices, ElementType::kS64), {indices.t().numElements(), 1});
}

std::vector<Value> lowerEmbedding(LowerCtx& c) {
  Function& fn = c.fn;
  Value w = c.tensor("weight");
  Value idx = c.tensor("indices");
  if (w.rank() != 2) c.fail("weight must be 2-d");
  const int64_t n = idx.t().numElements();
  const int64_t d = w.dims()[1];
  if (n == 0) return {constantLike(fn, 0, w.dtype(), c.result().dims)};
  checkIndexRange(c, idx, 0, w.dims()[0], DeviceCheck::Error::kIndex, "index out of range in self");
  hlo::GatherDims g;
  g.offsetDims = {1};
  g.collapsedSliceDims = {0};
  g.startIndexMap = {0};
  g.indexVectorDim = 1;
  return {fn.gather(w, flatIndices(c, idx), g, {1, d})};
}

std::vector<Value> lowerEmbeddingBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_output");
  Value idx = c.tensor("indices");
  const int64_t rows = c.i("num_weights");
  const int64_t padding = c.i("padding_idx");
  const bool scale = c.b("scale_grad_by_freq");
  const int64_t n = idx.t().numElements();
  const int64_t d = g.dims().empty() ? 1 : g.dims().back();
  const ElementType t = accType(c.result().dtype);
  Value zeros = constantLike(fn, 0, t, {rows, d});
  if (n == 0) return {zeros};
  Value flat = flatIndices(c, idx);
  Value updates = castTo(fn, fn.reshape(g, {n, d}), t);
  Value idxN = fn.reshape(flat, {n});
  auto addBody = [](Function& r, const std::vector<Value>& v) {
    return std::vector<Value>{r.add(v[0], v[1])};
  };
  if (padding >= 0) {
    Value isPad = fn.compare(idxN, fn.constantInt(padding, ElementType::kS64, {n}),
                             hlo::ComparisonDirection::kEq);
    updates =
        fn.select(fn.broadcastInDim(isPad, {n, d}, {0}), constantLike(fn, 0, t, {n, d}), updates);
  }
  if (scale) {
    hlo::ScatterDims s1;
    s1.insertedWindowDims = {0};
    s1.scatterDimsToOperandDims = {0};
    s1.indexVectorDim = 1;
    Value counts = fn.scatter({constantLike(fn, 0, t, {rows})}, flat, {constantLike(fn, 1, t, {n})},
                              s1, addBody)[0];
    hlo::GatherDims g1;
    g1.collapsedSliceDims = {0};
    g1.startIndexMap = {0};
    g1.indexVectorDim = 1;
    Value freq = fn.gather(counts, flat, g1, {1});
    updates = fn.divide(updates, fn.broadcastInDim(freq, {n, d}, {0}));
  }
  hlo::ScatterDims s;
  s.updateWindowDims = {1};
  s.insertedWindowDims = {0};
  s.scatterDimsToOperandDims = {0};
  s.indexVectorDim = 1;
  return {fn.scatter({zeros}, flat, {updates}, s, addBody)[0]};
}

const Registrar kEmbedding({"aten::embedding", "aten::embedding.out"}, lowerEmbedding);
const Registrar kEmbeddingBackward({"aten::embedding_dense_backward",
                                    "aten::embedding_dense_backward.out"},
                                   lowerEmbeddingBackward);

}  // namespace
}  // namespace torchtpu::lower
