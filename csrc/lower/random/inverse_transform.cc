// Random distributions sampled by inverse transform of uniform numbers:
// exponential_, cauchy_, log_normal_ and geometric_. The uniform numbers are
// drawn as the other random ops draw them (lower/random/random_bits.h: a
// ThreeFry stream keyed by a hash of the generator's {seed, offset};
// reproducible per seed, different from PyTorch's CPU generator).
#include <cmath>
#include <numbers>

#include "lower/core/common.h"
#include "lower/random/random_bits.h"

namespace torchtpu::lower {
namespace {

// A splat of v with x's type and shape.
Value ew1(Function& fn, double v, const Value& x) { return fn.constant(v, x.dtype(), x.dims()); }

// Uniform in (0, 1], in the compute type of the result.
Value uniformOpen0(LowerCtx& c, const TensorType& out) {
  Value u = uniform01(c, out.dtype, out.dims);
  return c.fn.subtract(ew1(c.fn, 1.0, u), u);
}

std::vector<Value> lowerExponential(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("exponential_ expects a floating-point tensor");
  Value u = uniformOpen0(c, out);
  return {fn.divide(fn.negate(fn.log(u)), ew1(fn, c.d("lambd"), u))};
}

std::vector<Value> lowerCauchy(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("cauchy_ expects a floating-point tensor");
  Value u = uniform01(c, out.dtype, out.dims);
  Value t = fn.unary(hlo::UnaryOp::kTan,
                     fn.multiply(ew1(fn, std::numbers::pi, u), fn.subtract(u, ew1(fn, 0.5, u))));
  return {fn.add(ew1(fn, c.d("median"), u), fn.multiply(ew1(fn, c.d("sigma"), u), t))};
}

std::vector<Value> lowerLogNormal(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("log_normal_ expects a floating-point tensor");
  // Box-Muller from two uniforms.
  Value u1 = uniformOpen0(c, out);
  Value u2 = uniform01(c, out.dtype, out.dims);
  Value z = fn.multiply(
      fn.sqrt(fn.multiply(ew1(fn, -2.0, u1), fn.log(u1))),
      fn.unary(hlo::UnaryOp::kCosine, fn.multiply(ew1(fn, 2.0 * std::numbers::pi, u2), u2)));
  return {fn.exp(fn.add(ew1(fn, c.d("mean"), z), fn.multiply(ew1(fn, c.d("std"), z), z)))};
}

std::vector<Value> lowerGeometric(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const double p = c.d("p");
  if (!(p > 0 && p < 1)) c.fail("geometric_ needs 0 < p < 1");
  Value u = uniformOpen0(c, TensorType(ElementType::kF32, out.dims));
  Value k = fn.unary(hlo::UnaryOp::kCeil, fn.divide(fn.log(u), ew1(fn, std::log1p(-p), u)));
  return {fn.maximum(k, ew1(fn, 1.0, k))};
}

const Registrar kExponential({"aten::exponential_", "aten::exponential", "aten::exponential.out"},
                             lowerExponential);
const Registrar kCauchy({"aten::cauchy_", "aten::cauchy", "aten::cauchy.out"}, lowerCauchy);
const Registrar kLogNormal({"aten::log_normal_", "aten::log_normal", "aten::log_normal.out"},
                           lowerLogNormal);
const Registrar kGeometric({"aten::geometric_", "aten::geometric", "aten::geometric.out"},
                           lowerGeometric);

}  // namespace
}  // namespace torchtpu::lower
