// The regularized incomplete gamma functions igamma (P(a, x)) and igammac
// (Q(a, x)): the power series of P or the continued fraction of Q in a while
// loop, Temme's asymptotic expansion for large a. float32 only (integers
// promote to it).
#include <cmath>
#include <numbers>
#include <vector>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"
#include "lower/special/util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using Dir = hlo::ComparisonDirection;
using special::cmpK;
using special::isInf;
using special::k;
using special::lor;
constexpr double kPi = std::numbers::pi;
constexpr double kInf = INFINITY;

// 1/(12w) - 1/(360w^3) + ...: lgamma(w) minus Stirling's leading terms.
Value stirlingCorrection(Function& fn, const Value& w) {
  Value iw = fn.divide(k(fn, 1, w), w);
  Value iw2 = fn.multiply(iw, iw);
  return fn.multiply(iw, ew::poly(fn, iw2, {-1.0 / 1680, 1.0 / 1260, -1.0 / 360, 1.0 / 12}));
}
// log(x^a e^-x / Gamma(a + 1)) for a, x > 0. Up to a = 10: lgamma(a + 1) by
// Stirling's series at a + 9 and the recurrence; above, the form
// a (log1p(d) - d) - log(2 pi a)/2 - correction(a), d = (x - a)/a, which has
// no cancellation when x is near a.
Value logPrefactor(Function& fn, const Value& a, const Value& x) {
  Value z = fn.add(a, k(fn, 1, a));
  Value prod = z;
  for (int i = 1; i < 8; ++i) prod = fn.multiply(prod, fn.add(z, k(fn, i, z)));
  Value w = fn.add(z, k(fn, 8, z));
  Value lgw = fn.add(fn.subtract(fn.multiply(fn.subtract(w, k(fn, 0.5, w)), fn.log(w)), w),
                     fn.add(k(fn, 0.5 * std::log(2 * kPi), w), stirlingCorrection(fn, w)));
  Value lgamma = fn.subtract(lgw, fn.log(prod));
  Value small = fn.subtract(fn.subtract(fn.multiply(a, fn.log(x)), x), lgamma);
  Value d = fn.divide(fn.subtract(x, a), a);
  Value big = fn.multiply(a, fn.subtract(fn.unary(hlo::UnaryOp::kLogPlusOne, d), d));
  big = fn.subtract(big, fn.multiply(k(fn, 0.5, a), fn.log(fn.multiply(k(fn, 2 * kPi, a), a))));
  big = fn.subtract(big, stirlingCorrection(fn, a));
  return fn.select(cmpK(fn, a, 10, Dir::kLe), small, big);
}

// Q(a, x) (or P) for large a: Temme's expansion, uniform in x,
// Q = erfc(eta sqrt(a/2))/2 + e^(-a eta^2/2)/sqrt(2 pi a) (C0(eta) + O(1/a)),
// eta^2/2 = lambda - 1 - log(lambda), lambda = x/a, sign(eta) = sign(lambda - 1),
// C0 = 1/(lambda - 1) - 1/eta (its Taylor series near eta = 0).
Value temme(Function& fn, const Value& a, const Value& x, bool upper) {
  Value d = fn.divide(fn.subtract(x, a), a);
  Value l = fn.subtract(fn.unary(hlo::UnaryOp::kLogPlusOne, d), d);  // -eta^2/2
  Value eta = ew::copysign(fn, fn.sqrt(fn.maximum(fn.multiply(k(fn, -2, l), l), k(fn, 0, l))), d);
  Value c0 = fn.subtract(fn.divide(k(fn, 1, d), d), fn.divide(k(fn, 1, eta), eta));
  Value series = ew::poly(fn, eta, {1.0 / 2835, 1.0 / 864, -2.0 / 135, 1.0 / 12, -1.0 / 3});
  c0 = fn.select(cmpK(fn, fn.abs(eta), 0.3, Dir::kLt), series, c0);
  Value rest = fn.multiply(fn.exp(fn.multiply(a, l)),
                           fn.unary(hlo::UnaryOp::kRsqrt, fn.multiply(k(fn, 2 * kPi, a), a)));
  rest = fn.multiply(rest, c0);
  Value z = fn.multiply(eta, fn.sqrt(fn.multiply(a, k(fn, 0.5, a))));
  if (upper) return fn.add(fn.multiply(k(fn, 0.5, z), ew::erfc(fn, z)), rest);
  return fn.subtract(fn.multiply(k(fn, 0.5, z), ew::erfc(fn, fn.negate(z))), rest);
}

// P(a, x) (upper = false) or Q(a, x): the power series of P for x < a + 1, the
// continued fraction of Q (modified Lentz) otherwise, in one while loop that
// runs until every element has converged (at most kMaxIter steps); Temme's
// expansion for a > 200, where those converge slowly near x = a (its next
// term, O(a^-3/2), is below 1e-6 there).
Value incompleteGamma(Function& fn, Value a, Value x, bool upper) {
  constexpr int kMaxIter = 2000;
  constexpr double kTol = 2e-7, kTiny = 1e-30;
  Value nanIn = lor(fn, ew::isNan(fn, a), ew::isNan(fn, x));
  Value special = lor(fn, lor(fn, nanIn, lor(fn, isInf(fn, a), isInf(fn, x))),
                      lor(fn, cmpK(fn, a, 0, Dir::kLe), cmpK(fn, x, 0, Dir::kLe)));
  Value as = fn.select(special, k(fn, 1, a), a);
  Value xs = fn.select(special, k(fn, 1, x), x);
  Value ap1 = fn.add(as, k(fn, 1, as));
  Value useSeries = fn.compare(xs, ap1, Dir::kLt);
  Value asymptotic = cmpK(fn, as, 200, Dir::kGt);
  Value xSer = fn.minimum(xs, ap1), xCf = fn.maximum(xs, ap1);
  Value b0 = fn.subtract(fn.add(xCf, k(fn, 1, xCf)), as);
  Value d0 = fn.divide(k(fn, 1, b0), b0);
  const ElementType t = a.dtype();
  const std::vector<int64_t> dims = a.dims();
  std::vector<int64_t> all;
  for (int64_t i = 0; i < a.rank(); ++i) all.push_back(i);
  // Loop values: i (0-d), max error (0-d), term, sum, b, C, D, h.
  std::vector<Value> out = fn.whileLoop(
      {fn.constant(1, t), fn.constant(1, t), k(fn, 1, as), k(fn, 1, as), b0, k(fn, 1 / kTiny, as),
       d0, d0},
      [&](Function& r, const std::vector<Value>& v) {
        Value more = r.compare(v[0], r.constant(kMaxIter, t), Dir::kLt);
        Value open = r.compare(v[1], r.constant(kTol, t), Dir::kGt);
        return std::vector<Value>{r.binary(BinaryOp::kAnd, more, open)};
      },
      [&](Function& r, const std::vector<Value>& v) {
        Value i = r.broadcastInDim(v[0], dims, {});
        Value term = r.multiply(v[2], r.divide(xSer, r.add(as, i)));
        Value sum = r.add(v[3], term);
        Value an = r.negate(r.multiply(i, r.subtract(i, as)));
        Value b = r.add(v[4], k(r, 2, i));
        Value tiny = k(r, kTiny, i);
        Value dd = r.add(r.multiply(an, v[6]), b);
        dd = r.select(cmpK(r, r.abs(dd), kTiny, Dir::kLt), tiny, dd);
        Value cc = r.add(b, r.divide(an, v[5]));
        cc = r.select(cmpK(r, r.abs(cc), kTiny, Dir::kLt), tiny, cc);
        dd = r.divide(k(r, 1, dd), dd);
        Value del = r.multiply(dd, cc);
        Value h = r.multiply(v[7], del);
        Value err =
            r.select(useSeries, r.abs(r.divide(term, sum)), r.abs(r.subtract(del, k(r, 1, del))));
        err = r.select(asymptotic, k(r, 0, err), err);
        Value maxErr = r.reduce(err, r.constant(0, t), all, BinaryOp::kMaximum);
        return std::vector<Value>{r.add(v[0], r.constant(1, t)), maxErr, term, sum, b, cc, dd, h};
      });
  Value pre = fn.exp(logPrefactor(fn, as, xs));
  Value p = fn.multiply(pre, out[3]);
  Value q = fn.multiply(fn.multiply(pre, as), out[7]);
  Value one = k(fn, 1, a), zero = k(fn, 0, a), nan = k(fn, NAN, a);
  Value r = upper ? fn.select(useSeries, fn.subtract(one, p), q)
                  : fn.select(useSeries, p, fn.subtract(one, q));
  r = fn.select(asymptotic, temme(fn, as, xs, upper), r);
  // PyTorch's special cases, lowest priority first.
  Value lo = upper ? one : zero, hi = upper ? zero : one;
  r = fn.select(isInf(fn, x), hi, r);
  r = fn.select(isInf(fn, a), fn.select(isInf(fn, x), nan, lo), r);
  r = fn.select(cmpK(fn, x, 0, Dir::kEq), lo, r);
  r = fn.select(cmpK(fn, a, 0, Dir::kEq), fn.select(cmpK(fn, x, 0, Dir::kGt), hi, nan), r);
  Value neg = lor(fn, lor(fn, cmpK(fn, x, 0, Dir::kLt), cmpK(fn, a, 0, Dir::kLt)), nanIn);
  return fn.select(neg, nan, r);
}

LowerFn incompleteGammaOp(bool upper) {
  return [upper](LowerCtx& c) -> std::vector<Value> {
    ew::Prepared p = ew::prepare(c.fn, {ew::operand(c, "self"), ew::operand(c, "other")},
                                 ew::Promote::kIntToFloat);
    if (p.compute != ElementType::kF32) c.fail(c.op() + " is lowered for float32 only");
    return {incompleteGamma(c.fn, p.values[0], p.values[1], upper)};
  };
}

const Registrar kRegIgamma({"aten::igamma", "aten::igamma.out", "aten::igamma_"},
                           incompleteGammaOp(false));
const Registrar kRegIgammac({"aten::igammac", "aten::igammac.out", "aten::igammac_"},
                            incompleteGammaOp(true));

}  // namespace
}  // namespace torchtpu::lower
