// Elementwise unary math. Float-valued functions compute integer and bool
// inputs in float32 and f16/bf16 in f32 (PyTorch's opmath); abs, neg, sign,
// floor, ceil, round and trunc keep integers. Besides the table of plain
// functions (abs ... sigmoid): round.decimals, logit, isnan / isinf /
// isposinf / isneginf / isfinite, signbit, nan_to_num, square and sinc.
#include <cmath>
#include <limits>
#include <numbers>

#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using ew::Unary;
using Dir = hlo::ComparisonDirection;

struct UnaryName {
  const char* name;
  Unary op;
};

const UnaryName kUnaryOps[] = {
    {"abs", Unary::kAbs},         {"neg", Unary::kNeg},
    {"sign", Unary::kSign},       {"sgn", Unary::kSign},
    {"sqrt", Unary::kSqrt},       {"rsqrt", Unary::kRsqrt},
    {"exp", Unary::kExp},         {"exp2", Unary::kExp2},
    {"expm1", Unary::kExpm1},     {"log", Unary::kLog},
    {"log2", Unary::kLog2},       {"log10", Unary::kLog10},
    {"log1p", Unary::kLog1p},     {"sin", Unary::kSin},
    {"cos", Unary::kCos},         {"tan", Unary::kTan},
    {"asin", Unary::kAsin},       {"acos", Unary::kAcos},
    {"atan", Unary::kAtan},       {"sinh", Unary::kSinh},
    {"cosh", Unary::kCosh},       {"tanh", Unary::kTanh},
    {"asinh", Unary::kAsinh},     {"acosh", Unary::kAcosh},
    {"atanh", Unary::kAtanh},     {"erf", Unary::kErf},
    {"erfc", Unary::kErfc},       {"erfinv", Unary::kErfinv},
    {"floor", Unary::kFloor},     {"ceil", Unary::kCeil},
    {"round", Unary::kRound},     {"trunc", Unary::kTrunc},
    {"frac", Unary::kFrac},       {"reciprocal", Unary::kReciprocal},
    {"sigmoid", Unary::kSigmoid},
};

// Registers aten::op, aten::op_ and aten::op.out for every unary op above.
const bool kUnaryRegistered = [] {
  for (const UnaryName& u : kUnaryOps) {
    const std::string base = std::string("aten::") + u.name;
    const Unary op = u.op;
    registerLowering({base, base + "_", base + ".out"}, [op](LowerCtx& c) -> std::vector<Value> {
      return {ew::unary(c.fn, op, c.tensor("self"))};
    });
  }
  return true;
}();

// round(decimals): nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for d < 0.
const Registrar kRoundDecimals({"aten::round.decimals", "aten::round.decimals_out",
                                "aten::round_.decimals"},
                               [](LowerCtx& c) -> std::vector<Value> {
                                 Value x = c.tensor("self");
                                 const int64_t d = c.i("decimals");
                                 if (!ew::isFloat(x.dtype())) return {x};
                                 x = castTo(c.fn, x, accType(x.dtype()));
                                 Value p = ew::splat(c.fn, std::pow(10.0, std::abs(d)), x);
                                 auto round = [&](Value v) {
                                   return c.fn.unary(hlo::UnaryOp::kRoundNearestEven, v);
                                 };
                                 if (d >= 0) return {c.fn.divide(round(c.fn.multiply(x, p)), p)};
                                 return {c.fn.multiply(round(c.fn.divide(x, p)), p)};
                               });

// logit(x, eps) = log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
const Registrar kLogit({"aten::logit", "aten::logit.out", "aten::logit_"},
                       [](LowerCtx& c) -> std::vector<Value> {
                         Value x = c.tensor("self");
                         if (!ew::isFloat(x.dtype())) x = castTo(c.fn, x, ElementType::kF32);
                         x = castTo(c.fn, x, accType(x.dtype()));
                         if (auto eps = c.optDouble("eps")) {
                           Value lo = ew::splat(c.fn, *eps, x), hi = ew::splat(c.fn, 1 - *eps, x);
                           x = c.fn.select(c.fn.compare(x, lo, Dir::kLt), lo,
                                           c.fn.select(c.fn.compare(x, hi, Dir::kGt), hi, x));
                         }
                         Value one = ew::splat(c.fn, 1, x);
                         return {c.fn.log(c.fn.divide(x, c.fn.subtract(one, x)))};
                       });

// Float classification; integers are never NaN or infinite.
std::vector<Value> classify(LowerCtx& c, int which) {
  Value x = c.tensor("self");
  if (runtime::isComplex(x.dtype())) c.fail("complex operands are not lowered");
  if (!ew::isFloat(x.dtype())) return {c.fn.constantInt(0, ElementType::kPred, x.dims())};
  const double inf = std::numeric_limits<double>::infinity();
  switch (which) {
    case 0:
      return {ew::isNan(c.fn, x)};
    case 1:
      return {c.fn.compare(c.fn.abs(x), ew::splat(c.fn, inf, x), Dir::kEq)};
    case 2:
      return {c.fn.compare(x, ew::splat(c.fn, inf, x), Dir::kEq)};
    default:
      return {c.fn.compare(x, ew::splat(c.fn, -inf, x), Dir::kEq)};
  }
}
const Registrar kIsNan({"aten::isnan", "aten::isnan.out"},
                       [](LowerCtx& c) { return classify(c, 0); });
const Registrar kIsInf({"aten::isinf", "aten::isinf.out"},
                       [](LowerCtx& c) { return classify(c, 1); });
const Registrar kIsPosInf({"aten::isposinf", "aten::isposinf.out"},
                          [](LowerCtx& c) { return classify(c, 2); });
const Registrar kIsNegInf({"aten::isneginf", "aten::isneginf.out"},
                          [](LowerCtx& c) { return classify(c, 3); });
const Registrar kIsFinite({"aten::isfinite"}, [](LowerCtx& c) -> std::vector<Value> {
  Value x = c.tensor("self");
  if (!ew::isFloat(x.dtype())) return {c.fn.constantInt(1, ElementType::kPred, x.dims())};
  return {c.fn.unary(hlo::UnaryOp::kIsFinite, x)};
});
const Registrar kSignbit({"aten::signbit", "aten::signbit.out"},
                         [](LowerCtx& c) -> std::vector<Value> {
                           return {ew::signbit(c.fn, c.tensor("self"))};
                         });

// Largest finite value of a float type.
double maxFinite(ElementType t) {
  switch (t) {
    case ElementType::kF16:
      return 65504.0;
    case ElementType::kBF16:
      return 3.3895313892515355e38;
    case ElementType::kF32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

// nan_to_num: NaN -> nan (0), +inf -> posinf (max finite), -inf -> neginf (lowest).
const Registrar kNanToNum({"aten::nan_to_num", "aten::nan_to_num.out", "aten::nan_to_num_"},
                          [](LowerCtx& c) -> std::vector<Value> {
                            Value x = c.tensor("self");
                            if (!ew::isFloat(x.dtype())) return {x};
                            const double big = maxFinite(x.dtype());
                            const double inf = std::numeric_limits<double>::infinity();
                            Value nan = ew::splat(c.fn, c.optDouble("nan").value_or(0.0), x);
                            Value pos = ew::splat(c.fn, c.optDouble("posinf").value_or(big), x);
                            Value neg = ew::splat(c.fn, c.optDouble("neginf").value_or(-big), x);
                            Value r = c.fn.select(ew::isNan(c.fn, x), nan, x);
                            r = c.fn.select(c.fn.compare(x, ew::splat(c.fn, inf, x), Dir::kEq), pos,
                                            r);
                            return {c.fn.select(c.fn.compare(x, ew::splat(c.fn, -inf, x), Dir::kEq),
                                                neg, r)};
                          });

// square (CompositeImplicitAutograd in PyTorch; registered in case it arrives).
const Registrar kSquare({"aten::square", "aten::square.out", "aten::square_"},
                        [](LowerCtx& c) -> std::vector<Value> {
                          Value x = c.tensor("self");
                          if (x.dtype() == ElementType::kPred)
                            x = castTo(c.fn, x, ElementType::kS64);
                          x = castTo(c.fn, x, accType(x.dtype()));
                          return {c.fn.multiply(x, x)};
                        });

// sinc(x) = sin(pi x) / (pi x), 1 at 0.
const Registrar kSinc({"aten::sinc", "aten::sinc.out", "aten::sinc_", "aten::special_sinc"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Function& fn = c.fn;
                        Value x = ew::prepareArgs(c, {"self"}, ew::Promote::kIntToFloat)[0];
                        if (!ew::isFloat(x.dtype())) c.fail("sinc of complex is not lowered");
                        Value px = fn.multiply(x, ew::splat(fn, std::numbers::pi, x));
                        Value r = fn.divide(fn.unary(hlo::UnaryOp::kSine, px), px);
                        return {fn.select(fn.compare(x, ew::splat(fn, 0, x), Dir::kEq),
                                          ew::splat(fn, 1, x), r)};
                      });

}  // namespace
}  // namespace torchtpu::lower
