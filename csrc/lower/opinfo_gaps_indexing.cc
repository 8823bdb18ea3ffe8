// Indexing ops the OpInfo sweep found on the CPU fallback: index_fill (a
// mask along dim), index_copy, take and put_ (flat gather / scatter),
// max_unpool2d/3d (scatter into zeros) and trace (bucketize and searchsorted
// are in opinfo_gaps_searchsorted.cc). Negative indices wrap; out-of-range ones are
// clamped by the device, and raise in launch_blocking mode (device-side checks).
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "hlo/comparison.h"
#include "lower/common.h"
#include "lower/device_checks.h"

namespace torchtpu::lower {
namespace {

using Dir = hlo::ComparisonDirection;
using Error = DeviceCheck::Error;
using hlo::BinaryOp;

// idx as s64, negative entries wrapped by `size`.
Value wrapIndex(Function& fn, Value idx, int64_t size) {
  idx = castTo(fn, idx, ElementType::kS64);
  Value zero = fn.constantInt(0, ElementType::kS64, idx.dims());
  Value wrapped = fn.add(idx, fn.constantInt(size, ElementType::kS64, idx.dims()));
  return fn.select(fn.compare(idx, zero, Dir::kLt), wrapped, idx);
}

hlo::RegionFn combiner(bool add) {
  return [add](Function& r, const std::vector<Value>& a) {
    if (!add) return std::vector<Value>{a[1]};
    if (a[0].dtype() == ElementType::kPred) {
      return std::vector<Value>{r.binary(BinaryOp::kOr, a[0], a[1])};
    }
    return std::vector<Value>{r.add(a[0], a[1])};
  };
}

// ---- index_fill ----------------------------------------------------------------------

std::vector<Value> lowerIndexFill(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType t = c.result().dtype;
  Value self = castTo(fn, c.tensor("self"), t);
  if (self.rank() == 0) self = fn.reshape(self, {1});
  const int64_t dim = normDim(c.i("dim"), self.rank());
  const int64_t size = self.dims()[dim];
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  const bool tensorValue = c.op().find("int_Tensor") != std::string::npos;
  Value value = castTo(fn, tensorValue ? c.tensor("value") : c.scalar("value"), t);
  if (value.rank() != 0) value = fn.reshape(value, {});
  if (n == 0) return {fn.reshape(self, c.result().dims)};
  checkIndexRange(c, index, -size, size, Error::kIndex, outOfBoundsMessage(dim, size));
  index = fn.reshape(wrapIndex(fn, index, size), {1, n});
  // mask[d] = any_k (d == index[k])
  Value iota = fn.iota(TensorType(ElementType::kS64, {size, n}), 0);
  Value hit = fn.compare(iota, fn.broadcastInDim(index, {size, n}, {0, 1}), Dir::kEq);
  Value mask = fn.reduce(hit, fn.constantInt(0, ElementType::kPred), {1}, BinaryOp::kOr);
  mask = fn.broadcastInDim(mask, self.dims(), {dim});
  Value out = fn.select(mask, fn.broadcastInDim(value, self.dims(), {}), self);
  return {fn.reshape(out, c.result().dims)};
}
const Registrar kIndexFill({"aten::index_fill.int_Scalar", "aten::index_fill.int_Tensor",
                            "aten::index_fill_.int_Scalar", "aten::index_fill_.int_Tensor",
                            "aten::index_fill.int_Scalar_out", "aten::index_fill.int_Tensor_out"},
                           lowerIndexFill);

// ---- index_copy ------------------------------------------------------------------------

std::vector<Value> lowerIndexCopy(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType t = c.result().dtype;
  Value self = castTo(fn, c.tensor("self"), t);
  Value source = castTo(fn, c.tensor("source"), t);
  const bool scalarSelf = self.rank() == 0;
  if (scalarSelf) self = fn.reshape(self, {1});
  if (source.rank() == 0) source = fn.reshape(source, {1});
  const int64_t r = self.rank();
  const int64_t dim = normDim(c.i("dim"), r);
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  if (n == 0) return {fn.reshape(self, c.result().dims)};
  if (source.rank() != r) c.fail("index_copy: source and self must have the same rank");
  checkIndexRange(c, index, 0, self.dims()[dim], Error::kIndex,
                  outOfBoundsMessage(dim, self.dims()[dim], "index_copy_(): "));
  index = fn.reshape(wrapIndex(fn, index, self.dims()[dim]), {n, 1});
  hlo::ScatterDims s;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) s.updateWindowDims.push_back(d);
  }
  s.insertedWindowDims = {dim};
  s.scatterDimsToOperandDims = {dim};
  s.indexVectorDim = 1;
  Value out = fn.scatter({self}, index, {source}, s, combiner(false))[0];
  return {fn.reshape(out, c.result().dims)};
}
const Registrar kIndexCopy({"aten::index_copy", "aten::index_copy.out", "aten::index_copy_"},
                           lowerIndexCopy);

// ---- take / put ------------------------------------------------------------------------

// take / put_'s check: flat indices in [-total, total).
void checkFlat(LowerCtx& c, const Value& index, int64_t total) {
  checkIndexRange(c, index, -total, total, Error::kIndex,
                  "out of range: tried to access index {} on a tensor of " + std::to_string(total) +
                      " elements.");
}

std::vector<Value> lowerTake(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const int64_t total = self.t().numElements();
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  if (n == 0) return {fn.constant(0, self.dtype(), index.dims())};
  if (total == 0) c.fail("take from an empty tensor");
  checkFlat(c, index, total);
  Value flat = fn.reshape(self, {total});
  Value idx = fn.reshape(wrapIndex(fn, index, total), {n, 1});
  hlo::GatherDims g;
  g.collapsedSliceDims = {0};
  g.startIndexMap = {0};
  g.indexVectorDim = 1;
  return {fn.reshape(fn.gather(flat, idx, g, {1}), index.dims())};
}
const Registrar kTake({"aten::take", "aten::take.out"}, lowerTake);

std::vector<Value> lowerPut(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const int64_t total = self.t().numElements();
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  if (n == 0) return {self};
  Value source = castTo(fn, c.tensor("source"), self.dtype());
  if (source.t().numElements() != n) c.fail("put_: source and index need the same size");
  checkFlat(c, index, total);
  Value flat = fn.reshape(self, {total});
  Value idx = fn.reshape(wrapIndex(fn, index, total), {n, 1});
  hlo::ScatterDims s;
  s.insertedWindowDims = {0};
  s.scatterDimsToOperandDims = {0};
  s.indexVectorDim = 1;
  Value out = fn.scatter({flat}, idx, {fn.reshape(source, {n})}, s, combiner(c.b("accumulate")))[0];
  return {fn.reshape(out, self.dims())};
}
const Registrar kPut({"aten::put_", "aten::put", "aten::put.out"}, lowerPut);

// ---- max_unpool --------------------------------------------------------------------------

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

// ---- trace -------------------------------------------------------------------------------

const Registrar kTrace({"aten::trace", "aten::trace.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (x.rank() != 2) c.fail("trace expects a matrix");
  const ElementType t = c.result().dtype;
  x = castTo(fn, x, t);
  TensorType it(ElementType::kS64, x.dims());
  Value diag = fn.compare(fn.iota(it, 0), fn.iota(it, 1), Dir::kEq);
  Value z = fn.select(diag, x, fn.constant(0, t, x.dims()));
  return {fn.reduce(z, fn.constant(0, t), {0, 1},
                    t == ElementType::kPred ? BinaryOp::kOr : BinaryOp::kAdd)};
});

// ---- index_reduce -------------------------------------------------------------------------

// self[..., index[i], ...] = reduce(self (with include_self), source[..., i, ...]);
// reduce is prod, mean, amax or amin.
std::vector<Value> lowerIndexReduce(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType t = c.result().dtype;
  Value self = castTo(fn, c.tensor("self"), t);
  Value source = castTo(fn, c.tensor("source"), t);
  const bool scalarSelf = self.rank() == 0;
  if (scalarSelf) self = fn.reshape(self, {1});
  if (source.rank() == 0) source = fn.reshape(source, {1});
  const int64_t r = self.rank();
  const int64_t dim = normDim(c.i("dim"), r);
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  if (n == 0) return {fn.reshape(self, c.result().dims)};
  if (source.rank() != r) c.fail("index_reduce: source and self must have the same rank");
  const std::string reduce = c.str("reduce");
  const bool includeSelf = c.b("include_self");
  checkIndexRange(c, index, 0, self.dims()[dim], Error::kIndex, "index out of range in self");
  index = fn.reshape(wrapIndex(fn, index, self.dims()[dim]), {n, 1});
  hlo::ScatterDims s;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) s.updateWindowDims.push_back(d);
  }
  s.insertedWindowDims = {dim};
  s.scatterDimsToOperandDims = {dim};
  s.indexVectorDim = 1;
  auto scatterWith = [&](Value base, Value updates, BinaryOp op) {
    auto body = [op](Function& rg, const std::vector<Value>& a) {
      return std::vector<Value>{rg.binary(op, a[0], a[1])};
    };
    return fn.scatter({base}, index, {updates}, s, body)[0];
  };
  const ElementType ct = runtime::isFloating(t) ? t : ElementType::kF64;
  Value counts = scatterWith(fn.constant(0, ct, self.dims()), fn.constant(1, ct, source.dims()),
                             BinaryOp::kAdd);
  Value hit = fn.compare(counts, fn.constant(0, ct, self.dims()), Dir::kGt);
  const bool isFloat = runtime::isFloating(t);
  double identity = 0;
  BinaryOp op = BinaryOp::kAdd;
  if (reduce == "prod") {
    identity = 1;
    op = BinaryOp::kMultiply;
  } else if (reduce == "amax") {
    identity = isFloat ? -INFINITY : static_cast<double>(INT64_MIN);
    op = BinaryOp::kMaximum;
  } else if (reduce == "amin") {
    identity = isFloat ? INFINITY : static_cast<double>(INT64_MAX);
    op = BinaryOp::kMinimum;
  } else if (reduce != "mean") {
    c.fail("index_reduce: unknown reduce '" + reduce + "'");
  }
  if (t == ElementType::kPred) c.fail("index_reduce of bools is not lowered");
  Value ident = isFloat || reduce == "prod" || reduce == "mean"
                    ? fn.constant(identity, t, self.dims())
                    : fn.constantInt(reduce == "amax" ? INT64_MIN : INT64_MAX, t, self.dims());
  Value base = includeSelf ? self : fn.select(hit, ident, self);
  Value out = scatterWith(base, source, op);
  if (reduce == "mean") {
    Value one = fn.constant(1, ct, self.dims());
    Value denom = includeSelf ? fn.add(counts, one) : fn.select(hit, counts, one);
    if (isFloat) {
      out = fn.divide(out, castTo(fn, denom, t));
    } else {
      Value q = fn.unary(hlo::UnaryOp::kFloor, fn.divide(castTo(fn, out, ct), denom));
      out = castTo(fn, q, t);
    }
  }
  return {fn.reshape(out, c.result().dims)};
}
const Registrar kIndexReduce({"aten::index_reduce", "aten::index_reduce.out",
                              "aten::index_reduce_"},
                             lowerIndexReduce);

}  // namespace
}  // namespace torchtpu::lower
