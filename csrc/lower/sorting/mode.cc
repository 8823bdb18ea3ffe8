// mode: the most frequent value along a dim and an index of it. Frequencies
// come from an all-pairs equality count (K x K per row); among the most
// frequent values PyTorch's CPU kernel returns the smallest, with the index of
// its last occurrence (its stable sort of short rows; longer rows use an
// unstable sort, so for K > 16 only floating types, whose ties are
// unspecified anyway, are lowered).
#include <limits>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;

std::vector<Value> mode(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const bool keepdim = c.b("keepdim");
  if (x.rank() == 0) return {x, fn.constantInt(0, ElementType::kS64)};
  const int64_t dim = normDim(c.i("dim"), x.rank());
  const int64_t r = x.rank();
  const int64_t k = x.dims()[dim];
  const bool floating = runtime::isFloating(x.dtype());
  if (runtime::isComplex(x.dtype())) c.fail("mode of complex values");
  if (k > 16 && x.dtype() != ElementType::kF32 && x.dtype() != ElementType::kF64) {
    c.fail("mode over more than 16 elements: PyTorch's choice among ties is unspecified");
  }
  if (k == 0) c.fail("mode of an empty dim");
  if (x.dtype() == ElementType::kPred) x = castTo(fn, x, ElementType::kS32);
  const ElementType t = x.dtype();
  // Move dim last.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) perm.push_back(d);
  }
  perm.push_back(dim);
  Value xs = fn.transpose(x, perm);
  const std::vector<int64_t> rowDims = xs.dims();
  std::vector<int64_t> pairDims = rowDims;
  pairDims.push_back(k);
  std::vector<int64_t> atI, atJ;
  for (int64_t d = 0; d + 1 < r; ++d) {
    atI.push_back(d);
    atJ.push_back(d);
  }
  atI.push_back(r - 1);
  atJ.push_back(r);
  Value eq = fn.compare(fn.broadcastInDim(xs, pairDims, atI), fn.broadcastInDim(xs, pairDims, atJ),
                        D::kEq);
  Value one = fn.constantInt(1, ElementType::kS64, pairDims);
  Value zero = fn.constantInt(0, ElementType::kS64, pairDims);
  Value count =
      fn.reduce(fn.select(eq, one, zero), fn.constantInt(0, ElementType::kS64), {r}, B::kAdd);
  std::vector<int64_t> lead(rowDims.begin(), rowDims.end() - 1);
  std::vector<int64_t> leadAt;
  for (int64_t d = 0; d + 1 < r; ++d) leadAt.push_back(d);
  Value maxCount = fn.reduce(count, fn.constantInt(0, ElementType::kS64), {r - 1}, B::kMaximum);
  Value best = fn.compare(count, fn.broadcastInDim(maxCount, rowDims, leadAt), D::kEq);
  // The largest value of t, to mask out the values that are not the most frequent.
  const auto topOf = [&]() -> Value {
    if (floating) return fn.constant(std::numeric_limits<double>::infinity(), t);
    switch (t) {
      case ElementType::kS8:
        return fn.constantInt(std::numeric_limits<int8_t>::max(), t);
      case ElementType::kS16:
        return fn.constantInt(std::numeric_limits<int16_t>::max(), t);
      case ElementType::kS32:
        return fn.constantInt(std::numeric_limits<int32_t>::max(), t);
      case ElementType::kS64:
        return fn.constantInt(std::numeric_limits<int64_t>::max(), t);
      case ElementType::kU8:
        return fn.constantInt(std::numeric_limits<uint8_t>::max(), t);
      default:
        c.fail("mode of an unsupported type");
    }
  };
  Value top = topOf();
  Value value = fn.reduce(fn.select(best, xs, fn.broadcastInDim(top, rowDims, {})), top, {r - 1},
                          B::kMinimum);
  Value at = fn.compare(xs, fn.broadcastInDim(value, rowDims, leadAt), D::kEq);
  Value iota = fn.iota(TensorType(ElementType::kS64, rowDims), r - 1);
  Value index = fn.reduce(fn.select(at, iota, fn.constantInt(-1, ElementType::kS64, rowDims)),
                          fn.constantInt(-1, ElementType::kS64), {r - 1}, B::kMaximum);
  if (keepdim) {
    std::vector<int64_t> kd = x.dims();
    kd[dim] = 1;
    value = fn.reshape(value, kd);
    index = fn.reshape(index, kd);
  }
  return {value, index};
}

const Registrar kMode({"aten::mode", "aten::mode.values"}, mode);

}  // namespace
}  // namespace torchtpu::lower
