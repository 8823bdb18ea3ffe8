#include "lower/special/util.h"

#include <cmath>

#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower::special {

using hlo::BinaryOp;
using Dir = hlo::ComparisonDirection;
constexpr double kInf = INFINITY;

Value k(Function& fn, double v, const Value& like) { return ew::splat(fn, v, like); }
Value cmpK(Function& fn, const Value& a, double v, Dir d) { return fn.compare(a, k(fn, v, a), d); }
Value lor(Function& fn, Value a, Value b) { return fn.binary(BinaryOp::kOr, a, b); }
Value affine(Function& fn, const Value& x, double m, double b) {
  return fn.add(fn.multiply(x, k(fn, m, x)), k(fn, b, x));
}
Value inverse(Function& fn, const Value& x, double m, double b) {
  return fn.add(fn.divide(k(fn, m, x), x), k(fn, b, x));
}
Value isInf(Function& fn, const Value& x) { return cmpK(fn, fn.abs(x), kInf, Dir::kEq); }

Value cheb(Function& fn, const Value& t, const std::vector<double>& c) {
  Value t2 = fn.add(t, t);
  Value b1 = k(fn, 0, t), b2 = k(fn, 0, t);
  for (size_t i = c.size() - 1; i >= 1; --i) {
    Value b0 = fn.add(fn.subtract(fn.multiply(t2, b1), b2), k(fn, c[i], t));
    b2 = b1;
    b1 = b0;
  }
  return fn.add(fn.subtract(fn.multiply(t, b1), b2), k(fn, c[0], t));
}

Value input(LowerCtx& c) {
  const char* name = c.has("self") ? "self" : "x";  // airy_ai, scaled K, spherical j0: x
  Value x = ew::prepare(c.fn, {ew::operand(c, name)}, ew::Promote::kIntToFloat).values[0];
  if (x.dtype() != ElementType::kF32) {
    c.fail(c.op() + " is lowered for float32 (and bf16/f16/integer inputs) only");
  }
  return x;
}

LowerFn unaryOp(Kernel kernel) {
  return [kernel](LowerCtx& c) -> std::vector<Value> { return {kernel(c.fn, input(c))}; };
}

}  // namespace torchtpu::lower::special
