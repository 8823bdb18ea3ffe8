// searchsorted and bucketize (Tensor and Scalar values, .out variants): the
// insertion index of each value in the last dim of a sorted sequence, found by
// a binary search that takes the same steps as PyTorch's CPU kernel. Every
// value keeps a [lo, hi) range; each of the ceil(log2(k + 1)) unrolled steps
// gathers the boundary at mid = lo + (hi - lo) / 2 (through `sorter` when
// given) and moves lo past it when !(b >= v) (left) or !(b > v) (right), else
// hi to it. Memory is O(values + boundaries), work O(values * log k). Taking
// the same path as the CPU kernel gives its answer exactly, also for NaN: a
// NaN value goes after every boundary, and a NaN inside the sequence is met
// the same way. Out-of-range sorter entries are clamped (the CPU raises).
#include <algorithm>
#include <optional>
#include <string>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using hlo::BinaryOp;

// The flat positions of one index per value: `indices` of shape [r, n]
// (relative positions in each row) looked up in the flat 1-D `flat`.
Value gatherFlat(Function& fn, Value flat, Value indices) {
  hlo::GatherDims g;
  g.collapsedSliceDims = {0};
  g.startIndexMap = {0};
  g.indexVectorDim = indices.rank();
  return fn.gather(flat, indices, g, {1});
}

// The search itself. `seq` is [k] (shared by all values) or [B..., k] with
// `values` [B..., n]; `sorter` (optional) has seq's shape. Returns an integer
// tensor of values' shape.
Value binarySearch(Function& fn, Value seq, std::optional<Value> sorter, Value values, bool right) {
  const std::vector<int64_t> outDims = values.dims();
  const int64_t k = seq.dims().back();
  const int64_t seqSize = seq.t().numElements();
  const int64_t numValues = values.t().numElements();
  if (k == 0 || numValues == 0) return fn.constantInt(0, ElementType::kS64, outDims);

  // Values as [rows, n]: one row per sequence (a single row for a 1-D one).
  const int64_t rows = seq.rank() == 1 ? 1 : seqSize / k;
  const int64_t n = numValues / rows;
  values = fn.reshape(values, {rows, n});
  seq = fn.reshape(seq, {seqSize});
  const ElementType it = seqSize < (int64_t{1} << 30) ? ElementType::kS32 : ElementType::kS64;
  const std::vector<int64_t> dims = {rows, n};
  auto cst = [&](int64_t x) { return fn.constantInt(x, it, dims); };
  // Each row's start in the flat sequence (and sorter).
  std::optional<Value> rowStart;
  if (rows > 1) rowStart = fn.multiply(fn.iota(TensorType{it, dims}, 0), cst(k));
  auto flatPos = [&](Value rel) { return rowStart ? fn.add(*rowStart, rel) : rel; };
  std::optional<Value> order;
  if (sorter) order = castTo(fn, fn.reshape(*sorter, {seqSize}), it);

  Value lo = cst(0), hi = cst(k);
  const Value one = cst(1), last = cst(k - 1), zero = cst(0);
  int steps = 0;
  while ((int64_t{1} << steps) <= k) ++steps;  // floor(log2 k) + 1 = ceil(log2(k + 1))
  for (int s = 0; s < steps; ++s) {
    Value active = fn.compare(lo, hi, D::kLt);
    Value mid = fn.add(lo, fn.binary(BinaryOp::kShiftRightLogical, fn.subtract(hi, lo), one));
    Value at = fn.minimum(mid, last);  // mid == k only where the range is already empty
    if (order) at = fn.clamp(zero, gatherFlat(fn, *order, flatPos(at)), last);
    Value b = gatherFlat(fn, seq, flatPos(at));
    Value goRight = fn.unary(hlo::UnaryOp::kNot, fn.compare(b, values, right ? D::kGt : D::kGe));
    Value up = fn.binary(BinaryOp::kAnd, active, goRight);
    Value down = fn.binary(BinaryOp::kAnd, active, fn.unary(hlo::UnaryOp::kNot, goRight));
    lo = fn.select(up, fn.add(mid, one), lo);
    hi = fn.select(down, mid, hi);
  }
  return fn.reshape(lo, outDims);
}

// Shared by both ops: `values` is the Tensor or Scalar "self".
std::vector<Value> search(LowerCtx& c, Value seq, bool right, std::optional<Value> sorter) {
  const bool scalar = c.op().find(".Scalar") != std::string::npos;
  Value values = scalar ? c.scalar("self") : c.tensor("self");
  if (seq.rank() < 1) c.fail("boundaries must have at least one dim");
  if (seq.rank() > 1) {
    const std::vector<int64_t>& sd = seq.dims();
    const std::vector<int64_t>& vd = values.dims();
    if (seq.rank() != values.rank() || !std::equal(sd.begin(), sd.end() - 1, vd.begin()))
      c.fail("boundaries and values must have the same leading dims");
  }
  if (sorter && sorter->dims() != seq.dims()) c.fail("sorter must have the boundaries' shape");
  // PyTorch compares in the result type of (boundaries, values), a Scalar
  // taking part as a wrapped number.
  const ElementType t = resultType({{seq, false}, {values, scalar || c.isScalarArg("self")}});
  if (t == ElementType::kPred || runtime::isComplex(t)) c.fail("searchsorted of bool or complex");
  return {binarySearch(c.fn, castTo(c.fn, seq, t), sorter, castTo(c.fn, values, t), right)};
}

const Registrar kSearchsorted({"aten::searchsorted.Tensor", "aten::searchsorted.Tensor_out",
                               "aten::searchsorted.Scalar", "aten::searchsorted.Scalar_out"},
                              [](LowerCtx& c) {
                                bool right = c.b("right");
                                if (!c.isNone("side")) {
                                  const std::string side = c.str("side");
                                  if (side != "left" && side != "right")
                                    c.fail("side must be 'left' or 'right'");
                                  if (right && side != "right")
                                    c.fail("side and right are opposites");
                                  right = side == "right";
                                }
                                return search(c, c.tensor("sorted_sequence"), right,
                                              c.optTensor("sorter"));
                              });

const Registrar kBucketize({"aten::bucketize.Tensor", "aten::bucketize.Tensor_out",
                            "aten::bucketize.Scalar", "aten::bucketize.Scalar_out"},
                           [](LowerCtx& c) {
                             Value b = c.tensor("boundaries");
                             if (b.rank() != 1) c.fail("bucketize expects 1-D boundaries");
                             return search(c, b, c.b("right"), std::nullopt);
                           });

}  // namespace
}  // namespace torchtpu::lower
