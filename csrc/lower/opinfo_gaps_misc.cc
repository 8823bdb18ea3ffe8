// More ops the OpInfo sweep found on the CPU fallback: isin, renorm, complex
// and polar (build complex values), nextafter and frexp (bit manipulation of
// float32 / float64 / bfloat16 / float16).
#include <cmath>
#include <string>

#include "hlo/comparison.h"
#include "lower/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::UnaryOp;
using Dir = hlo::ComparisonDirection;

// ---- isin ---------------------------------------------------------------------------------

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

// ---- renorm -------------------------------------------------------------------------------

// Each slice along dim whose p-norm exceeds maxnorm is scaled to maxnorm
// (p and maxnorm are run-time scalars; p = inf takes the largest magnitude).
std::vector<Value> lowerRenorm(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = ew::prepare(fn, {ew::operand(c, "self")}).values[0];
  if (!ew::isFloat(x.dtype())) c.fail("renorm expects a floating-point tensor");
  const int64_t dim = normDim(c.i("dim"), x.rank());
  std::vector<int64_t> others;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != dim) others.push_back(d);
  }
  Value a = fn.abs(x);
  Value pa = ew::like(fn, c.scalar("p"), a);
  Value sum = fn.reduce(ew::pow(fn, a, pa), fn.constant(0, x.dtype()), others, BinaryOp::kAdd);
  Value p = ew::like(fn, c.scalar("p"), sum);
  Value norm = ew::pow(fn, sum, fn.divide(ew::splat(fn, 1, p), p));
  Value maxAbs = fn.reduce(a, fn.constant(0, x.dtype()), others, BinaryOp::kMaximum);
  Value isInf = fn.compare(p, ew::splat(fn, INFINITY, p), Dir::kEq);
  norm = fn.select(isInf, maxAbs, norm);
  Value maxnorm = ew::like(fn, c.scalar("maxnorm"), norm);
  Value big = fn.compare(norm, maxnorm, Dir::kGt);
  Value factor = fn.select(big, fn.divide(maxnorm, fn.add(norm, ew::splat(fn, 1e-7, norm))),
                           ew::splat(fn, 1, norm));
  return {fn.multiply(x, fn.broadcastInDim(factor, x.dims(), {dim}))};
}
const Registrar kRenorm({"aten::renorm", "aten::renorm.out", "aten::renorm_"}, lowerRenorm);

// ---- complex / polar ------------------------------------------------------------------------

std::vector<Value> lowerComplex(LowerCtx& c, bool polar) {
  Function& fn = c.fn;
  ew::Prepared p = ew::prepare(
      fn, {ew::operand(c, polar ? "abs" : "real"), ew::operand(c, polar ? "angle" : "imag")},
      ew::Promote::kNone, /*opmath=*/false);
  Value a = p.values[0], b = p.values[1];
  if (a.dtype() != ElementType::kF32 && a.dtype() != ElementType::kF64) {
    c.fail("complex parts must be float32 or float64");
  }
  if (polar) {
    Value re = fn.multiply(a, fn.unary(UnaryOp::kCosine, b));
    Value im = fn.multiply(a, fn.unary(UnaryOp::kSine, b));
    a = re;
    b = im;
  }
  return {fn.binary(BinaryOp::kComplex, a, b)};
}
const Registrar kComplex({"aten::complex", "aten::complex.out"},
                         [](LowerCtx& c) { return lowerComplex(c, false); });
const Registrar kPolar({"aten::polar", "aten::polar.out"},
                       [](LowerCtx& c) { return lowerComplex(c, true); });

// ---- nextafter / frexp ----------------------------------------------------------------------

ElementType bitsType(ElementType t) {
  switch (t) {
    case ElementType::kF64:
      return ElementType::kS64;
    case ElementType::kF32:
      return ElementType::kS32;
    default:
      return ElementType::kS16;  // f16, bf16
  }
}

std::vector<Value> lowerNextafter(LowerCtx& c) {
  Function& fn = c.fn;
  ew::Prepared p = ew::prepare(fn, {ew::operand(c, "self"), ew::operand(c, "other")},
                               ew::Promote::kNone, /*opmath=*/false);
  Value x = p.values[0], y = p.values[1];
  if (!ew::isFloat(x.dtype())) c.fail("nextafter expects floating-point tensors");
  const ElementType bt = bitsType(x.dtype());
  Value bits = fn.bitcastConvert(x, bt);
  Value zero = ew::splat(fn, 0, x);
  Value up = fn.compare(fn.compare(y, x, Dir::kGt), fn.compare(x, zero, Dir::kGt), Dir::kEq);
  Value one = fn.constantInt(1, bt, x.dims());
  Value stepped =
      fn.bitcastConvert(fn.select(up, fn.add(bits, one), fn.subtract(bits, one)), x.dtype());
  // From zero: the smallest subnormal with y's sign.
  Value tiny = ew::copysign(fn, fn.bitcastConvert(one, x.dtype()), y);
  Value r = fn.select(fn.compare(x, zero, Dir::kEq), tiny, stepped);
  r = fn.select(fn.compare(x, y, Dir::kEq), y, r);
  Value nan = fn.binary(BinaryOp::kOr, ew::isNan(fn, x), ew::isNan(fn, y));
  return {fn.select(nan, fn.add(x, y), r)};
}
const Registrar kNextafter({"aten::nextafter", "aten::nextafter.out", "aten::nextafter_"},
                           lowerNextafter);

// frexp (float32 / float64): x = m * 2^e with 0.5 <= |m| < 1; (x, 0) for 0, inf, NaN.
std::vector<Value> lowerFrexp(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const ElementType t = x.dtype();
  if (t != ElementType::kF32 && t != ElementType::kF64) c.fail("frexp: float32/float64 only");
  const bool wide = t == ElementType::kF64;
  const ElementType bt = wide ? ElementType::kS64 : ElementType::kS32;
  const int mant = wide ? 52 : 23;
  const int64_t bias = wide ? 1022 : 126;
  const int64_t expMask = wide ? 0x7ff : 0xff;
  const int sub = wide ? 54 : 25;  // scales subnormals into the normal range
  Value zero = ew::splat(fn, 0, x);
  Value isSub = fn.compare(
      fn.abs(x), ew::splat(fn, wide ? 2.2250738585072014e-308 : 1.17549435e-38f, x), Dir::kLt);
  Value scaled = fn.select(isSub, fn.multiply(x, ew::splat(fn, std::ldexp(1.0, sub), x)), x);
  Value bits = fn.bitcastConvert(scaled, bt);
  auto k = [&](int64_t v) { return fn.constantInt(v, bt, x.dims()); };
  Value e = fn.subtract(
      fn.binary(BinaryOp::kAnd, fn.binary(BinaryOp::kShiftRightLogical, bits, k(mant)), k(expMask)),
      k(bias));
  e = fn.select(isSub, fn.subtract(e, k(sub)), e);
  Value keep = fn.binary(BinaryOp::kOr, fn.binary(BinaryOp::kShiftLeft, k(1), k(wide ? 63 : 31)),
                         fn.subtract(fn.binary(BinaryOp::kShiftLeft, k(1), k(mant)), k(1)));
  Value mbits = fn.binary(BinaryOp::kOr, fn.binary(BinaryOp::kAnd, bits, keep),
                          fn.binary(BinaryOp::kShiftLeft, k(bias), k(mant)));
  Value m = fn.bitcastConvert(mbits, t);
  Value special = fn.binary(BinaryOp::kOr, fn.compare(x, zero, Dir::kEq),
                            fn.unary(UnaryOp::kNot, fn.unary(UnaryOp::kIsFinite, x)));
  m = fn.select(special, x, m);
  e = fn.select(special, k(0), e);
  return {m, castTo(fn, e, ElementType::kS32)};
}
const Registrar kFrexp({"aten::frexp.Tensor", "aten::frexp.Tensor_out"}, lowerFrexp);

}  // namespace
}  // namespace torchtpu::lower
