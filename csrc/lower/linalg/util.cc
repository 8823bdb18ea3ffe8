#include "lower/linalg/util.h"

#include <numeric>

namespace torchtpu::lower::linalg {

using Dir = hlo::ComparisonDirection;

std::vector<int64_t> batchDims(const Value& x) {
  if (x.rank() < 2) throw LoweringError("expected a matrix (or a batch of matrices)");
  return {x.dims().begin(), x.dims().end() - 2};
}

std::vector<int64_t> concatDims(std::vector<int64_t> dims, const std::vector<int64_t>& tail) {
  dims.insert(dims.end(), tail.begin(), tail.end());
  return dims;
}

Value broadcastBatch(Function& fn, Value x, const std::vector<int64_t>& batch) {
  const int64_t m = x.dims()[x.rank() - 2], n = x.dims()[x.rank() - 1];
  return broadcastTo(fn, x, concatDims(batch, {m, n}));
}

Value flattenBatch(Function& fn, Value x) {
  const std::vector<int64_t> b = batchDims(x);
  const int64_t count = std::accumulate(b.begin(), b.end(), int64_t{1}, std::multiplies<>());
  return fn.reshape(x, {count, x.dims()[x.rank() - 2], x.dims()[x.rank() - 1]});
}

Value unflattenBatch(Function& fn, Value x, const std::vector<int64_t>& batch) {
  std::vector<int64_t> d = batch;
  for (size_t k = 1; k < x.dims().size(); ++k) d.push_back(x.dims()[k]);
  return fn.reshape(x, d);
}

Value mT(Function& fn, Value x) {
  std::vector<int64_t> perm(x.dims().size());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return fn.transpose(x, perm);
}

Value matmul(Function& fn, Value a, Value b) {
  hlo::DotDims d;
  const int64_t r = a.rank();
  for (int64_t k = 0; k < r - 2; ++k) {
    d.lhsBatch.push_back(k);
    d.rhsBatch.push_back(k);
  }
  d.lhsContracting = {r - 1};
  d.rhsContracting = {r - 2};
  return fn.dotGeneral(a, b, d, std::nullopt, hlo::Precision::kHighest);
}

Value eye(Function& fn, ElementType t, const std::vector<int64_t>& batch, int64_t n) {
  const TensorType it(ElementType::kS32, concatDims(batch, {n, n}));
  const int64_t r = it.rank();
  Value on = fn.compare(fn.iota(it, r - 2), fn.iota(it, r - 1), Dir::kEq);
  return fn.select(on, fn.constant(1, t, it.dims), fn.constant(0, t, it.dims));
}

Value triangle(Function& fn, Value x, bool lower, int64_t k) {
  const TensorType it(ElementType::kS32, x.dims());
  const int64_t r = x.rank();
  // keep col - row <= k (lower) or col - row >= k (upper)
  Value diff = fn.subtract(fn.iota(it, r - 1), fn.iota(it, r - 2));
  Value keep = fn.compare(diff, fn.constant(static_cast<double>(k), ElementType::kS32, x.dims()),
                          lower ? Dir::kLe : Dir::kGe);
  return fn.select(keep, x, fn.constant(0, x.dtype(), x.dims()));
}

Value diagonal(Function& fn, Value x) {
  const int64_t r = x.rank();
  const int64_t m = x.dims()[r - 2], n = x.dims()[r - 1], k = std::min(m, n);
  std::vector<int64_t> start(r, 0), limit = x.dims();
  limit[r - 2] = k;
  limit[r - 1] = k;
  x = fn.slice(x, start, limit);
  const TensorType it(ElementType::kS32, x.dims());
  Value on = fn.compare(fn.iota(it, r - 2), fn.iota(it, r - 1), Dir::kEq);
  x = fn.select(on, x, fn.constant(0, x.dtype(), x.dims()));
  return fn.reduce(x, fn.constant(0, x.dtype()), {r - 1}, hlo::BinaryOp::kAdd);
}

Value gatherRows(Function& fn, Value x, Value idx) {
  const int64_t batch = x.dims()[0], r = idx.dims()[1], k = x.dims()[2];
  hlo::GatherDims g;
  g.offsetDims = {2};
  g.collapsedSliceDims = {1};
  g.operandBatchingDims = {0};
  g.startIndicesBatchingDims = {0};
  g.startIndexMap = {1};
  g.indexVectorDim = 2;
  return fn.gather(x, fn.reshape(idx, {batch, r, 1}), g, {1, 1, k});
}

Value triSolve(Function& fn, Value a, Value b, bool left, bool lower, bool unitDiagonal,
               bool transposeA) {
  const std::vector<int64_t> batch = broadcastShapes({batchDims(a), batchDims(b)});
  a = broadcastBatch(fn, a, batch);
  b = broadcastBatch(fn, b, batch);
  if (a.t().numElements() == 0 || b.t().numElements() == 0) return zeros(fn, b.t());
  return fn.triangularSolve(
      a, b, left, lower, unitDiagonal,
      transposeA ? Function::Transpose::kTranspose : Function::Transpose::kNo);
}

bool isContiguous(const LowerCtx& c, std::string_view name) {
  for (size_t k = 0; k < c.call.argNames.size(); ++k) {
    if (c.call.argNames[k] != name) continue;
    const ir::TensorRef& t = c.call.args[k].tensor;
    int64_t expected = 1;
    for (size_t d = t.sizes.size(); d-- > 0;) {
      if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
      expected *= t.sizes[d];
    }
    return true;
  }
  return true;
}

void checkErrorsOnCpu(const LowerCtx& c) {
  if (c.has("check_errors") && c.b("check_errors")) {
    c.fail("check_errors=True reads info on the host: left to the CPU kernel");
  }
}

Value zeros(Function& fn, const TensorType& t) { return fn.constant(0, t.dtype, t.dims); }

}  // namespace torchtpu::lower::linalg
