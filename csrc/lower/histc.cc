// aten::histc: counts of the elements in `bins` equal-width bins between min
// and max (the data's own range when min == max). Bin edges are computed as
// PyTorch's linspace computes them, in the input's type, and an element falls
// in bin b when edge[b] <= x < edge[b+1] (the last bin also takes x == max):
// the bins PyTorch's CPU kernel finds, whose interpolated guess it corrects
// against the same edges. Elements outside [min, max] and NaNs are not counted.
#include <cmath>
#include <vector>

#include "lower/common.h"
#include "lower/lowering.h"
#include "lower/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::ComparisonDirection;

std::vector<Value> lowerHistc(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const ElementType t = out.dtype;
  // (Reduced-precision inputs keep PyTorch's CPU kernel: its bins for them
  // come from float edges we do not reproduce.)
  if (t != ElementType::kF32 && t != ElementType::kF64) c.fail("histc is lowered for f32/f64");
  const int64_t bins = c.i("bins");
  if (bins <= 0) c.fail("bins must be > 0");
  Value x = fn.reshape(castTo(fn, c.tensor("self"), t), {c.tensor("self").t().numElements()});
  const int64_t n = x.dims()[0];
  // min == max (the default 0, 0) means the data's own range.
  Value minV = castTo(fn, c.scalar("min"), t), maxV = castTo(fn, c.scalar("max"), t);
  if (n > 0) {
    Value useData = fn.compare(minV, maxV, ComparisonDirection::kEq);
    Value dataMin = fn.reduce(x, fn.constant(INFINITY, t), {0}, hlo::BinaryOp::kMinimum);
    Value dataMax = fn.reduce(x, fn.constant(-INFINITY, t), {0}, hlo::BinaryOp::kMaximum);
    minV = fn.select(useData, dataMin, minV);
    maxV = fn.select(useData, dataMax, maxV);
  }
  // A constant (or empty) input widens the range by one each way.
  Value same = fn.compare(minV, maxV, ComparisonDirection::kEq);
  Value one = fn.constant(1.0, t);
  minV = fn.select(same, fn.subtract(minV, one), minV);
  maxV = fn.select(same, fn.add(maxV, one), maxV);

  // linspace(min, max, bins + 1): the first half counts up from min, the
  // second half down from max, with step (max - min) / bins.
  const int64_t steps = bins + 1;
  const std::vector<int64_t> e = {steps};
  Value step = fn.divide(fn.subtract(maxV, minV), fn.constant(static_cast<double>(bins), t));
  Value idx = fn.iota(TensorType(t, e), 0);
  Value up =
      fn.add(fn.broadcastInDim(minV, e, {}), fn.multiply(fn.broadcastInDim(step, e, {}), idx));
  Value back = fn.subtract(fn.constant(static_cast<double>(steps - 1), t, e), idx);
  Value down = fn.subtract(fn.broadcastInDim(maxV, e, {}),
                           fn.multiply(fn.broadcastInDim(step, e, {}), back));
  Value firstHalf =
      fn.compare(fn.iota(TensorType(ElementType::kS64, e), 0),
                 fn.constantInt(steps / 2, ElementType::kS64, e), ComparisonDirection::kLt);
  Value edges = fn.select(firstHalf, up, down);

  if (n == 0) return {fn.constant(0, t, out.dims)};
  const std::vector<int64_t> nb = {n, bins};
  Value xb = fn.broadcastInDim(x, nb, {0});
  Value inRange =
      fn.binary(hlo::BinaryOp::kAnd,
                fn.compare(x, fn.broadcastInDim(minV, {n}, {}), ComparisonDirection::kGe),
                fn.compare(x, fn.broadcastInDim(maxV, {n}, {}), ComparisonDirection::kLe));
  // at[i, b]: x_i >= edge[b]; the count of x in bin b is
  // #(x >= edge[b]) - #(x >= edge[b+1]), with the last bin closed.
  Value lower = fn.broadcastInDim(fn.slice(edges, {0}, {bins}), nb, {1});
  Value at = fn.binary(hlo::BinaryOp::kAnd, fn.compare(xb, lower, ComparisonDirection::kGe),
                       fn.broadcastInDim(inRange, nb, {0}));
  Value cum = reduceSum(fn, castTo(fn, at, ElementType::kS64), {0});  // [bins]
  Value next =
      fn.concatenate({fn.slice(cum, {1}, {bins}), fn.constantInt(0, ElementType::kS64, {1})}, 0);
  return {castTo(fn, fn.subtract(cum, next), t)};
}

const Registrar kHistc({"aten::histc", "aten::histc.out"}, lowerHistc);

}  // namespace
}  // namespace torchtpu::lower
