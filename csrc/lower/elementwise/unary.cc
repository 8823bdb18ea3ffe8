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

// The plain unary functions: aten::op, aten::op_ and aten::op.out compute
// ew::unary of "self".
LowerFn unaryFn(Unary op) {
  return
      [op](LowerCtx& c) -> std::vector<Value> { return {ew::unary(c.fn, op, c.tensor("self"))}; };
}

const Registrar kUnaryAbs({"aten::abs", "aten::abs_", "aten::abs.out"}, unaryFn(Unary::kAbs));
const Registrar kUnaryNeg({"aten::neg", "aten::neg_", "aten::neg.out"}, unaryFn(Unary::kNeg));
const Registrar kUnarySign({"aten::sign", "aten::sign_", "aten::sign.out"}, unaryFn(Unary::kSign));
const Registrar kUnarySgn({"aten::sgn", "aten::sgn_", "aten::sgn.out"}, unaryFn(Unary::kSign));
const Registrar kUnarySqrt({"aten::sqrt", "aten::sqrt_", "aten::sqrt.out"}, unaryFn(Unary::kSqrt));
const Registrar kUnaryRsqrt({"aten::rsqrt", "aten::rsqrt_", "aten::rsqrt.out"},
                            unaryFn(Unary::kRsqrt));
const Registrar kUnaryExp({"aten::exp", "aten::exp_", "aten::exp.out"}, unaryFn(Unary::kExp));
const Registrar kUnaryExp2({"aten::exp2", "aten::exp2_", "aten::exp2.out"}, unaryFn(Unary::kExp2));
const Registrar kUnaryExpm1({"aten::expm1", "aten::expm1_", "aten::expm1.out"},
                            unaryFn(Unary::kExpm1));
const Registrar kUnaryLog({"aten::log", "aten::log_", "aten::log.out"}, unaryFn(Unary::kLog));
const Registrar kUnaryLog2({"aten::log2", "aten::log2_", "aten::log2.out"}, unaryFn(Unary::kLog2));
const Registrar kUnaryLog10({"aten::log10", "aten::log10_", "aten::log10.out"},
                            unaryFn(Unary::kLog10));
const Registrar kUnaryLog1p({"aten::log1p", "aten::log1p_", "aten::log1p.out"},
                            unaryFn(Unary::kLog1p));
const Registrar kUnarySin({"aten::sin", "aten::sin_", "aten::sin.out"}, unaryFn(Unary::kSin));
const Registrar kUnaryCos({"aten::cos", "aten::cos_", "aten::cos.out"}, unaryFn(Unary::kCos));
const Registrar kUnaryTan({"aten::tan", "aten::tan_", "aten::tan.out"}, unaryFn(Unary::kTan));
const Registrar kUnaryAsin({"aten::asin", "aten::asin_", "aten::asin.out"}, unaryFn(Unary::kAsin));
const Registrar kUnaryAcos({"aten::acos", "aten::acos_", "aten::acos.out"}, unaryFn(Unary::kAcos));
const Registrar kUnaryAtan({"aten::atan", "aten::atan_", "aten::atan.out"}, unaryFn(Unary::kAtan));
const Registrar kUnarySinh({"aten::sinh", "aten::sinh_", "aten::sinh.out"}, unaryFn(Unary::kSinh));
const Registrar kUnaryCosh({"aten::cosh", "aten::cosh_", "aten::cosh.out"}, unaryFn(Unary::kCosh));
const Registrar kUnaryTanh({"aten::tanh", "aten::tanh_", "aten::tanh.out"}, unaryFn(Unary::kTanh));
const Registrar kUnaryAsinh({"aten::asinh", "aten::asinh_", "aten::asinh.out"},
                            unaryFn(Unary::kAsinh));
const Registrar kUnaryAcosh({"aten::acosh", "aten::acosh_", "aten::acosh.out"},
                            unaryFn(Unary::kAcosh));
const Registrar kUnaryAtanh({"aten::atanh", "aten::atanh_", "aten::atanh.out"},
                            unaryFn(Unary::kAtanh));
const Registrar kUnaryErf({"aten::erf", "aten::erf_", "aten::erf.out"}, unaryFn(Unary::kErf));
const Registrar kUnaryErfc({"aten::erfc", "aten::erfc_", "aten::erfc.out"}, unaryFn(Unary::kErfc));
const Registrar kUnaryErfinv({"aten::erfinv", "aten::erfinv_", "aten::erfinv.out"},
                             unaryFn(Unary::kErfinv));
const Registrar kUnaryFloor({"aten::floor", "aten::floor_", "aten::floor.out"},
                            unaryFn(Unary::kFloor));
const Registrar kUnaryCeil({"aten::ceil", "aten::ceil_", "aten::ceil.out"}, unaryFn(Unary::kCeil));
const Registrar kUnaryRound({"aten::round", "aten::round_", "aten::round.out"},
                            unaryFn(Unary::kRound));
const Registrar kUnaryTrunc({"aten::trunc", "aten::trunc_", "aten::trunc.out"},
                            unaryFn(Unary::kTrunc));
const Registrar kUnaryFrac({"aten::frac", "aten::frac_", "aten::frac.out"}, unaryFn(Unary::kFrac));
const Registrar kUnaryReciprocal({"aten::reciprocal", "aten::reciprocal_", "aten::reciprocal.out"},
                                 unaryFn(Unary::kReciprocal));
const Registrar kUnarySigmoid({"aten::sigmoid", "aten::sigmoid_", "aten::sigmoid.out"},
                              unaryFn(Unary::kSigmoid));

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
