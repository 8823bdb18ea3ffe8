// segment_reduce (sum, mean, max, min, prod over consecutive segments of one
// axis, given by lengths or offsets, optionally starting from `initial`) and
// its backward op. Segment bounds are runtime values, so each segment is a
// mask over the axis ([..., S, L, ...], from iota and compare) and the
// reductions are masked reductions; the backward op sends each segment's
// gradient to its elements (split among tied extrema for max/min when
// positive, through the product of the others for prod, as PyTorch's CPU
// kernel does).
#include <cmath>
#include <limits>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;

struct Segments {
  ElementType t = ElementType::kF32;  // the data's (floating) type
  int64_t axis = 0, s = 0, l = 0;
  std::vector<int64_t> full;     // [pre..., S, L, post...]
  std::vector<int64_t> outDims;  // [pre..., S, post...]
  Value mask;                    // full, i1
  Value length;                  // outDims, data type
  Value data;                    // data broadcast to full
  std::optional<Value> initial;  // 0-d, data type
  std::string reduce;
};

// The segments of segment_reduce's (or its backward op's) data.
Segments segments(LowerCtx& c) {
  Function& fn = c.fn;
  Value data = c.tensor("data");
  if (!runtime::isFloating(data.dtype())) c.fail("segment_reduce of a non-floating tensor");
  const ElementType t = data.dtype();
  Segments g;
  g.t = t;
  g.reduce = c.str("reduce");
  g.axis = normDim(c.i("axis"), data.rank());
  if (c.has("indices") && !c.isNone("indices")) c.fail("segment_reduce with indices");
  const int64_t a = g.axis;
  g.l = data.dims()[a];
  Value starts, ends;
  if (auto lengths = c.optTensor("lengths")) {
    Value len = castTo(fn, *lengths, ElementType::kS64);
    if (len.rank() != a + 1) c.fail("lengths must have axis + 1 dims");
    g.s = len.dims()[a];
    // Exclusive prefix sums along the last dim: starts[s] = sum_{s' < s} len[s'].
    std::vector<int64_t> sq = len.dims();
    sq.push_back(g.s);
    std::vector<int64_t> at;
    for (int64_t d = 0; d < a; ++d) at.push_back(d);
    at.push_back(a + 1);
    Value lb = fn.broadcastInDim(len, sq, at);
    Value before = fn.compare(fn.iota(TensorType(ElementType::kS64, sq), a + 1),
                              fn.iota(TensorType(ElementType::kS64, sq), a), D::kLt);
    starts = fn.reduce(fn.select(before, lb, fn.constantInt(0, ElementType::kS64, sq)),
                       fn.constantInt(0, ElementType::kS64), {a + 1}, B::kAdd);
    ends = fn.add(starts, len);
  } else if (auto offsets = c.optTensor("offsets")) {
    Value off = castTo(fn, *offsets, ElementType::kS64);
    if (off.rank() != a + 1 || off.dims()[a] < 1) c.fail("offsets must have axis + 1 dims");
    g.s = off.dims()[a] - 1;
    std::vector<int64_t> lo(a + 1, 0), hi = off.dims();
    hi[a] = g.s;
    starts = fn.slice(off, lo, hi);
    lo[a] = 1;
    hi[a] = g.s + 1;
    ends = fn.slice(off, lo, hi);
  } else {
    c.fail("segment_reduce needs lengths or offsets");
  }
  for (int64_t d = 0; d < a; ++d) {
    if (starts.dims()[d] != data.dims()[d]) c.fail("lengths/offsets do not match data");
  }
  g.full.assign(data.dims().begin(), data.dims().begin() + a);
  g.full.push_back(g.s);
  g.full.push_back(g.l);
  g.full.insert(g.full.end(), data.dims().begin() + a + 1, data.dims().end());
  g.outDims = g.full;
  g.outDims.erase(g.outDims.begin() + a + 1);
  std::vector<int64_t> segAt, dataAt, outAt;
  for (int64_t d = 0; d <= a; ++d) segAt.push_back(d);
  for (int64_t d = 0; d < data.rank(); ++d) dataAt.push_back(d < a ? d : d + 1);
  Value pos = fn.iota(TensorType(ElementType::kS64, g.full), a + 1);
  g.mask = fn.binary(B::kAnd, fn.compare(pos, fn.broadcastInDim(starts, g.full, segAt), D::kGe),
                     fn.compare(pos, fn.broadcastInDim(ends, g.full, segAt), D::kLt));
  g.length = fn.broadcastInDim(castTo(fn, fn.subtract(ends, starts), t), g.outDims, segAt);
  g.data = fn.broadcastInDim(castTo(fn, data, t), g.full, dataAt);
  if (c.has("initial") && !c.isNone("initial")) g.initial = castTo(fn, c.scalar("initial"), t);
  return g;
}

Value masked(Function& fn, const Segments& g, Value fill) {
  return fn.select(g.mask, g.data, fn.broadcastInDim(fill, g.full, {}));
}

// x of outDims broadcast over the segment's L dim.
Value overL(Function& fn, const Segments& g, Value x) {
  std::vector<int64_t> at;
  for (int64_t d = 0; d < static_cast<int64_t>(g.outDims.size()); ++d) {
    at.push_back(d <= g.axis ? d : d + 1);
  }
  return fn.broadcastInDim(x, g.full, at);
}

std::vector<Value> segmentReduce(LowerCtx& c) {
  Function& fn = c.fn;
  const Segments g = segments(c);
  const ElementType t = g.t;
  const int64_t l = g.axis + 1;  // the segments' L dim in g.full
  const double inf = std::numeric_limits<double>::infinity();
  auto init = [&](double dflt) { return g.initial ? *g.initial : fn.constant(dflt, t); };
  // PyTorch accumulates in the data's type, one element after another: for
  // bfloat16 / half sums and products the rounding of each step shows, so
  // short axes are accumulated step by step (long ones are left to the CPU).
  const bool reduced = t == ElementType::kBF16 || t == ElementType::kF16;
  if (reduced && g.reduce != "max" && g.reduce != "min") {
    if (g.l > 64) c.fail("long reduced-precision segments");
    const bool prod = g.reduce == "prod";
    Value acc = fn.broadcastInDim(init(prod ? 1 : 0), g.outDims, {});
    for (int64_t i = 0; i < g.l; ++i) {
      std::vector<int64_t> lo(g.full.size(), 0), hi = g.full;
      lo[l] = i;
      hi[l] = i + 1;
      Value x = fn.reshape(fn.slice(g.data, lo, hi), g.outDims);
      Value m = fn.reshape(fn.slice(g.mask, lo, hi), g.outDims);
      acc = fn.select(m, prod ? fn.multiply(acc, x) : fn.add(acc, x), acc);
    }
    if (g.reduce != "mean") return {acc};
    Value empty = fn.compare(g.length, fn.constant(0, t, g.outDims), D::kEq);
    return {fn.select(empty, fn.broadcastInDim(init(std::nan("")), g.outDims, {}),
                      fn.divide(acc, g.length))};
  }
  if (g.reduce == "sum" || g.reduce == "mean") {
    Value zero = fn.constant(0, t);
    Value s = fn.reduce(masked(fn, g, zero), zero, {l}, B::kAdd);
    if (g.initial) s = fn.add(s, fn.broadcastInDim(*g.initial, g.outDims, {}));
    if (g.reduce == "sum") return {s};
    Value empty = fn.compare(g.length, fn.constant(0, t, g.outDims), D::kEq);
    Value mean = fn.divide(s, g.length);
    return {fn.select(empty, fn.broadcastInDim(init(std::nan("")), g.outDims, {}), mean)};
  }
  if (g.reduce == "max" || g.reduce == "min") {
    const bool mx = g.reduce == "max";
    Value fill = fn.constant(mx ? -inf : inf, t);
    // NaN wins, as in PyTorch's kernel (stablehlo max/min propagate NaN).
    return {
        fn.reduce(masked(fn, g, fill), init(mx ? -inf : inf), {l}, mx ? B::kMaximum : B::kMinimum)};
  }
  if (g.reduce == "prod") {
    Value one = fn.constant(1, t);
    return {fn.reduce(masked(fn, g, one), init(1), {l}, B::kMultiply)};
  }
  c.fail("unknown reduce '" + g.reduce + "'");
}

std::vector<Value> segmentReduceBackward(LowerCtx& c) {
  Function& fn = c.fn;
  const Segments g = segments(c);
  const ElementType t = g.t;
  const int64_t l = g.axis + 1;  // the segments' L dim in g.full
  Value grad = castTo(fn, c.tensor("grad"), t);
  Value out = castTo(fn, c.tensor("output"), t);
  Value zerosF = fn.constant(0, t, g.full);
  Value zero = fn.constant(0, t);
  Value contrib;
  if (g.reduce == "sum") {
    contrib = overL(fn, g, grad);
  } else if (g.reduce == "mean") {
    contrib = overL(fn, g, fn.divide(grad, g.length));
  } else if (g.reduce == "max" || g.reduce == "min") {
    Value outL = overL(fn, g, out);
    Value hit = fn.binary(
        B::kAnd, g.mask,
        fn.binary(B::kOr, fn.compare(g.data, outL, D::kEq), fn.compare(g.data, g.data, D::kNe)));
    Value count = fn.reduce(fn.select(hit, fn.constant(1, t, g.full), zerosF), zero, {l}, B::kAdd);
    count = fn.maximum(count, fn.constant(1, t, g.outDims));
    // PyTorch's CPU kernel splits a positive gradient among tied extrema
    // and gives a negative one to each of them whole.
    Value pos = fn.compare(grad, fn.constant(0, t, g.outDims), D::kGt);
    Value share = fn.select(pos, fn.divide(grad, count), grad);
    contrib = fn.select(hit, overL(fn, g, share), zerosF);
  } else if (g.reduce == "prod") {
    Value nz = fn.compare(g.data, zerosF, D::kNe);
    Value inSeg = g.mask;
    Value one = fn.constant(1, t);
    Value nzProd =
        fn.reduce(fn.select(fn.binary(B::kAnd, inSeg, nz), g.data, fn.constant(1, t, g.full)), one,
                  {l}, B::kMultiply);
    if (g.initial) nzProd = fn.multiply(nzProd, fn.broadcastInDim(*g.initial, g.outDims, {}));
    Value zeroCount =
        fn.reduce(fn.select(fn.binary(B::kAnd, inSeg, fn.unary(hlo::UnaryOp::kNot, nz)),
                            fn.constant(1, t, g.full), zerosF),
                  zero, {l}, B::kAdd);
    Value lone = fn.compare(zeroCount, fn.constant(1, t, g.outDims), D::kEq);
    Value atZero = fn.select(lone, fn.multiply(grad, nzProd), fn.constant(0, t, g.outDims));
    Value safe = fn.select(nz, g.data, fn.constant(1, t, g.full));
    Value atNonzero = fn.divide(overL(fn, g, fn.multiply(grad, out)), safe);
    contrib = fn.select(nz, atNonzero, overL(fn, g, atZero));
  } else {
    c.fail("unknown reduce '" + g.reduce + "'");
  }
  contrib = fn.select(g.mask, contrib, zerosF);
  return {fn.reduce(contrib, zero, {g.axis}, B::kAdd)};
}

const Registrar kSegmentReduce({"aten::segment_reduce", "aten::segment_reduce.out"}, segmentReduce);
const Registrar kSegmentReduceBackward({"aten::_segment_reduce_backward",
                                        "aten::_segment_reduce_backward.out"},
                                       segmentReduceBackward);

}  // namespace
}  // namespace torchtpu::lower
