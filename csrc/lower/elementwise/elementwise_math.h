// Building blocks shared by the elementwise lowerings (binary arithmetic,
// unary math, activations, foreach ops): PyTorch's operand preparation
// (type promotion, broadcasting, "opmath" computation type) and the numerics
// that StableHLO has no single op for (erf, sinh, floor division, ...).
// Every kernel below takes values of one shape and one element type.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "lower/core/common.h"

namespace torchtpu::lower::ew {

bool isFloat(ElementType t);  // floating point, not complex

// How integer/bool operands promote.
enum class Promote {
  kNone,        // the common type is the result type (add, mul, ...)
  kIntToFloat,  // an integral common type computes in float32 (true division, atan2, ...)
};

// Operands of an elementwise op, ready to compute with.
struct Prepared {
  std::vector<Value> values;  // broadcast to `dims`, of type `compute`
  ElementType common;         // PyTorch's common dtype (after Promote)
  ElementType compute;        // accType(common)
  std::vector<int64_t> dims;  // broadcast shape
};
// Promotes (PyTorch result_type), broadcasts and casts the operands. Throws
// LoweringError for complex operands (not lowered).
// With opmath = false the operands compute in the common type itself. As on
// the CPU, an operand of another dtype is first rounded to the common dtype;
// with roundSecond = false the second is not (the CPU's mul, div and pow of
// bfloat16 by a number read the number at full precision).
Prepared prepare(Function& fn, const std::vector<Operand>& operands,
                 Promote promote = Promote::kNone, bool opmath = true, bool roundSecond = true);

// A tensor-or-scalar argument by schema name: a Scalar argument becomes a
// Python-number operand, a Tensor argument a tensor operand.
Operand operand(const LowerCtx& c, std::string_view name);
// The named arguments of an op as operands, prepared together.
std::vector<Value> prepareArgs(const LowerCtx& c, const std::vector<const char*>& names,
                               Promote promote);

// A splat of v with x's type and shape.
Value splat(Function& fn, double v, const Value& x);
// Scalar (0-d) or same-shape value `s` cast to x's type and broadcast to x's shape.
Value like(Function& fn, Value s, const Value& x);
// Horner evaluation of sum coeffs[k] * t^(n-1-k) (highest degree first).
Value poly(Function& fn, const Value& t, const std::vector<double>& coeffs);

// ---- predicates (i1 results) --------------------------------------------
Value isNan(Function& fn, Value x);    // false for non-floats
Value signbit(Function& fn, Value x);  // sign bit set (-0.0 and -NaN too)

// ---- binary kernels ---------------------------------------------------------
Value maxNan(Function& fn, Value a, Value b);  // torch.maximum: NaN propagates
Value minNan(Function& fn, Value a, Value b);  // torch.minimum
Value fmax(Function& fn, Value a, Value b);    // NaN ignored unless both are NaN
Value fmin(Function& fn, Value a, Value b);
Value truncDiv(Function& fn, Value a, Value b);   // div(rounding_mode="trunc")
Value floorDiv(Function& fn, Value a, Value b);   // div(rounding_mode="floor"), floor_divide
Value remainder(Function& fn, Value a, Value b);  // Python modulo (sign of divisor)
Value fmod(Function& fn, Value a, Value b);       // C fmod (sign of dividend)
Value pow(Function& fn, Value a, Value b);        // integer pow follows PyTorch's powi
Value copysign(Function& fn, Value a, Value b);
Value hypot(Function& fn, Value a, Value b);

// ---- unary kernels (floating point) --------------------------------------
Value sign(Function& fn, Value x);  // torch.sign: 0 for NaN; bools unchanged
Value trunc(Function& fn, Value x);
Value erf(Function& fn, Value x);     // f32 only (LoweringError otherwise)
Value erfc(Function& fn, Value x);    // f32 only
Value erfinv(Function& fn, Value x);  // f32 only
Value sinh(Function& fn, Value x);
Value cosh(Function& fn, Value x);
Value asin(Function& fn, Value x);
Value acos(Function& fn, Value x);
Value atan(Function& fn, Value x);
Value asinh(Function& fn, Value x);
Value acosh(Function& fn, Value x);
Value atanh(Function& fn, Value x);

// ---- whole ops (promotion + broadcast + kernel) --------------------------
// Binary ops shared by the ATen lowerings and the foreach lowerings.
enum class Binary { kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kPow, kClampMin, kClampMax };
// PyTorch's op(a, b) (a + alpha * b, a - alpha * b for add/sub). The result
// is in the computation type, broadcast; the bridge casts to the result type.
Value binary(Function& fn, Binary op, const Operand& a, const Operand& b,
             std::optional<Value> alpha = std::nullopt);
// self + value * t1 * t2  /  self + value * t1 / t2.
Value addcmul(Function& fn, const Operand& self, const Operand& t1, const Operand& t2, Value value);
Value addcdiv(Function& fn, const Operand& self, const Operand& t1, const Operand& t2, Value value);
// self + weight * (end - self), PyTorch's two-sided formula.
Value lerp(Function& fn, const Operand& self, const Operand& end, const Operand& weight);

// A float-valued unary op (sqrt, exp, ...): integer inputs compute in f32.
enum class Unary {
  kAbs,
  kNeg,
  kSign,
  kSqrt,
  kRsqrt,
  kExp,
  kExp2,
  kExpm1,
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kTanh,
  kAsinh,
  kAcosh,
  kAtanh,
  kErf,
  kErfc,
  kErfinv,
  kFloor,
  kCeil,
  kRound,
  kTrunc,
  kFrac,
  kReciprocal,
  kSigmoid,
};
Value unary(Function& fn, Unary op, Value x);

}  // namespace torchtpu::lower::ew
