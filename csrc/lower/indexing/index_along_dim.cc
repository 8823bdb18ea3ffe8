// Writes into the slices of one dim that an index list names: index_fill (a
// mask along dim), index_copy and index_reduce (prod, mean, amax, amin).
// Negative indices wrap; out-of-range ones are clamped by the device, and
// raise in launch_blocking mode (device-side checks).
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "hlo/comparison.h"
#include "lower/core/common.h"
#include "lower/core/device_checks.h"
#include "lower/indexing/index_util.h"

namespace torchtpu::lower {
namespace {

using Dir = hlo::ComparisonDirection;
using Error = DeviceCheck::Error;
using hlo::BinaryOp;
using indexing::combiner;
using indexing::wrapIndex;

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
