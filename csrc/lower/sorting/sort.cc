// sort, topk, kthvalue, median / nanmedian.
//
// PyTorch semantics implemented here: sorting is always stable (as on CPU,
// so ties keep their original order, also when descending); NaN sorts as
// larger than every number (last ascending, first descending); indices are
// int64. topk takes the first k of that order (largest: descending);
// kthvalue is the k-th smallest. median is the lower median ((n-1)/2-th
// smallest) and is NaN, at the first NaN's index, when a row holds NaN;
// nanmedian takes the lower median of the non-NaN values (NaN if none).
#include <cmath>

#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::ComparisonDirection;

struct Sorted {
  Value values, indices;
  ElementType dtype;  // the input's element type (values may be u8 for bool)
};

// Stable sort of x along dim (x has rank >= 1), with int64 indices.
Sorted sortAlong(Function& fn, Value x, int64_t dim, bool descending) {
  const ElementType orig = x.dtype();
  if (runtime::isComplex(orig)) throw LoweringError("sorting complex values");
  if (orig == ElementType::kPred) x = fn.convert(x, ElementType::kU8);
  const bool floating = runtime::isFloating(x.dtype());
  const Value idx = fn.iota(TensorType(ElementType::kS64, x.dims()), dim);
  auto less = [descending, floating](Function& r, const std::vector<Value>& args) {
    const Value a = args[0], b = args[1];
    Value before =
        r.compare(a, b, descending ? ComparisonDirection::kGt : ComparisonDirection::kLt);
    if (floating) {
      // NaN is the largest value.
      const Value aNan = r.compare(a, a, ComparisonDirection::kNe);
      const Value bNan = r.compare(b, b, ComparisonDirection::kNe);
      const Value nanOrder =
          descending ? r.binary(BinaryOp::kAnd, aNan, r.unary(hlo::UnaryOp::kNot, bNan))
                     : r.binary(BinaryOp::kAnd, r.unary(hlo::UnaryOp::kNot, aNan), bNan);
      before = r.binary(BinaryOp::kOr, before, nanOrder);
    }
    return std::vector<Value>{before};
  };
  std::vector<Value> out = fn.sort({x, idx}, dim, /*isStable=*/true, less);
  Value values = out[0];
  if (orig == ElementType::kPred) values = fn.convert(values, orig);
  return {values, out[1], orig};
}

Value shaped(LowerCtx& c, Value v, size_t i) {
  const TensorType& want = c.result(i);
  if (v.dims() != want.dims && v.t().numElements() == want.numElements()) {
    v = c.fn.reshape(v, want.dims);
  }
  return v;
}

// The slice [start, start + len) of x along dim.
Value sliceAlong(Function& fn, Value x, int64_t dim, int64_t start, int64_t len) {
  std::vector<int64_t> lo(x.rank(), 0), hi = x.dims();
  lo[dim] = start;
  hi[dim] = start + len;
  return fn.slice(x, lo, hi);
}

// x as at least a vector, and dim normalized.
std::pair<Value, int64_t> prepare(LowerCtx& c, Value x) {
  const int64_t dim = normDim(c.has("dim") ? c.i("dim") : -1, x.rank());
  if (x.rank() == 0) x = c.fn.reshape(x, {1});
  return {x, dim};
}

std::vector<Value> lowerSort(LowerCtx& c) {
  auto [x, dim] = prepare(c, c.tensor("self"));
  Sorted s = sortAlong(c.fn, x, dim, c.b("descending"));
  return {shaped(c, s.values, 0), shaped(c, s.indices, 1)};
}

const Registrar kSort({"aten::sort", "aten::sort.values", "aten::sort.stable",
                       "aten::sort.values_stable"},
                      lowerSort);

std::vector<Value> lowerTopk(LowerCtx& c) {
  auto [x, dim] = prepare(c, c.tensor("self"));
  const int64_t k = c.i("k");
  if (k < 0 || k > x.dims()[dim]) c.fail("k is out of range");
  // sorted=False leaves the order unspecified; sorted order is one such order.
  Sorted s = sortAlong(c.fn, x, dim, c.b("largest"));
  return {shaped(c, sliceAlong(c.fn, s.values, dim, 0, k), 0),
          shaped(c, sliceAlong(c.fn, s.indices, dim, 0, k), 1)};
}

const Registrar kTopk({"aten::topk", "aten::topk.values"}, lowerTopk);

std::vector<Value> lowerKthvalue(LowerCtx& c) {
  auto [x, dim] = prepare(c, c.tensor("self"));
  const int64_t k = c.i("k");
  if (k < 1 || k > x.dims()[dim]) c.fail("k is out of range");
  Sorted s = sortAlong(c.fn, x, dim, false);
  return {shaped(c, sliceAlong(c.fn, s.values, dim, k - 1, 1), 0),
          shaped(c, sliceAlong(c.fn, s.indices, dim, k - 1, 1), 1)};
}

const Registrar kKthvalue({"aten::kthvalue", "aten::kthvalue.values"}, lowerKthvalue);

// Picks, along dim, the element at the per-row position `pos` (i64, x's
// shape without dim) of the sorted values and indices.
std::pair<Value, Value> pickAt(Function& fn, const Sorted& s, int64_t dim, Value pos) {
  const std::vector<int64_t>& shape = s.values.dims();
  Value iota = fn.iota(TensorType(ElementType::kS64, shape), dim);
  Value at = fn.compare(iota, expandReduced(fn, pos, shape, {dim}), ComparisonDirection::kEq);
  Value values = s.values;
  if (values.dtype() == ElementType::kPred) values = fn.convert(values, ElementType::kU8);
  // Exactly one position matches, so a sum of the selected elements picks it
  // (NaN included).
  Value v = reduceSum(fn, fn.select(at, values, splatLike(fn, 0, values)), {dim});
  Value i = reduceSum(fn, fn.select(at, s.indices, splatLike(fn, 0, s.indices)), {dim});
  return {v, i};
}

// The lower median along dim: its value and index. With `ignoreNan` NaNs are
// skipped (nanmedian); otherwise a row with NaN gives its first NaN.
std::pair<Value, Value> medianAlong(Function& fn, Value x, int64_t dim, bool ignoreNan) {
  Sorted s = sortAlong(fn, x, dim, false);
  const int64_t n = x.dims()[dim];
  std::vector<int64_t> rowShape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != dim) rowShape.push_back(x.dims()[d]);
  }
  Value pos;
  if (!runtime::isFloating(x.dtype())) {
    pos = fn.constantInt((n - 1) / 2, ElementType::kS64, rowShape);
  } else {
    // NaNs sort last (stably), so the first NaN sits at n - nanCount.
    Value nanCount = reduceSum(fn, fn.convert(isNan(fn, x), ElementType::kS64), {dim});
    Value valid = fn.subtract(fn.constantInt(n, ElementType::kS64, rowShape), nanCount);
    Value one = fn.constantInt(1, ElementType::kS64, rowShape);
    Value two = fn.constantInt(2, ElementType::kS64, rowShape);
    if (ignoreNan) {
      // (valid - 1) / 2, and 0 (a NaN) when every value is NaN.
      pos = fn.divide(
          fn.maximum(fn.subtract(valid, one), fn.constantInt(0, ElementType::kS64, rowShape)), two);
    } else {
      Value lower = fn.constantInt((n - 1) / 2, ElementType::kS64, rowShape);
      Value hasNan = fn.compare(nanCount, fn.constantInt(0, ElementType::kS64, rowShape),
                                ComparisonDirection::kGt);
      pos = fn.select(hasNan, valid, lower);
    }
  }
  return pickAt(fn, s, dim, pos);
}

std::vector<Value> lowerMedianDim(LowerCtx& c, bool ignoreNan) {
  auto [x, dim] = prepare(c, c.tensor("self"));
  if (x.dims()[dim] == 0) c.fail("median of an empty dimension");
  auto [v, i] = medianAlong(c.fn, x, dim, ignoreNan);
  return {shaped(c, v, 0), shaped(c, i, 1)};
}

std::vector<Value> lowerMedianAll(LowerCtx& c, bool ignoreNan) {
  Value x = c.tensor("self");
  x = c.fn.reshape(x, {x.t().numElements()});
  if (x.dims()[0] == 0) {
    // PyTorch returns NaN for the median of nothing.
    if (!runtime::isFloating(c.result().dtype)) c.fail("median of an empty integer tensor");
    return {constantLike(c.fn, NAN, c.result().dtype, c.result().dims)};
  }
  return {shaped(c, medianAlong(c.fn, x, 0, ignoreNan).first, 0)};
}

const Registrar kMedianDim({"aten::median.dim", "aten::median.dim_values"},
                           [](LowerCtx& c) { return lowerMedianDim(c, false); });
const Registrar kNanmedianDim({"aten::nanmedian.dim", "aten::nanmedian.dim_values"},
                              [](LowerCtx& c) { return lowerMedianDim(c, true); });
const Registrar kMedian({"aten::median", "aten::median.out"},
                        [](LowerCtx& c) { return lowerMedianAll(c, false); });
const Registrar kNanmedian({"aten::nanmedian", "aten::nanmedian.out"},
                           [](LowerCtx& c) { return lowerMedianAll(c, true); });

}  // namespace
}  // namespace torchtpu::lower
