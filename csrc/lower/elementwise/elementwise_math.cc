#include "lower/elementwise/elementwise_math.h"

#include <cmath>
#include <limits>

namespace torchtpu::lower::ew {
namespace {

using hlo::BinaryOp;
using hlo::ComparisonDirection;
using hlo::UnaryOp;
using Dir = ComparisonDirection;

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;

Value cmp(Function& fn, Value a, Value b, Dir d) { return fn.compare(a, b, d); }
Value cmpK(Function& fn, Value a, double k, Dir d) { return fn.compare(a, splat(fn, k, a), d); }
Value land(Function& fn, Value a, Value b) { return fn.binary(BinaryOp::kAnd, a, b); }
Value lor(Function& fn, Value a, Value b) { return fn.binary(BinaryOp::kOr, a, b); }
Value lne(Function& fn, Value a, Value b) { return fn.binary(BinaryOp::kXor, a, b); }

void requireF32(const Value& x, const char* what) {
  if (x.dtype() != ElementType::kF32) {
    throw LoweringError(std::string(what) + " is lowered for float32/bfloat16/float16 only, not " +
                        std::string(runtime::elementTypeName(x.dtype())));
  }
}

// The signed integer type of a float type's width, for bit inspection.
ElementType bitsType(ElementType t) {
  switch (runtime::elementByteSize(t)) {
    case 2:
      return ElementType::kS16;
    case 4:
      return ElementType::kS32;
    default:
      return ElementType::kS64;
  }
}

// erf(x)/x = P(x^2) for |x| < 1 (own minimax-style fit, relative error 1.2e-9).
const std::vector<double> kErfSmall = {
    7.8538471226992891e-05, -0.00080101893131950819, 0.005188327194574789, -0.026853811676567477,
    0.11283585142423069,    -0.37612625823687118,    1.1283791657266327};
// erfc(x) * x * exp(x^2) = R(1/x^2): for 1 <= x < 2 and for x >= 2 (rel. error 6e-9).
const std::vector<double> kErfcMid = {
    -0.024545957044272343, 0.16080935736967161, -0.47345825487664195, 0.83246893597251559,
    -0.9847601376545615,   0.84728939430002981, -0.57686983507829348, 0.35920789989452723,
    -0.27651670650594767,  0.56395887714495185};
const std::vector<double> kErfcLarge = {
    35.454964039970164,  -46.502604732065961,  27.934226908397576,
    -10.758730463305554, 3.3214922421210749,   -1.0427098945248632,
    0.42282508724934664, -0.28209216777224722, 0.56418957993757302};
// erfinv(x)/x with w = -log(1 - x^2): P(w - 2.5) for w < 5, P(sqrt(w) - 3) above.
const std::vector<double> kErfinvCentral = {-8.7911832332717003e-09, 2.3232710622076574e-08,
                                            4.6617241361381869e-07,  -3.4627055726639538e-06,
                                            -4.9633558540155887e-06, 0.00021834444252251533,
                                            -0.0012527418650328801,  -0.0041773867847945574,
                                            0.24664028614747177,     1.5014093592831668};
const std::vector<double> kErfinvTail = {
    0.00011010108375172774, -0.00030436656914845095, -4.8676155350566192e-05, 0.0014786551681157485,
    -0.0036016415546124749, 0.0056894044345377655,   -0.0076363906001515403,  0.0094450079260106901,
    1.0016749118927846,     2.8329768056905209};

// erfc(a) for a >= 1 (f32): exp(-a^2) / a * R(1/a^2), with a^2 split so that
// exp's argument is exact (a = hi + lo, hi on a 1/256 grid).
Value erfcLarge(Function& fn, Value a) {
  a = minNan(fn, a, splat(fn, 12, a));  // erfc(12) underflows f32; keeps inf out
  Value hi =
      fn.divide(fn.unary(UnaryOp::kFloor, fn.multiply(a, splat(fn, 256, a))), splat(fn, 256, a));
  Value e = fn.multiply(fn.exp(fn.negate(fn.multiply(hi, hi))),
                        fn.exp(fn.negate(fn.multiply(fn.subtract(a, hi), fn.add(a, hi)))));
  Value u = fn.divide(splat(fn, 1, a), fn.multiply(a, a));
  Value r = fn.select(cmpK(fn, a, 2, Dir::kLt), poly(fn, u, kErfcMid), poly(fn, u, kErfcLarge));
  return fn.multiply(fn.divide(e, a), r);
}

}  // namespace

bool isFloat(ElementType t) { return runtime::isFloating(t) && !runtime::isComplex(t); }

Prepared prepare(Function& fn, const std::vector<Operand>& operands, Promote promote, bool opmath,
                 bool roundSecond) {
  Prepared p;
  std::vector<std::vector<int64_t>> shapes;
  for (const Operand& o : operands) {
    if (runtime::isComplex(o.value.dtype())) {
      throw LoweringError("complex operands are not lowered");
    }
    shapes.push_back(o.value.dims());
  }
  p.common = resultType(operands);
  if (promote == Promote::kIntToFloat && !isFloat(p.common)) p.common = ElementType::kF32;
  p.compute = opmath ? accType(p.common) : p.common;
  p.dims = broadcastShapes(shapes);
  for (size_t k = 0; k < operands.size(); ++k) {
    // As on the CPU, an operand of another dtype (a float32 0-d tensor or a
    // Python number with bfloat16 tensors) is first rounded to the common
    // dtype, then widened for the computation.
    Value v = operands[k].value;
    const bool round = k != 1 || roundSecond;
    if (round && v.dtype() != p.common && p.compute != p.common) v = fn.convert(v, p.common);
    p.values.push_back(fit(fn, v, p.compute, p.dims));
  }
  return p;
}

Operand operand(const LowerCtx& c, std::string_view name) {
  for (size_t k = 0; k < c.call.argNames.size(); ++k) {
    if (c.call.argNames[k] == name && c.call.args[k].kind == ir::ArgValue::Kind::kScalar) {
      return {c.scalar(name), true};
    }
  }
  return {c.tensor(name), false};
}

std::vector<Value> prepareArgs(const LowerCtx& c, const std::vector<const char*>& names,
                               Promote promote) {
  std::vector<Operand> ops;
  for (const char* n : names) ops.push_back(operand(c, n));
  return prepare(c.fn, ops, promote).values;
}

Value splat(Function& fn, double v, const Value& x) {
  return constantLike(fn, v, x.dtype(), x.dims());
}

Value like(Function& fn, Value s, const Value& x) { return fit(fn, s, x.dtype(), x.dims()); }

Value poly(Function& fn, const Value& t, const std::vector<double>& coeffs) {
  Value p = splat(fn, coeffs[0], t);
  for (size_t k = 1; k < coeffs.size(); ++k) p = fn.add(fn.multiply(p, t), splat(fn, coeffs[k], t));
  return p;
}

// ---- predicates ---------------------------------------------------------------

Value isNan(Function& fn, Value x) {
  if (!isFloat(x.dtype())) return fn.constantInt(0, ElementType::kPred, x.dims());
  return cmp(fn, x, x, Dir::kNe);
}

Value signbit(Function& fn, Value x) {
  const ElementType t = x.dtype();
  if (isFloat(t)) {
    Value bits = fn.bitcastConvert(x, bitsType(t));
    return cmpK(fn, bits, 0, Dir::kLt);
  }
  if (runtime::isSigned(t)) return cmpK(fn, x, 0, Dir::kLt);
  return fn.constantInt(0, ElementType::kPred, x.dims());
}

// ---- binary kernels -----------------------------------------------------------

Value maxNan(Function& fn, Value a, Value b) {
  Value r = fn.maximum(a, b);
  if (!isFloat(a.dtype())) return r;
  r = fn.select(isNan(fn, a), a, r);
  return fn.select(isNan(fn, b), b, r);
}

Value minNan(Function& fn, Value a, Value b) {
  Value r = fn.minimum(a, b);
  if (!isFloat(a.dtype())) return r;
  r = fn.select(isNan(fn, a), a, r);
  return fn.select(isNan(fn, b), b, r);
}

Value fmax(Function& fn, Value a, Value b) {
  Value r = fn.maximum(a, b);
  if (!isFloat(a.dtype())) return r;
  r = fn.select(isNan(fn, a), b, r);
  return fn.select(isNan(fn, b), a, r);
}

Value fmin(Function& fn, Value a, Value b) {
  Value r = fn.minimum(a, b);
  if (!isFloat(a.dtype())) return r;
  r = fn.select(isNan(fn, a), b, r);
  return fn.select(isNan(fn, b), a, r);
}

Value truncDiv(Function& fn, Value a, Value b) {
  if (a.dtype() == ElementType::kPred) throw LoweringError("integer division of booleans");
  Value q = fn.divide(a, b);  // integers: truncates toward zero
  return isFloat(a.dtype()) ? trunc(fn, q) : q;
}

Value floorDiv(Function& fn, Value a, Value b) {
  const ElementType t = a.dtype();
  if (t == ElementType::kPred) throw LoweringError("integer division of booleans");
  if (runtime::isUnsigned(t)) return fn.divide(a, b);
  if (!isFloat(t)) {
    // Truncated quotient, one lower when the remainder's sign differs from b's.
    Value q = fn.divide(a, b);
    Value r = fn.binary(BinaryOp::kRemainder, a, b);
    Value adjust = land(fn, cmpK(fn, r, 0, Dir::kNe),
                        lne(fn, cmpK(fn, r, 0, Dir::kLt), cmpK(fn, b, 0, Dir::kLt)));
    return fn.select(adjust, fn.subtract(q, splat(fn, 1, q)), q);
  }
  // PyTorch's div_floor_floating: exact quotient from fmod, then floor with a
  // correction, signed zero for a zero quotient and a / b for b == 0.
  Value mod = fn.binary(BinaryOp::kRemainder, a, b);
  Value div = fn.divide(fn.subtract(a, mod), b);
  Value adjust = land(fn, cmpK(fn, mod, 0, Dir::kNe),
                      lne(fn, cmpK(fn, b, 0, Dir::kLt), cmpK(fn, mod, 0, Dir::kLt)));
  div = fn.select(adjust, fn.subtract(div, splat(fn, 1, div)), div);
  Value fl = fn.unary(UnaryOp::kFloor, div);
  fl = fn.select(cmpK(fn, fn.subtract(div, fl), 0.5, Dir::kGt), fn.add(fl, splat(fn, 1, fl)), fl);
  Value quotient = fn.divide(a, b);
  Value zero = copysign(fn, splat(fn, 0, a), quotient);
  Value r = fn.select(cmpK(fn, div, 0, Dir::kNe), fl, zero);
  return fn.select(cmpK(fn, b, 0, Dir::kEq), quotient, r);
}

Value remainder(Function& fn, Value a, Value b) {
  const ElementType t = a.dtype();
  if (t == ElementType::kPred) throw LoweringError("remainder of booleans");
  Value mod = fn.binary(BinaryOp::kRemainder, a, b);
  if (runtime::isUnsigned(t)) return mod;
  Value adjust = land(fn, cmpK(fn, mod, 0, Dir::kNe),
                      lne(fn, cmpK(fn, b, 0, Dir::kLt), cmpK(fn, mod, 0, Dir::kLt)));
  return fn.select(adjust, fn.add(mod, b), mod);
}

Value fmod(Function& fn, Value a, Value b) {
  if (a.dtype() == ElementType::kPred) throw LoweringError("fmod of booleans");
  return fn.binary(BinaryOp::kRemainder, a, b);
}

namespace {

// Integer a ** b with the CPU's wraparound for exponents of 64 and more, where
// XLA's integer power looks at the exponent's low 6 bits only: square and
// multiply over every bit (a loop that runs only when such an exponent is
// present). Exponents below 64 keep XLA's power.
Value wideIntegerPow(Function& fn, Value a, Value b, Value r) {
  const ElementType t = a.dtype();
  const int bits = static_cast<int>(runtime::elementByteSize(t)) * 8;
  if (bits <= 6) return r;
  std::vector<int64_t> all;
  for (int64_t d = 0; d < b.rank(); ++d) all.push_back(d);
  Value large = cmpK(fn, b, 64, Dir::kGe);
  Value anyLarge = fn.reduce(large, fn.constantInt(0, ElementType::kPred), all, BinaryOp::kOr);
  const std::vector<int64_t> dims = a.dims();
  std::vector<Value> out = fn.whileLoop(
      {fn.constantInt(0, t), splat(fn, 1, a), a},
      [&](Function& f, const std::vector<Value>& s) {
        Value more = f.compare(s[0], f.constantInt(bits - 1, t), Dir::kLt);
        return std::vector<Value>{f.binary(BinaryOp::kAnd, more, anyLarge)};
      },
      [&](Function& f, const std::vector<Value>& s) {
        Value i = f.broadcastInDim(s[0], dims, {});
        Value bit =
            f.binary(BinaryOp::kAnd, f.binary(BinaryOp::kShiftRightLogical, b, i), splat(f, 1, b));
        Value set = f.compare(bit, splat(f, 0, bit), Dir::kNe);
        return std::vector<Value>{f.add(s[0], f.constantInt(1, t)),
                                  f.select(set, f.multiply(s[1], s[2]), s[1]),
                                  f.multiply(s[2], s[2])};
      });
  return fn.select(large, out[1], r);
}

}  // namespace

Value pow(Function& fn, Value a, Value b) {
  const ElementType t = a.dtype();
  if (t == ElementType::kPred) {
    // x ** 0 == 1, x ** 1 == x.
    return fn.select(b, a, fn.constantInt(1, ElementType::kPred, a.dims()));
  }
  Value r = fn.binary(BinaryOp::kPower, a, b);
  if (isFloat(t)) return r;
  if (a.dims() == b.dims()) r = wideIntegerPow(fn, a, b, r);
  if (runtime::isUnsigned(t)) return r;
  // PyTorch's powi for negative exponents: 1 ** -n == 1, (-1) ** -n == +-1, else 0.
  Value odd = cmpK(fn, fn.binary(BinaryOp::kRemainder, b, splat(fn, 2, b)), 0, Dir::kNe);
  Value minusOne = fn.select(odd, splat(fn, -1, a), splat(fn, 1, a));
  Value neg = fn.select(cmpK(fn, a, 1, Dir::kEq), splat(fn, 1, a),
                        fn.select(cmpK(fn, a, -1, Dir::kEq), minusOne, splat(fn, 0, a)));
  return fn.select(cmpK(fn, b, 0, Dir::kLt), neg, r);
}

Value copysign(Function& fn, Value a, Value b) {
  Value m = fn.abs(a);
  return fn.select(signbit(fn, b), fn.negate(m), m);
}

Value hypot(Function& fn, Value a, Value b) {
  Value x = fn.abs(a), y = fn.abs(b);
  Value m = maxNan(fn, x, y), n = minNan(fn, x, y);
  Value q = fn.divide(n, m);
  Value r = fn.multiply(m, fn.sqrt(fn.add(splat(fn, 1, q), fn.multiply(q, q))));
  r = fn.select(cmpK(fn, m, 0, Dir::kEq), splat(fn, 0, r), r);
  const double inf = std::numeric_limits<double>::infinity();
  Value anyInf = lor(fn, cmpK(fn, x, inf, Dir::kEq), cmpK(fn, y, inf, Dir::kEq));
  return fn.select(anyInf, splat(fn, inf, r), r);
}

// ---- unary kernels ----------------------------------------------------------

Value sign(Function& fn, Value x) {
  const ElementType t = x.dtype();
  if (t == ElementType::kPred) return x;
  if (runtime::isUnsigned(t))
    return fn.select(cmpK(fn, x, 0, Dir::kGt), splat(fn, 1, x), splat(fn, 0, x));
  if (!isFloat(t)) return fn.unary(UnaryOp::kSign, x);
  return fn.select(cmpK(fn, x, 0, Dir::kGt), splat(fn, 1, x),
                   fn.select(cmpK(fn, x, 0, Dir::kLt), splat(fn, -1, x), splat(fn, 0, x)));
}

Value trunc(Function& fn, Value x) {
  if (!isFloat(x.dtype())) return x;
  return fn.select(cmpK(fn, x, 0, Dir::kLt), fn.unary(UnaryOp::kCeil, x),
                   fn.unary(UnaryOp::kFloor, x));
}

Value erf(Function& fn, Value x) {
  requireF32(x, "erf");
  Value a = fn.abs(x);
  Value small = fn.multiply(x, poly(fn, fn.multiply(x, x), kErfSmall));
  Value big = fn.subtract(splat(fn, 1, a), erfcLarge(fn, a));
  big = fn.select(cmpK(fn, x, 0, Dir::kLt), fn.negate(big), big);
  return fn.select(cmpK(fn, a, 1, Dir::kLt), small, big);
}

Value erfc(Function& fn, Value x) {
  requireF32(x, "erfc");
  Value a = fn.abs(x);
  Value small =
      fn.subtract(splat(fn, 1, a), fn.multiply(a, poly(fn, fn.multiply(a, a), kErfSmall)));
  Value pos = fn.select(cmpK(fn, a, 1, Dir::kLt), small, erfcLarge(fn, a));
  return fn.select(cmpK(fn, x, 0, Dir::kLt), fn.subtract(splat(fn, 2, pos), pos), pos);
}

Value erfinv(Function& fn, Value x) {
  requireF32(x, "erfinv");
  Value one = splat(fn, 1, x);
  Value w = fn.negate(fn.log(fn.multiply(fn.subtract(one, x), fn.add(one, x))));
  Value central = poly(fn, fn.subtract(w, splat(fn, 2.5, w)), kErfinvCentral);
  Value tail = poly(fn, fn.subtract(fn.sqrt(w), splat(fn, 3, w)), kErfinvTail);
  Value r = fn.multiply(x, fn.select(cmpK(fn, w, 5, Dir::kLt), central, tail));
  const double inf = std::numeric_limits<double>::infinity();
  return fn.select(cmpK(fn, fn.abs(x), 1, Dir::kEq), fn.multiply(x, splat(fn, inf, x)), r);
}

Value sinh(Function& fn, Value x) {
  Value a = fn.abs(x);
  Value half = splat(fn, 0.5, a);
  // |x| < 1: (em + em / (em + 1)) / 2 with em = expm1(|x|), no cancellation.
  Value em = fn.unary(UnaryOp::kExponentialMinusOne, a);
  Value small = fn.multiply(half, fn.add(em, fn.divide(em, fn.add(em, splat(fn, 1, em)))));
  // Otherwise e^|x| / 2 - e^-|x| / 2 from e = exp(|x| / 2), which cannot overflow early.
  Value e = fn.exp(fn.multiply(a, half));
  Value big = fn.subtract(fn.multiply(fn.multiply(half, e), e), fn.divide(half, fn.multiply(e, e)));
  Value r = fn.select(cmpK(fn, a, 1, Dir::kLt), small, big);
  return fn.select(signbit(fn, x), fn.negate(r), r);
}

Value cosh(Function& fn, Value x) {
  Value a = fn.abs(x);
  Value half = splat(fn, 0.5, a);
  Value e = fn.exp(fn.multiply(a, half));
  return fn.add(fn.multiply(fn.multiply(half, e), e), fn.divide(half, fn.multiply(e, e)));
}

Value asin(Function& fn, Value x) {
  Value one = splat(fn, 1, x);
  return fn.binary(BinaryOp::kAtan2, x, fn.sqrt(fn.multiply(fn.subtract(one, x), fn.add(one, x))));
}

Value acos(Function& fn, Value x) {
  Value one = splat(fn, 1, x);
  return fn.binary(BinaryOp::kAtan2, fn.sqrt(fn.multiply(fn.subtract(one, x), fn.add(one, x))), x);
}

// atan by argument reduction and Taylor series, not atan2(x, 1): the XLA CPU
// plugin (0.11.2) miscomputes atan2 whose second operand is a constant splat.
// |x| > 1 uses pi/2 - atan(1/|x|); t > tan(pi/12) uses pi/6 + atan((t*sqrt3 - 1) / (t + sqrt3)),
// leaving |u| <= tan(pi/12) where the series converges fast.
Value atan(Function& fn, Value x) {
  constexpr double kPi = 3.14159265358979323846;
  constexpr double kSqrt3 = 1.73205080756887729353;
  Value a = fn.abs(x);
  Value one = splat(fn, 1, a);
  Value big = cmpK(fn, a, 1, Dir::kGt);
  Value t = fn.select(big, fn.divide(one, a), a);
  Value mid = cmpK(fn, t, 0.26794919243112270, Dir::kGt);
  Value s3 = splat(fn, kSqrt3, t);
  Value u = fn.select(mid, fn.divide(fn.subtract(fn.multiply(t, s3), one), fn.add(t, s3)), t);
  const int terms = x.dtype() == ElementType::kF64 ? 16 : 8;
  std::vector<double> coeffs;  // (-1)^k / (2k + 1), k = terms .. 1, in u^2
  for (int k = terms; k >= 1; --k) coeffs.push_back((k % 2 ? -1.0 : 1.0) / (2 * k + 1));
  Value u2 = fn.multiply(u, u);
  Value p = fn.add(u, fn.multiply(fn.multiply(u, u2), poly(fn, u2, coeffs)));
  Value r = fn.select(mid, fn.add(splat(fn, kPi / 6, p), p), p);
  r = fn.select(big, fn.subtract(splat(fn, kPi / 2, r), r), r);
  return fn.select(signbit(fn, x), fn.negate(r), r);
}

Value asinh(Function& fn, Value x) {
  Value a = fn.abs(x);
  Value one = splat(fn, 1, a);
  Value a2 = fn.multiply(a, a);
  // log1p(a + a^2 / (1 + sqrt(1 + a^2))), and log(2a) where a^2 could overflow.
  Value r = fn.unary(UnaryOp::kLogPlusOne,
                     fn.add(a, fn.divide(a2, fn.add(one, fn.sqrt(fn.add(one, a2))))));
  Value big = fn.add(fn.log(a), splat(fn, kLn2, a));
  r = fn.select(cmpK(fn, a, 1e8, Dir::kGt), big, r);
  return fn.select(signbit(fn, x), fn.negate(r), r);
}

Value acosh(Function& fn, Value x) {
  Value one = splat(fn, 1, x);
  Value xm1 = fn.subtract(x, one);
  Value r = fn.unary(UnaryOp::kLogPlusOne, fn.add(xm1, fn.sqrt(fn.multiply(xm1, fn.add(x, one)))));
  Value big = fn.add(fn.log(x), splat(fn, kLn2, x));
  return fn.select(cmpK(fn, x, 1e8, Dir::kGt), big, r);
}

Value atanh(Function& fn, Value x) {
  Value a = fn.abs(x);
  Value r = fn.multiply(
      splat(fn, 0.5, a),
      fn.unary(UnaryOp::kLogPlusOne, fn.divide(fn.add(a, a), fn.subtract(splat(fn, 1, a), a))));
  return fn.select(signbit(fn, x), fn.negate(r), r);
}

// ---- whole ops ----------------------------------------------------------------

// add / sub / mul / div with a complex operand: promotion to the complex
// result type (complex64 for a complex Python number with a float32 tensor),
// then StableHLO's complex arithmetic.
namespace {
Value complexArith(Function& fn, Binary op, const Operand& a, const Operand& b,
                   std::optional<Value> alpha) {
  const ElementType t = resultType({a, b});
  if (!runtime::isComplex(t)) throw LoweringError("complex operands are not lowered");
  const std::vector<int64_t> dims = broadcastShapes({a.value.dims(), b.value.dims()});
  Value x = fit(fn, a.value, t, dims), y = fit(fn, b.value, t, dims);
  if (alpha && (op == Binary::kAdd || op == Binary::kSub)) y = fn.multiply(like(fn, *alpha, y), y);
  switch (op) {
    case Binary::kAdd:
      return fn.add(x, y);
    case Binary::kSub:
      return fn.subtract(x, y);
    case Binary::kMul:
      return fn.multiply(x, y);
    case Binary::kDiv:
      return fn.divide(x, y);
    default:
      throw LoweringError("complex operands are not lowered");
  }
}
}  // namespace

Value binary(Function& fn, Binary op, const Operand& a, const Operand& b,
             std::optional<Value> alpha) {
  const bool arith =
      op == Binary::kAdd || op == Binary::kSub || op == Binary::kMul || op == Binary::kDiv;
  if (arith && (runtime::isComplex(a.value.dtype()) || runtime::isComplex(b.value.dtype()) ||
                (alpha && runtime::isComplex(alpha->dtype())))) {
    return complexArith(fn, op, a, b, alpha);
  }
  const bool roundSecond =
      !(op == Binary::kMul || op == Binary::kDiv || (op == Binary::kPow && b.isScalar));
  Prepared p = prepare(fn, {a, b}, op == Binary::kDiv ? Promote::kIntToFloat : Promote::kNone,
                       /*opmath=*/true, roundSecond);
  Value x = p.values[0], y = p.values[1];
  const bool isBool = p.compute == ElementType::kPred;
  if (alpha && (op == Binary::kAdd || op == Binary::kSub)) {
    Value al = like(fn, *alpha, y);
    y = isBool ? land(fn, y, al) : fn.multiply(al, y);
  }
  switch (op) {
    case Binary::kAdd:
      return isBool ? lor(fn, x, y) : fn.add(x, y);
    case Binary::kSub:
      if (isBool) throw LoweringError("subtraction of booleans");
      return fn.subtract(x, y);
    case Binary::kMul:
      return isBool ? land(fn, x, y) : fn.multiply(x, y);
    case Binary::kDiv:
      return fn.divide(x, y);
    case Binary::kMaximum:
    case Binary::kClampMin:
      return maxNan(fn, x, y);
    case Binary::kMinimum:
    case Binary::kClampMax:
      return minNan(fn, x, y);
    case Binary::kPow:
      return pow(fn, x, y);
  }
  throw LoweringError("unknown binary op");
}

Value addcmul(Function& fn, const Operand& self, const Operand& t1, const Operand& t2,
              Value value) {
  Prepared p = prepare(fn, {self, t1, t2});
  if (p.compute == ElementType::kPred) throw LoweringError("addcmul of booleans");
  Value v = like(fn, value, p.values[1]);
  return fn.add(p.values[0], fn.multiply(fn.multiply(v, p.values[1]), p.values[2]));
}

Value addcdiv(Function& fn, const Operand& self, const Operand& t1, const Operand& t2,
              Value value) {
  Prepared p = prepare(fn, {self, t1, t2});
  if (!isFloat(p.compute)) throw LoweringError("integer addcdiv");
  Value v = like(fn, value, p.values[1]);
  return fn.add(p.values[0], fn.divide(fn.multiply(v, p.values[1]), p.values[2]));
}

Value lerp(Function& fn, const Operand& self, const Operand& end, const Operand& weight) {
  Prepared p = prepare(fn, {self, end, weight});
  if (!isFloat(p.compute)) throw LoweringError("lerp needs floating-point tensors");
  Value s = p.values[0], e = p.values[1], w = p.values[2];
  Value diff = fn.subtract(e, s);
  Value lo = fn.add(s, fn.multiply(w, diff));
  Value hi = fn.subtract(e, fn.multiply(diff, fn.subtract(splat(fn, 1, w), w)));
  return fn.select(cmpK(fn, fn.abs(w), 0.5, Dir::kLt), lo, hi);
}

namespace {

// |z| (real result), -z and sgn (z / |z|, 0 at 0); other complex math is not
// lowered.
Value complexUnary(Function& fn, Unary op, Value x) {
  if (op == Unary::kAbs) return fn.abs(x);
  if (op == Unary::kNeg) return fn.negate(x);
  if (op == Unary::kSign) return fn.unary(hlo::UnaryOp::kSign, x);
  throw LoweringError("complex operands are not lowered");
}

// Integers and booleans, for the ops that keep them.
Value integerUnary(Function& fn, Unary op, Value x) {
  switch (op) {
    case Unary::kAbs:
      return (runtime::isSigned(x.dtype())) ? fn.abs(x) : x;
    case Unary::kNeg:
      if (x.dtype() == ElementType::kPred) throw LoweringError("negation of booleans");
      return fn.negate(x);
    case Unary::kSign:
      return sign(fn, x);
    case Unary::kFrac:
      return splat(fn, 0, x);
    default:
      return x;  // floor/ceil/round/trunc of an integer
  }
}

// Floating-point operands, in their accumulation type (accType).
Value floatUnary(Function& fn, Unary op, Value x) {
  switch (op) {
    case Unary::kAbs:
      return fn.abs(x);
    case Unary::kNeg:
      return fn.negate(x);
    case Unary::kSign:
      return sign(fn, x);
    case Unary::kSqrt:
      return fn.sqrt(x);
    case Unary::kRsqrt:
      return fn.unary(UnaryOp::kRsqrt, x);
    case Unary::kExp:
      return fn.exp(x);
    case Unary::kExp2:
      return fn.binary(BinaryOp::kPower, splat(fn, 2, x), x);
    case Unary::kExpm1:
      return fn.unary(UnaryOp::kExponentialMinusOne, x);
    case Unary::kLog:
      return fn.log(x);
    case Unary::kLog2:
      return fn.divide(fn.log(x), splat(fn, kLn2, x));
    case Unary::kLog10:
      return fn.divide(fn.log(x), splat(fn, kLn10, x));
    case Unary::kLog1p:
      return fn.unary(UnaryOp::kLogPlusOne, x);
    case Unary::kSin:
      return fn.unary(UnaryOp::kSine, x);
    case Unary::kCos:
      return fn.unary(UnaryOp::kCosine, x);
    case Unary::kTan:
      return fn.unary(UnaryOp::kTan, x);
    case Unary::kAsin:
      return asin(fn, x);
    case Unary::kAcos:
      return acos(fn, x);
    case Unary::kAtan:
      return atan(fn, x);
    case Unary::kSinh:
      return sinh(fn, x);
    case Unary::kCosh:
      return cosh(fn, x);
    case Unary::kTanh:
      return fn.unary(UnaryOp::kTanh, x);
    case Unary::kAsinh:
      return asinh(fn, x);
    case Unary::kAcosh:
      return acosh(fn, x);
    case Unary::kAtanh:
      return atanh(fn, x);
    case Unary::kErf:
      return erf(fn, x);
    case Unary::kErfc:
      return erfc(fn, x);
    case Unary::kErfinv:
      return erfinv(fn, x);
    case Unary::kFloor:
      return fn.unary(UnaryOp::kFloor, x);
    case Unary::kCeil:
      return fn.unary(UnaryOp::kCeil, x);
    case Unary::kRound:
      return fn.unary(UnaryOp::kRoundNearestEven, x);
    case Unary::kTrunc:
      return trunc(fn, x);
    case Unary::kFrac:
      return fn.subtract(x, trunc(fn, x));
    case Unary::kReciprocal:
      return fn.divide(splat(fn, 1, x), x);
    case Unary::kSigmoid:
      return fn.unary(UnaryOp::kLogistic, x);
  }
  throw LoweringError("unknown unary op");
}

}  // namespace

Value unary(Function& fn, Unary op, Value x) {
  ElementType t = x.dtype();
  if (runtime::isComplex(t)) return complexUnary(fn, op, x);
  const bool keepsIntegers = op == Unary::kAbs || op == Unary::kNeg || op == Unary::kSign ||
                             op == Unary::kFloor || op == Unary::kCeil || op == Unary::kRound ||
                             op == Unary::kTrunc || op == Unary::kFrac;
  if (!isFloat(t) && !keepsIntegers) t = ElementType::kF32;
  x = castTo(fn, x, accType(t));
  if (!isFloat(x.dtype())) return integerUnary(fn, op, x);
  return floatUnary(fn, op, x);
}

}  // namespace torchtpu::lower::ew
