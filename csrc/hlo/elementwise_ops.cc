#include "hlo/elementwise_ops.h"

namespace torchtpu::hlo {

namespace {

// Element type classes, combined as a bit mask per op.
enum : unsigned {
  kB = 1,   // i1
  kS = 2,   // signed integers
  kU = 4,   // unsigned integers
  kF = 8,   // floating point
  kC = 16,  // complex
};

unsigned classOf(ElementType t) {
  if (t == ElementType::kPred) return kB;
  if (runtime::isSigned(t)) return kS;
  if (runtime::isUnsigned(t)) return kU;
  if (runtime::isFloating(t)) return kF;
  return kC;
}

std::string_view classesText(unsigned mask) {
  switch (mask) {
    case kB | kS | kU | kF | kC:
      return "any";
    case kS | kU | kF | kC:
      return "integer, floating-point or complex";
    case kB | kS | kU | kF:
      return "boolean, integer or floating-point";
    case kS | kU | kF:
      return "integer or floating-point";
    case kS | kF | kC:
      return "signed integer, floating-point or complex";
    case kF | kC:
      return "floating-point or complex";
    case kF:
      return "floating-point";
    case kB | kS | kU:
      return "boolean or integer";
    case kS | kU:
      return "integer";
    default:
      return "(unknown)";
  }
}

struct UnaryInfo {
  std::string_view name;
  unsigned accepted;
};

UnaryInfo info(UnaryOp op) {
  switch (op) {
    case UnaryOp::kAbs:
      return {"stablehlo.abs", kS | kF | kC};
    case UnaryOp::kNegate:
      return {"stablehlo.negate", kS | kU | kF | kC};
    case UnaryOp::kSign:
      return {"stablehlo.sign", kS | kF | kC};
    case UnaryOp::kFloor:
      return {"stablehlo.floor", kF};
    case UnaryOp::kCeil:
      return {"stablehlo.ceil", kF};
    case UnaryOp::kRoundNearestEven:
      return {"stablehlo.round_nearest_even", kF};
    case UnaryOp::kRoundNearestAfz:
      return {"stablehlo.round_nearest_afz", kF};
    case UnaryOp::kExponential:
      return {"stablehlo.exponential", kF | kC};
    case UnaryOp::kExponentialMinusOne:
      return {"stablehlo.exponential_minus_one", kF | kC};
    case UnaryOp::kLog:
      return {"stablehlo.log", kF | kC};
    case UnaryOp::kLogPlusOne:
      return {"stablehlo.log_plus_one", kF | kC};
    case UnaryOp::kLogistic:
      return {"stablehlo.logistic", kF | kC};
    case UnaryOp::kSqrt:
      return {"stablehlo.sqrt", kF | kC};
    case UnaryOp::kRsqrt:
      return {"stablehlo.rsqrt", kF | kC};
    case UnaryOp::kCbrt:
      return {"stablehlo.cbrt", kF};
    case UnaryOp::kSine:
      return {"stablehlo.sine", kF | kC};
    case UnaryOp::kCosine:
      return {"stablehlo.cosine", kF | kC};
    case UnaryOp::kTan:
      return {"stablehlo.tan", kF | kC};
    case UnaryOp::kTanh:
      return {"stablehlo.tanh", kF | kC};
    case UnaryOp::kNot:
      return {"stablehlo.not", kB | kS | kU};
    case UnaryOp::kPopcnt:
      return {"stablehlo.popcnt", kS | kU};
    case UnaryOp::kCountLeadingZeros:
      return {"stablehlo.count_leading_zeros", kS | kU};
    case UnaryOp::kIsFinite:
      return {"stablehlo.is_finite", kF};
    case UnaryOp::kReal:
      return {"stablehlo.real", kF | kC};
    case UnaryOp::kImag:
      return {"stablehlo.imag", kF | kC};
  }
  return {"(unknown)", 0};
}

UnaryInfo info(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return {"stablehlo.add", kB | kS | kU | kF | kC};
    case BinaryOp::kSubtract:
      return {"stablehlo.subtract", kS | kU | kF | kC};
    case BinaryOp::kMultiply:
      return {"stablehlo.multiply", kB | kS | kU | kF | kC};
    case BinaryOp::kDivide:
      return {"stablehlo.divide", kS | kU | kF | kC};
    case BinaryOp::kRemainder:
      return {"stablehlo.remainder", kS | kU | kF};
    case BinaryOp::kPower:
      return {"stablehlo.power", kS | kU | kF | kC};
    case BinaryOp::kMaximum:
      return {"stablehlo.maximum", kB | kS | kU | kF};
    case BinaryOp::kMinimum:
      return {"stablehlo.minimum", kB | kS | kU | kF};
    case BinaryOp::kAnd:
      return {"stablehlo.and", kB | kS | kU};
    case BinaryOp::kOr:
      return {"stablehlo.or", kB | kS | kU};
    case BinaryOp::kXor:
      return {"stablehlo.xor", kB | kS | kU};
    case BinaryOp::kShiftLeft:
      return {"stablehlo.shift_left", kS | kU};
    case BinaryOp::kShiftRightArithmetic:
      return {"stablehlo.shift_right_arithmetic", kS | kU};
    case BinaryOp::kShiftRightLogical:
      return {"stablehlo.shift_right_logical", kS | kU};
    case BinaryOp::kAtan2:
      return {"stablehlo.atan2", kF | kC};
    case BinaryOp::kComplex:
      return {"stablehlo.complex", kF};
  }
  return {"(unknown)", 0};
}

}  // namespace

std::string_view opName(UnaryOp op) { return info(op).name; }
std::string_view opName(BinaryOp op) { return info(op).name; }

bool accepts(UnaryOp op, ElementType t) { return (info(op).accepted & classOf(t)) != 0; }

bool accepts(BinaryOp op, ElementType t) {
  if (op == BinaryOp::kComplex) return t == ElementType::kF32 || t == ElementType::kF64;
  return (info(op).accepted & classOf(t)) != 0;
}

std::string_view acceptedTypesText(UnaryOp op) { return classesText(info(op).accepted); }

std::string_view acceptedTypesText(BinaryOp op) {
  if (op == BinaryOp::kComplex) return "f32 or f64";
  return classesText(info(op).accepted);
}

ElementType realPartType(ElementType t) {
  if (t == ElementType::kC64) return ElementType::kF32;
  if (t == ElementType::kC128) return ElementType::kF64;
  return t;
}

ElementType resultElementType(UnaryOp op, ElementType t) {
  switch (op) {
    case UnaryOp::kAbs:
    case UnaryOp::kReal:
    case UnaryOp::kImag:
      return realPartType(t);
    case UnaryOp::kIsFinite:
      return ElementType::kPred;
    default:
      return t;
  }
}

ElementType resultElementType(BinaryOp op, ElementType t) {
  if (op == BinaryOp::kComplex) {
    return t == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64;
  }
  return t;
}

}  // namespace torchtpu::hlo
