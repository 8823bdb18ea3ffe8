// Elementwise ops that make or take apart complex values: conj_physical (the
// materialized conjugate; x.conj() itself is a lazy view the bridge resolves
// when an op reads it), complex and polar (complex values from two real
// parts), and angle (of real and complex tensors).
#include <numbers>

#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::UnaryOp;
using Dir = hlo::ComparisonDirection;

// conj_physical: (re, -im) for complex values, the values themselves otherwise.
std::vector<Value> lowerConjPhysical(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isComplex(x.dtype())) return {x};
  Value re = fn.unary(hlo::UnaryOp::kReal, x);
  Value im = fn.unary(hlo::UnaryOp::kImag, x);
  return {fn.binary(hlo::BinaryOp::kComplex, re, fn.negate(im))};
}
const Registrar kConjPhysical({"aten::conj_physical", "aten::conj_physical.out",
                               "aten::conj_physical_"},
                              lowerConjPhysical);

// angle of a real tensor: pi below 0, else 0; NaN stays NaN. Of a complex
// tensor: atan2(imag, real).
const Registrar kAngle({"aten::angle", "aten::angle.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  Value z = c.tensor("self");
  if (runtime::isComplex(z.dtype())) {
    return {fn.binary(hlo::BinaryOp::kAtan2, fn.unary(hlo::UnaryOp::kImag, z),
                      fn.unary(hlo::UnaryOp::kReal, z))};
  }
  Value x = ew::prepareArgs(c, {"self"}, ew::Promote::kIntToFloat)[0];
  Value r = fn.select(fn.compare(x, ew::splat(fn, 0, x), Dir::kLt),
                      ew::splat(fn, std::numbers::pi, x), ew::splat(fn, 0, x));
  return {fn.select(ew::isNan(fn, x), x, r)};
});

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

}  // namespace
}  // namespace torchtpu::lower
