// Selection-like elementwise ops: clamp (NaN in the input or a bound gives
// NaN, then min(max(x, lo), hi) so lo > hi gives hi), where, masked_fill,
// fill and zero.
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using ew::operand;

// clamp(self, min?, max?) for Scalar? and Tensor? bounds; the result type is
// PyTorch's result_type of self and the present bounds.
std::vector<Value> lowerClamp(LowerCtx& c) {
  std::vector<Operand> ops = {operand(c, "self")};
  const bool hasMin = c.has("min") && !c.isNone("min");
  const bool hasMax = c.has("max") && !c.isNone("max");
  if (hasMin) ops.push_back(operand(c, "min"));
  if (hasMax) ops.push_back(operand(c, "max"));
  if (!hasMin && !hasMax) c.fail("clamp needs at least one of min and max");
  ew::Prepared p = ew::prepare(c.fn, ops);
  Value r = p.values[0];
  size_t k = 1;
  if (hasMin) r = ew::maxNan(c.fn, r, p.values[k++]);
  if (hasMax) r = ew::minNan(c.fn, r, p.values[k++]);
  return {r};
}
const Registrar kClamp({"aten::clamp", "aten::clamp.Tensor", "aten::clamp.out",
                        "aten::clamp.Tensor_out", "aten::clamp_", "aten::clamp_.Tensor",
                        "aten::clamp_min", "aten::clamp_min.Tensor", "aten::clamp_min.out",
                        "aten::clamp_min.Tensor_out", "aten::clamp_min_", "aten::clamp_min_.Tensor",
                        "aten::clamp_max", "aten::clamp_max.Tensor", "aten::clamp_max.out",
                        "aten::clamp_max.Tensor_out", "aten::clamp_max_",
                        "aten::clamp_max_.Tensor"},
                       lowerClamp);

Value truth(Function& fn, Value x) {
  if (x.dtype() == ElementType::kPred) return x;
  return fn.compare(x, ew::splat(fn, 0, x), hlo::ComparisonDirection::kNe);
}

// where(condition, self, other): self and other promote; all three broadcast.
std::vector<Value> lowerWhere(LowerCtx& c) {
  Value cond = c.tensor("condition");
  const Operand self = operand(c, "self"), other = operand(c, "other");
  if (runtime::isComplex(self.value.dtype()) || runtime::isComplex(other.value.dtype())) {
    const ElementType t = resultType({self, other});
    const std::vector<int64_t> dims =
        broadcastShapes({cond.dims(), self.value.dims(), other.value.dims()});
    return {c.fn.select(broadcastTo(c.fn, truth(c.fn, cond), dims), fit(c.fn, self.value, t, dims),
                        fit(c.fn, other.value, t, dims))};
  }
  ew::Prepared p = ew::prepare(c.fn, {operand(c, "self"), operand(c, "other")}, ew::Promote::kNone,
                               /*opmath=*/false);
  const std::vector<int64_t> dims = broadcastShapes({cond.dims(), p.dims});
  return {c.fn.select(broadcastTo(c.fn, truth(c.fn, cond), dims),
                      broadcastTo(c.fn, p.values[0], dims), broadcastTo(c.fn, p.values[1], dims))};
}
const Registrar kWhere({"aten::where.self", "aten::where.self_out", "aten::where.ScalarOther",
                        "aten::where.ScalarSelf", "aten::where.Scalar"},
                       lowerWhere);

// masked_fill(self, mask, value): value (Scalar or 0-d tensor) cast to self's type.
std::vector<Value> lowerMaskedFill(LowerCtx& c) {
  Value self = c.tensor("self");
  Value mask = c.tensor("mask");
  Value value = operand(c, "value").value;
  if (value.rank() != 0) c.fail("masked_fill needs a 0-d value tensor");
  const std::vector<int64_t> dims = broadcastShapes({self.dims(), mask.dims()});
  self = broadcastTo(c.fn, self, dims);
  return {
      c.fn.select(broadcastTo(c.fn, truth(c.fn, mask), dims), ew::like(c.fn, value, self), self)};
}
const Registrar kMaskedFill({"aten::masked_fill.Scalar", "aten::masked_fill.Tensor",
                             "aten::masked_fill.Scalar_out", "aten::masked_fill.Tensor_out",
                             "aten::masked_fill_.Scalar", "aten::masked_fill_.Tensor"},
                            lowerMaskedFill);

// fill(self, value): value broadcast to self's shape in the result type.
std::vector<Value> lowerFill(LowerCtx& c) {
  Value value = operand(c, "value").value;
  if (value.rank() != 0) c.fail("fill needs a 0-d value tensor");
  const TensorType& out = c.result();
  return {fit(c.fn, value, out.dtype, out.dims)};
}
const Registrar kFill({"aten::fill.Scalar", "aten::fill.Tensor", "aten::fill.Scalar_out",
                       "aten::fill.Tensor_out", "aten::fill_.Scalar", "aten::fill_.Tensor"},
                      lowerFill);

std::vector<Value> lowerZero(LowerCtx& c) {
  const TensorType& out = c.result();
  return {constantLike(c.fn, 0, out.dtype, out.dims)};
}
const Registrar kZero({"aten::zero", "aten::zero.out", "aten::zero_"}, lowerZero);

}  // namespace
}  // namespace torchtpu::lower
