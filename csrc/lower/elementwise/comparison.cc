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

const Registrar kEq({"aten::eq.Tensor", "aten::eq.Scalar", "aten::eq.Tensor_out",
                     "aten::eq.Scalar_out", "aten::eq_.Tensor", "aten::eq_.Scalar"},
                    lowerCompare<Dir::kEq>);
const Registrar kNe({"aten::ne.Tensor", "aten::ne.Scalar", "aten::ne.Tensor_out",
                     "aten::ne.Scalar_out", "aten::ne_.Tensor", "aten::ne_.Scalar"},
                    lowerCompare<Dir::kNe>);
const Registrar kLt({"aten::lt.Tensor", "aten::lt.Scalar", "aten::lt.Tensor_out",
                     "aten::lt.Scalar_out", "aten::lt_.Tensor", "aten::lt_.Scalar"},
                    lowerCompare<Dir::kLt>);
const Registrar kLe({"aten::le.Tensor", "aten::le.Scalar", "aten::le.Tensor_out",
                     "aten::le.Scalar_out", "aten::le_.Tensor", "aten::le_.Scalar"},
                    lowerCompare<Dir::kLe>);
const Registrar kGt({"aten::gt.Tensor", "aten::gt.Scalar", "aten::gt.Tensor_out",
                     "aten::gt.Scalar_out", "aten::gt_.Tensor", "aten::gt_.Scalar"},
                    lowerCompare<Dir::kGt>);
const Registrar kGe({"aten::ge.Tensor", "aten::ge.Scalar", "aten::ge.Tensor_out",
                     "aten::ge.Scalar_out", "aten::ge_.Tensor", "aten::ge_.Scalar"},
                    lowerCompare<Dir::kGe>);

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
