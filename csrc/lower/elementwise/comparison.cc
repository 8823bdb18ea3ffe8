// Comparisons. eq / ne / lt / le / gt / ge: operands promote to their common
// type (PyTorch's result_type, Python scalars included) and broadcast; the
// result is bool (the bridge casts it for in-place and out= forms). Float
// comparisons are IEEE: NaN compares unequal to everything. Also isclose, and
// isin (each element compared with every test element).
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::UnaryOp;
using Dir = hlo::ComparisonDirection;

template <Dir D>
std::vector<Value> lowerCompare(LowerCtx& c) {
  const Operand a = ew::operand(c, "self"), b = ew::operand(c, "other");
  if ((D == Dir::kEq || D == Dir::kNe) &&
      (runtime::isComplex(a.value.dtype()) || runtime::isComplex(b.value.dtype()))) {
    // Complex equality: both parts equal.
    const ElementType t = resultType({a, b});
    const std::vector<int64_t> dims = broadcastShapes({a.value.dims(), b.value.dims()});
    return {c.fn.compare(fit(c.fn, a.value, t, dims), fit(c.fn, b.value, t, dims), D)};
  }
  // No opmath here: compare in the common type itself.
  ew::Prepared p = ew::prepare(c.fn, {ew::operand(c, "self"), ew::operand(c, "other")},
                               ew::Promote::kNone, /*opmath=*/false);
  return {c.fn.compare(p.values[0], p.values[1], D)};
}

#define TORCHTPU_COMPARE(NAME, DIR)                                                         \
  const Registrar k_##NAME(                                                                 \
      {"aten::" #NAME ".Tensor", "aten::" #NAME ".Scalar", "aten::" #NAME ".Tensor_out",    \
       "aten::" #NAME ".Scalar_out", "aten::" #NAME "_.Tensor", "aten::" #NAME "_.Scalar"}, \
      lowerCompare<DIR>);
TORCHTPU_COMPARE(eq, Dir::kEq)
TORCHTPU_COMPARE(ne, Dir::kNe)
TORCHTPU_COMPARE(lt, Dir::kLt)
TORCHTPU_COMPARE(le, Dir::kLe)
TORCHTPU_COMPARE(gt, Dir::kGt)
TORCHTPU_COMPARE(ge, Dir::kGe)
#undef TORCHTPU_COMPARE

// isclose (CompositeImplicitAutograd in PyTorch; registered in case it arrives):
// |a - b| <= atol + rtol * |b|, exact equality (infinities), optional NaN == NaN.
const Registrar kIsClose({"aten::isclose"}, [](LowerCtx& c) -> std::vector<Value> {
  ew::Prepared p = ew::prepare(c.fn, {ew::operand(c, "self"), ew::operand(c, "other")});
  Value a = p.values[0], b = p.values[1];
  Value eq = c.fn.compare(a, b, Dir::kEq);
  if (!ew::isFloat(p.compute)) return {eq};
  Value tol = c.fn.add(ew::splat(c.fn, c.d("atol"), a),
                       c.fn.multiply(ew::splat(c.fn, c.d("rtol"), a), c.fn.abs(b)));
  Value close = c.fn.compare(c.fn.abs(c.fn.subtract(a, b)), tol, Dir::kLe);
  Value r = c.fn.binary(hlo::BinaryOp::kOr, eq, close);
  if (c.b("equal_nan")) {
    r = c.fn.binary(hlo::BinaryOp::kOr, r,
                    c.fn.binary(hlo::BinaryOp::kAnd, ew::isNan(c.fn, a), ew::isNan(c.fn, b)));
  }
  return {r};
});

std::vector<Value> lowerIsin(LowerCtx& c) {
  Function& fn = c.fn;
  const bool scalarTest = c.op().find("Tensor_Scalar") != std::string::npos;
  if (c.op().find("Scalar_Tensor") != std::string::npos) c.fail("isin of a scalar is not lowered");
  Value e = c.tensor("elements");
  Value t = scalarTest ? c.scalar("test_element") : c.tensor("test_elements");
  const ElementType ct = promoteTypes(e.dtype(), t.dtype());
  e = castTo(fn, e, ct);
  t = castTo(fn, t, ct);
  const int64_t k = e.t().numElements(), m = t.t().numElements();
  Value found;
  if (m == 0 || k == 0) {
    found = fn.constantInt(0, ElementType::kPred, e.dims());
  } else {
    Value ev = fn.broadcastInDim(fn.reshape(e, {k}), {k, m}, {0});
    Value tv = fn.broadcastInDim(fn.reshape(t, {m}), {k, m}, {1});
    Value eq = fn.compare(ev, tv, Dir::kEq);
    found = fn.reshape(fn.reduce(eq, fn.constantInt(0, ElementType::kPred), {1}, BinaryOp::kOr),
                       e.dims());
  }
  if (c.b("invert")) found = fn.unary(UnaryOp::kNot, found);
  return {found};
}
const Registrar kIsin({"aten::isin.Tensor_Tensor", "aten::isin.Tensor_Tensor_out",
                       "aten::isin.Tensor_Scalar", "aten::isin.Tensor_Scalar_out",
                       "aten::isin.Scalar_Tensor", "aten::isin.Scalar_Tensor_out"},
                      lowerIsin);

}  // namespace
}  // namespace torchtpu::lower
