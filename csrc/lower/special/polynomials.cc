// The classical orthogonal polynomials of torch.special (Chebyshev T/U/V/W and
// their shifted forms, Hermite H/He, Laguerre L, Legendre P) evaluated for a
// per-element degree n (truncated to an integer; 0 for n < 0) by their
// three-term recurrences, in one while loop that runs to the largest degree.
#include <functional>
#include <string>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using Dir = hlo::ComparisonDirection;

// P_0, P_1 and the step P_{k+1} = f(k, x, P_{k-1}, P_k).
struct Recurrence {
  std::function<Value(Function&, Value x)> p0;
  std::function<Value(Function&, Value x)> p1;
  std::function<Value(Function&, Value k, Value x, Value prev, Value cur)> step;
};

Value c(Function& fn, double v, const Value& like) { return ew::splat(fn, v, like); }

Value evaluate(Function& fn, Value x, Value n, const Recurrence& rec) {
  n = ew::trunc(fn, n);
  Value p0 = rec.p0(fn, x);
  Value p1 = rec.p1(fn, x);
  Value zero = c(fn, 0, x);
  Value init = fn.select(fn.compare(n, zero, Dir::kEq), p0,
                         fn.select(fn.compare(n, c(fn, 1, x), Dir::kEq), p1, zero));
  const ElementType t = x.dtype();
  Value maxN = fn.reduce(
      n, fn.constant(-1, t),
      [&] {
        std::vector<int64_t> all;
        for (int64_t i = 0; i < n.rank(); ++i) all.push_back(i);
        return all;
      }(),
      BinaryOp::kMaximum);
  const std::vector<int64_t> dims = x.dims();
  // Loop values: k (0-d), P_{k-1}, P_k, result.
  std::vector<Value> out = fn.whileLoop(
      {fn.constant(1, t), p0, p1, init},
      [&](Function& r, const std::vector<Value>& a) {
        return std::vector<Value>{r.compare(a[0], maxN, Dir::kLt)};
      },
      [&](Function& r, const std::vector<Value>& a) {
        Value k = r.broadcastInDim(a[0], dims, {});
        Value next = rec.step(r, k, x, a[1], a[2]);
        Value k1 = r.add(k, ew::splat(r, 1, k));
        Value res = r.select(r.compare(n, k1, Dir::kEq), next, a[3]);
        return std::vector<Value>{r.add(a[0], r.constant(1, t)), a[2], next, res};
      });
  return out[3];
}

Value two(Function& fn, const Value& x) { return fn.add(x, x); }

Recurrence chebyshev(double p1Offset) {
  // T: p1 = x; U: 2x; V: 2x - 1; W: 2x + 1; all step 2x P_k - P_{k-1}.
  Recurrence rec;
  rec.p0 = [](Function& fn, Value x) { return c(fn, 1, x); };
  if (p1Offset == 0) {
    rec.p1 = [](Function&, Value x) { return x; };
  } else if (p1Offset == 2) {
    rec.p1 = [](Function& fn, Value x) { return two(fn, x); };
  } else {
    rec.p1 = [p1Offset](Function& fn, Value x) { return fn.add(two(fn, x), c(fn, p1Offset, x)); };
  }
  rec.step = [](Function& fn, Value, Value x, Value prev, Value cur) {
    return fn.subtract(fn.multiply(two(fn, x), cur), prev);
  };
  return rec;
}

Recurrence hermiteH() {
  Recurrence rec;
  rec.p0 = [](Function& fn, Value x) { return c(fn, 1, x); };
  rec.p1 = [](Function& fn, Value x) { return two(fn, x); };
  rec.step = [](Function& fn, Value k, Value x, Value prev, Value cur) {
    return fn.subtract(fn.multiply(two(fn, x), cur), fn.multiply(two(fn, k), prev));
  };
  return rec;
}

Recurrence hermiteHe() {
  Recurrence rec;
  rec.p0 = [](Function& fn, Value x) { return c(fn, 1, x); };
  rec.p1 = [](Function&, Value x) { return x; };
  rec.step = [](Function& fn, Value k, Value x, Value prev, Value cur) {
    return fn.subtract(fn.multiply(x, cur), fn.multiply(k, prev));
  };
  return rec;
}

Recurrence laguerre() {
  Recurrence rec;
  rec.p0 = [](Function& fn, Value x) { return c(fn, 1, x); };
  rec.p1 = [](Function& fn, Value x) { return fn.subtract(c(fn, 1, x), x); };
  rec.step = [](Function& fn, Value k, Value x, Value prev, Value cur) {
    Value a = fn.subtract(fn.add(two(fn, k), c(fn, 1, k)), x);
    return fn.divide(fn.subtract(fn.multiply(a, cur), fn.multiply(k, prev)),
                     fn.add(k, c(fn, 1, k)));
  };
  return rec;
}

Recurrence legendre() {
  Recurrence rec;
  rec.p0 = [](Function& fn, Value x) { return c(fn, 1, x); };
  rec.p1 = [](Function&, Value x) { return x; };
  rec.step = [](Function& fn, Value k, Value x, Value prev, Value cur) {
    Value a = fn.multiply(fn.add(two(fn, k), c(fn, 1, k)), fn.multiply(x, cur));
    return fn.divide(fn.subtract(a, fn.multiply(k, prev)), fn.add(k, c(fn, 1, k)));
  };
  return rec;
}

std::vector<Value> lowerPoly(LowerCtx& c, const Recurrence& rec, bool shifted) {
  ew::Prepared p =
      ew::prepare(c.fn, {ew::operand(c, "x"), ew::operand(c, "n")}, ew::Promote::kIntToFloat);
  if (!ew::isFloat(p.compute)) c.fail("complex inputs are not lowered");
  Value x = p.values[0];
  if (shifted) x = c.fn.subtract(two(c.fn, x), ew::splat(c.fn, 1, x));  // P*(x) = P(2x - 1)
  return {evaluate(c.fn, x, p.values[1], rec)};
}

const Registrar kChebT({"aten::special_chebyshev_polynomial_t",
                        "aten::special_chebyshev_polynomial_t.out",
                        "aten::special_chebyshev_polynomial_t.x_scalar",
                        "aten::special_chebyshev_polynomial_t.n_scalar",
                        "aten::special_chebyshev_polynomial_t.x_scalar_out",
                        "aten::special_chebyshev_polynomial_t.n_scalar_out"},
                       [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(0), false); });
const Registrar kChebU({"aten::special_chebyshev_polynomial_u",
                        "aten::special_chebyshev_polynomial_u.out",
                        "aten::special_chebyshev_polynomial_u.x_scalar",
                        "aten::special_chebyshev_polynomial_u.n_scalar",
                        "aten::special_chebyshev_polynomial_u.x_scalar_out",
                        "aten::special_chebyshev_polynomial_u.n_scalar_out"},
                       [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(2), false); });
const Registrar kChebV({"aten::special_chebyshev_polynomial_v",
                        "aten::special_chebyshev_polynomial_v.out",
                        "aten::special_chebyshev_polynomial_v.x_scalar",
                        "aten::special_chebyshev_polynomial_v.n_scalar",
                        "aten::special_chebyshev_polynomial_v.x_scalar_out",
                        "aten::special_chebyshev_polynomial_v.n_scalar_out"},
                       [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(-1), false); });
const Registrar kChebW({"aten::special_chebyshev_polynomial_w",
                        "aten::special_chebyshev_polynomial_w.out",
                        "aten::special_chebyshev_polynomial_w.x_scalar",
                        "aten::special_chebyshev_polynomial_w.n_scalar",
                        "aten::special_chebyshev_polynomial_w.x_scalar_out",
                        "aten::special_chebyshev_polynomial_w.n_scalar_out"},
                       [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(1), false); });
const Registrar kSChebT({"aten::special_shifted_chebyshev_polynomial_t",
                         "aten::special_shifted_chebyshev_polynomial_t.out",
                         "aten::special_shifted_chebyshev_polynomial_t.x_scalar",
                         "aten::special_shifted_chebyshev_polynomial_t.n_scalar",
                         "aten::special_shifted_chebyshev_polynomial_t.x_scalar_out",
                         "aten::special_shifted_chebyshev_polynomial_t.n_scalar_out"},
                        [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(0), true); });
const Registrar kSChebU({"aten::special_shifted_chebyshev_polynomial_u",
                         "aten::special_shifted_chebyshev_polynomial_u.out",
                         "aten::special_shifted_chebyshev_polynomial_u.x_scalar",
                         "aten::special_shifted_chebyshev_polynomial_u.n_scalar",
                         "aten::special_shifted_chebyshev_polynomial_u.x_scalar_out",
                         "aten::special_shifted_chebyshev_polynomial_u.n_scalar_out"},
                        [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(2), true); });
const Registrar kSChebV({"aten::special_shifted_chebyshev_polynomial_v",
                         "aten::special_shifted_chebyshev_polynomial_v.out",
                         "aten::special_shifted_chebyshev_polynomial_v.x_scalar",
                         "aten::special_shifted_chebyshev_polynomial_v.n_scalar",
                         "aten::special_shifted_chebyshev_polynomial_v.x_scalar_out",
                         "aten::special_shifted_chebyshev_polynomial_v.n_scalar_out"},
                        [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(-1), true); });
const Registrar kSChebW({"aten::special_shifted_chebyshev_polynomial_w",
                         "aten::special_shifted_chebyshev_polynomial_w.out",
                         "aten::special_shifted_chebyshev_polynomial_w.x_scalar",
                         "aten::special_shifted_chebyshev_polynomial_w.n_scalar",
                         "aten::special_shifted_chebyshev_polynomial_w.x_scalar_out",
                         "aten::special_shifted_chebyshev_polynomial_w.n_scalar_out"},
                        [](LowerCtx& ctx) { return lowerPoly(ctx, chebyshev(1), true); });
const Registrar kHermiteH({"aten::special_hermite_polynomial_h",
                           "aten::special_hermite_polynomial_h.out",
                           "aten::special_hermite_polynomial_h.x_scalar",
                           "aten::special_hermite_polynomial_h.n_scalar",
                           "aten::special_hermite_polynomial_h.x_scalar_out",
                           "aten::special_hermite_polynomial_h.n_scalar_out"},
                          [](LowerCtx& ctx) { return lowerPoly(ctx, hermiteH(), false); });
const Registrar kHermiteHe({"aten::special_hermite_polynomial_he",
                            "aten::special_hermite_polynomial_he.out",
                            "aten::special_hermite_polynomial_he.x_scalar",
                            "aten::special_hermite_polynomial_he.n_scalar",
                            "aten::special_hermite_polynomial_he.x_scalar_out",
                            "aten::special_hermite_polynomial_he.n_scalar_out"},
                           [](LowerCtx& ctx) { return lowerPoly(ctx, hermiteHe(), false); });
const Registrar kLaguerre({"aten::special_laguerre_polynomial_l",
                           "aten::special_laguerre_polynomial_l.out",
                           "aten::special_laguerre_polynomial_l.x_scalar",
                           "aten::special_laguerre_polynomial_l.n_scalar",
                           "aten::special_laguerre_polynomial_l.x_scalar_out",
                           "aten::special_laguerre_polynomial_l.n_scalar_out"},
                          [](LowerCtx& ctx) { return lowerPoly(ctx, laguerre(), false); });
const Registrar kLegendre({"aten::special_legendre_polynomial_p",
                           "aten::special_legendre_polynomial_p.out",
                           "aten::special_legendre_polynomial_p.x_scalar",
                           "aten::special_legendre_polynomial_p.n_scalar",
                           "aten::special_legendre_polynomial_p.x_scalar_out",
                           "aten::special_legendre_polynomial_p.n_scalar_out"},
                          [](LowerCtx& ctx) { return lowerPoly(ctx, legendre(), false); });

}  // namespace
}  // namespace torchtpu::lower
