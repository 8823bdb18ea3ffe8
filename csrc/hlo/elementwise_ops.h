// The elementwise unary and binary StableHLO ops, their MLIR names and the
// element types each accepts.
#pragma once

#include <string_view>

#include "runtime/element_type.h"

namespace torchtpu::hlo {

using runtime::ElementType;

enum class UnaryOp {
  kAbs,
  kNegate,
  kSign,
  kFloor,
  kCeil,
  kRoundNearestEven,
  kRoundNearestAfz,
  kExponential,
  kExponentialMinusOne,
  kLog,
  kLogPlusOne,
  kLogistic,
  kSqrt,
  kRsqrt,
  kCbrt,
  kSine,
  kCosine,
  kTan,
  kTanh,
  kNot,
  kPopcnt,
  kCountLeadingZeros,
  kIsFinite,
  kReal,
  kImag,
};

enum class BinaryOp {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kRemainder,
  kPower,
  kMaximum,
  kMinimum,
  kAnd,
  kOr,
  kXor,
  kShiftLeft,
  kShiftRightArithmetic,
  kShiftRightLogical,
  kAtan2,
  kComplex,  // (f32, f32) -> complex<f32>, (f64, f64) -> complex<f64>
};

// Full MLIR op name, e.g. "stablehlo.round_nearest_even".
std::string_view opName(UnaryOp op);
std::string_view opName(BinaryOp op);

// Whether the op is defined for operands of element type `t`.
bool accepts(UnaryOp op, ElementType t);
bool accepts(BinaryOp op, ElementType t);

// Human-readable list of the accepted element types, for error messages
// ("floating-point or complex").
std::string_view acceptedTypesText(UnaryOp op);
std::string_view acceptedTypesText(BinaryOp op);

// Result element type for an accepted operand element type: usually `t`;
// abs/real/imag of complex give the real part's type, is_finite gives i1,
// complex gives the complex type.
ElementType resultElementType(UnaryOp op, ElementType t);
ElementType resultElementType(BinaryOp op, ElementType t);

// complex<f32> -> f32, complex<f64> -> f64; other types unchanged.
ElementType realPartType(ElementType t);

}  // namespace torchtpu::hlo
