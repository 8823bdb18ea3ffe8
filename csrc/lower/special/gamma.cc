// The gamma family: lgamma (Lanczos, reflection below 1/2), digamma
// (recurrence + asymptotic series, reflection below 1/2), polygamma (trigamma
// as PyTorch computes it, higher orders through the Hurwitz zeta function)
// and special_zeta (Euler-Maclaurin), with their special_ aliases. Floating
// inputs compute in their opmath type; integers in float32.
#include <cmath>
#include <numbers>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::UnaryOp;
using Dir = hlo::ComparisonDirection;
constexpr double kPi = std::numbers::pi;

Value input(LowerCtx& c, const char* name) {
  Value x = ew::prepare(c.fn, {ew::operand(c, name)}, ew::Promote::kIntToFloat).values[0];
  if (!ew::isFloat(x.dtype())) c.fail("complex inputs are not lowered");
  return x;
}

Value k(Function& fn, double v, const Value& like) { return ew::splat(fn, v, like); }
Value cmp(Function& fn, Value a, Value b, Dir d) { return fn.compare(a, b, d); }
Value isInteger(Function& fn, Value x) {
  return cmp(fn, x, fn.unary(UnaryOp::kFloor, x), Dir::kEq);
}
// x minus the nearest integer, in [-1/2, 1/2]: sin(pi x) and tan(pi x) up to sign.
Value fracNearest(Function& fn, Value x) {
  return fn.subtract(x, fn.unary(UnaryOp::kRoundNearestEven, x));
}

// lgamma for x >= 1/2 (Lanczos, g = 7, 9 terms).
Value lgammaPositive(Function& fn, Value x) {
  static const double p[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                             771.32342877765313,   -176.61502916214059,   12.507343278686905,
                             -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  Value z = fn.subtract(x, k(fn, 1, x));
  Value a = k(fn, p[0], x);
  for (int i = 1; i < 9; ++i) a = fn.add(a, fn.divide(k(fn, p[i], x), fn.add(z, k(fn, i, x))));
  Value t = fn.add(z, k(fn, 7.5, x));
  Value r =
      fn.add(k(fn, 0.5 * std::log(2 * kPi), x), fn.multiply(fn.add(z, k(fn, 0.5, x)), fn.log(t)));
  return fn.add(fn.subtract(r, t), fn.log(a));
}

Value lgamma(Function& fn, Value x) {
  Value small = cmp(fn, x, k(fn, 0.5, x), Dir::kLt);
  Value z = fn.select(small, fn.subtract(k(fn, 1, x), x), x);
  Value base = lgammaPositive(fn, z);
  Value s = fn.abs(fn.unary(UnaryOp::kSine, fn.multiply(fracNearest(fn, x), k(fn, kPi, x))));
  Value refl = fn.subtract(fn.subtract(k(fn, std::log(kPi), x), fn.log(s)), base);
  Value r = fn.select(small, refl, base);
  // Poles at the non-positive integers; +-inf give +inf.
  Value pole = fn.binary(BinaryOp::kAnd, cmp(fn, x, k(fn, 0, x), Dir::kLe), isInteger(fn, x));
  Value inf = fn.compare(fn.abs(x), k(fn, INFINITY, x), Dir::kEq);
  r = fn.select(fn.binary(BinaryOp::kOr, pole, inf), k(fn, INFINITY, x), r);
  return fn.select(ew::isNan(fn, x), x, r);
}

// digamma for x >= 1/2: recurrence up to x + 8, then the asymptotic series.
Value digammaPositive(Function& fn, Value x) {
  Value acc = k(fn, 0, x);
  for (int i = 0; i < 8; ++i) acc = fn.add(acc, fn.divide(k(fn, 1, x), fn.add(x, k(fn, i, x))));
  Value y = fn.add(x, k(fn, 8, x));
  Value iy2 = fn.divide(k(fn, 1, x), fn.multiply(y, y));
  Value series = fn.multiply(
      iy2, ew::poly(fn, iy2, {-1.0 / 132, 1.0 / 240, -1.0 / 252, 1.0 / 120, -1.0 / 12}));
  Value r = fn.subtract(fn.log(y), fn.divide(k(fn, 0.5, x), y));
  return fn.subtract(fn.add(r, series), acc);
}

Value digamma(Function& fn, Value x) {
  Value small = cmp(fn, x, k(fn, 0.5, x), Dir::kLt);
  Value z = fn.select(small, fn.subtract(k(fn, 1, x), x), x);
  Value base = digammaPositive(fn, z);
  Value t = fn.unary(UnaryOp::kTan, fn.multiply(fracNearest(fn, x), k(fn, kPi, x)));
  Value refl = fn.subtract(base, fn.divide(k(fn, kPi, x), t));
  Value r = fn.select(small, refl, base);
  // PyTorch: -inf at 0 (copysign(inf, -x)), NaN at the negative integers.
  Value zero = cmp(fn, x, k(fn, 0, x), Dir::kEq);
  Value negInt = fn.binary(BinaryOp::kAnd, cmp(fn, x, k(fn, 0, x), Dir::kLt), isInteger(fn, x));
  r = fn.select(negInt, k(fn, NAN, x), r);
  r = fn.select(zero, fn.negate(ew::copysign(fn, k(fn, INFINITY, x), x)), r);
  r = fn.select(cmp(fn, x, k(fn, INFINITY, x), Dir::kEq), x, r);
  return fn.select(ew::isNan(fn, x), x, r);
}

// trigamma, as PyTorch's CPU kernel computes it.
Value trigamma(Function& fn, Value x) {
  Value small = cmp(fn, x, k(fn, 0.5, x), Dir::kLt);
  Value s = fn.unary(UnaryOp::kSine, fn.multiply(x, k(fn, kPi, x)));
  Value refl = fn.negate(fn.divide(k(fn, kPi * kPi, x), fn.multiply(s, s)));
  Value result = fn.select(small, refl, k(fn, 0, x));
  Value sign = fn.select(small, k(fn, -1, x), k(fn, 1, x));
  Value y = fn.select(small, fn.subtract(k(fn, 1, x), x), x);
  for (int i = 0; i < 6; ++i) {
    result = fn.add(result, fn.divide(k(fn, 1, x), fn.multiply(y, y)));
    y = fn.add(y, k(fn, 1, x));
  }
  Value ixx = fn.divide(k(fn, 1, x), fn.multiply(y, y));
  Value inner = fn.subtract(k(fn, 1.0 / 30, x), fn.multiply(ixx, k(fn, 1.0 / 42, x)));
  inner = fn.subtract(k(fn, 1.0 / 6, x), fn.multiply(ixx, inner));
  Value tail = fn.add(fn.add(k(fn, 1, x), fn.divide(k(fn, 1, x), fn.multiply(k(fn, 2, x), y))),
                      fn.multiply(ixx, inner));
  result = fn.add(result, fn.divide(tail, y));
  return fn.multiply(sign, result);
}

// Hurwitz zeta(s, q) by Euler-Maclaurin summation (N = 40 terms, 6 corrections),
// with Cephes' domain rules: inf at s == 1, NaN for s < 1, inf at q a
// non-positive integer, NaN for q <= 0 and s not an integer.
Value zeta(Function& fn, Value s, Value q) {
  constexpr int kN = 40;  // also covers q down to about -30
  Value sum = k(fn, 0, q);
  for (int i = 0; i < kN; ++i) {
    sum = fn.add(sum, ew::pow(fn, fn.add(q, k(fn, i, q)), fn.negate(s)));
  }
  Value a = fn.add(q, k(fn, kN, q));
  Value aS = ew::pow(fn, a, fn.negate(s));  // a^-s
  sum = fn.add(sum, fn.divide(fn.multiply(aS, a), fn.subtract(s, k(fn, 1, s))));
  sum = fn.add(sum, fn.multiply(k(fn, 0.5, q), aS));
  static const double coef[] = {1.0 / 12,       -1.0 / 720,     1.0 / 30240,
                                -1.0 / 1209600, 1.0 / 47900160, -691.0 / 1307674368000};
  Value fac = s;                // s (s+1) ... (s+2j-2)
  Value pw = fn.divide(aS, a);  // a^(-s-1)
  Value ia2 = fn.divide(k(fn, 1, a), fn.multiply(a, a));
  for (int j = 0; j < 6; ++j) {
    sum = fn.add(sum, fn.multiply(k(fn, coef[j], q), fn.multiply(fac, pw)));
    fac = fn.multiply(fac,
                      fn.multiply(fn.add(s, k(fn, 2 * j + 1, s)), fn.add(s, k(fn, 2 * j + 2, s))));
    pw = fn.multiply(pw, ia2);
  }
  Value r = sum;
  Value qNonPos = cmp(fn, q, k(fn, 0, q), Dir::kLe);
  r = fn.select(fn.binary(BinaryOp::kAnd, qNonPos, fn.unary(UnaryOp::kNot, isInteger(fn, s))),
                k(fn, NAN, q), r);
  r = fn.select(fn.binary(BinaryOp::kAnd, qNonPos, isInteger(fn, q)), k(fn, INFINITY, q), r);
  r = fn.select(cmp(fn, s, k(fn, 1, s), Dir::kLt), k(fn, NAN, q), r);
  return fn.select(cmp(fn, s, k(fn, 1, s), Dir::kEq), k(fn, INFINITY, q), r);
}

Value polygamma(Function& fn, int64_t n, Value x) {
  if (n == 0) return digamma(fn, x);
  if (n == 1) return trigamma(fn, x);
  const double factorial = std::exp(std::lgamma(static_cast<double>(n) + 1.0));
  Value z = zeta(fn, k(fn, static_cast<double>(n + 1), x), x);
  return fn.multiply(k(fn, (n % 2 ? 1.0 : -1.0) * factorial, x), z);
}

const Registrar kLgamma({"aten::lgamma", "aten::lgamma.out", "aten::lgamma_",
                         "aten::special_gammaln", "aten::special_gammaln.out"},
                        [](LowerCtx& c) -> std::vector<Value> {
                          return {lgamma(c.fn, input(c, "self"))};
                        });
const Registrar kDigamma({"aten::digamma", "aten::digamma.out", "aten::digamma_",
                          "aten::special_digamma", "aten::special_digamma.out", "aten::special_psi",
                          "aten::special_psi.out"},
                         [](LowerCtx& c) -> std::vector<Value> {
                           return {digamma(c.fn, input(c, "self"))};
                         });
const Registrar kPolygamma({"aten::polygamma", "aten::polygamma.out", "aten::polygamma_",
                            "aten::special_polygamma", "aten::special_polygamma.out"},
                           [](LowerCtx& c) -> std::vector<Value> {
                             const int64_t n = c.i("n");
                             if (n < 0) c.fail("polygamma needs n >= 0");
                             return {polygamma(c.fn, n, input(c, "self"))};
                           });
const Registrar kZeta({"aten::special_zeta", "aten::special_zeta.out",
                       "aten::special_zeta.self_scalar", "aten::special_zeta.other_scalar",
                       "aten::special_zeta.self_scalar_out", "aten::special_zeta.other_scalar_out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        ew::Prepared p =
                            ew::prepare(c.fn, {ew::operand(c, "self"), ew::operand(c, "other")},
                                        ew::Promote::kIntToFloat);
                        if (!ew::isFloat(p.compute)) c.fail("complex inputs are not lowered");
                        return {zeta(c.fn, p.values[0], p.values[1])};
                      });

}  // namespace
}  // namespace torchtpu::lower
