// aten::histc: counts of the elements in `bins` equal-width bins between min
// and max (the data's own range when min == max, widened by one each way when
// that range is a single point). As PyTorch's CPU kernel does, an element x of
// [min, max] falls in bin trunc((x - min) * bins / (max - min)) computed in the
// input's type (x == max in the last bin), and elements outside [min, max] and
// NaNs are not counted. The bins are filled by one scatter-add of the
// elements' bin numbers: memory linear in the input and the bins.
#include <cmath>
#include <vector>

#include "lower/core/common.h"
#include "lower/core/lowering.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
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
  if (n == 0) return {fn.constant(0, t, out.dims)};
  // min == max (the default 0, 0) means the data's own range.
  Value minV = castTo(fn, c.scalar("min"), t), maxV = castTo(fn, c.scalar("max"), t);
  Value useData = fn.compare(minV, maxV, ComparisonDirection::kEq);
  Value dataMin = fn.reduce(x, fn.constant(INFINITY, t), {0}, BinaryOp::kMinimum);
  Value dataMax = fn.reduce(x, fn.constant(-INFINITY, t), {0}, BinaryOp::kMaximum);
  minV = fn.select(useData, dataMin, minV);
  maxV = fn.select(useData, dataMax, maxV);
  // A single-point range is widened by one each way.
  Value same = fn.compare(minV, maxV, ComparisonDirection::kEq);
  Value one = fn.constant(1.0, t);
  minV = fn.select(same, fn.subtract(minV, one), minV);
  maxV = fn.select(same, fn.add(maxV, one), maxV);
  const ElementType s64 = ElementType::kS64;
  Value lo = fn.broadcastInDim(minV, {n}, {});
  Value inRange =
      fn.binary(BinaryOp::kAnd, fn.compare(x, lo, ComparisonDirection::kGe),
                fn.compare(x, fn.broadcastInDim(maxV, {n}, {}), ComparisonDirection::kLe));
  // The width is divided by as an opaque [n] array: XLA turns a division by a
  // broadcast scalar into a multiplication by its rounded reciprocal (and
  // folds that into the multiplication by bins), which moves elements next
  // to a bin boundary.
  Value width = fn.optimizationBarrier({fn.broadcastInDim(fn.subtract(maxV, minV), {n}, {})})[0];
  Value scaled = fn.multiply(fn.subtract(x, lo), fn.constant(static_cast<double>(bins), t, {n}));
  Value pos = castTo(fn, fn.divide(scaled, width), s64);
  Value last = fn.constantInt(bins - 1, s64, {n});
  pos = fn.select(fn.compare(pos, fn.constantInt(bins, s64, {n}), ComparisonDirection::kEq), last,
                  pos);
  // Elements not counted go to an extra bin `bins`, dropped at the end.
  Value counted =
      fn.binary(BinaryOp::kAnd, inRange,
                fn.binary(BinaryOp::kAnd,
                          fn.compare(pos, fn.constantInt(0, s64, {n}), ComparisonDirection::kGe),
                          fn.compare(pos, last, ComparisonDirection::kLe)));
  pos = fn.select(counted, pos, fn.constantInt(bins, s64, {n}));
  hlo::ScatterDims sd;
  sd.insertedWindowDims = {0};
  sd.scatterDimsToOperandDims = {0};
  sd.indexVectorDim = 1;
  auto add = [](Function& r, const std::vector<Value>& v) {
    return std::vector<Value>{r.add(v[0], v[1])};
  };
  Value counts = fn.scatter({fn.constantInt(0, s64, {bins + 1})}, fn.reshape(pos, {n, 1}),
                            {fn.constantInt(1, s64, {n})}, sd, add)[0];
  return {castTo(fn, fn.slice(counts, {0}, {bins}), t)};
}

const Registrar kHistc({"aten::histc", "aten::histc.out"}, lowerHistc);

}  // namespace
}  // namespace torchtpu::lower
