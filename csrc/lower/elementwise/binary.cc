// Elementwise binary arithmetic with PyTorch's type promotion (result_type:
// tensors over 0-d tensors over Python scalars), broadcasting, and f16/bf16
// computed in f32: add, sub, rsub, mul, div, floor_divide, remainder, fmod,
// pow, maximum / minimum, fmax / fmin, atan2, hypot, copysign, the bitwise and
// logical ops, lerp, addcmul, addcdiv and heaviside. Functional, in-place and
// out= overloads share a lowering.
#include "lower/core/device_checks.h"
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using ew::Binary;
using ew::operand;
using ew::Promote;

std::optional<Value> alphaOf(const LowerCtx& c) {
  if (c.isNone("alpha")) return std::nullopt;
  return c.scalar("alpha");
}

// Prepares (self, other) and applies a kernel.
template <typename Kernel>
std::vector<Value> applyBinary(LowerCtx& c, const char* lhs, const char* rhs, Promote promote,
                               Kernel kernel) {
  ew::Prepared p = ew::prepare(c.fn, {operand(c, lhs), operand(c, rhs)}, promote);
  return {kernel(c.fn, p.values[0], p.values[1])};
}

// Integer division and remainder (trunc / floor div, floor_divide, remainder,
// fmod): an integer divisor of 0 raises ZeroDivisionError on the CPU (a
// device-side check here; the device itself gives XLA's value).
template <typename Kernel>
std::vector<Value> applyDivision(LowerCtx& c, Kernel kernel, bool roundDivisor = true) {
  ew::Prepared p = ew::prepare(c.fn, {operand(c, "self"), operand(c, "other")}, Promote::kNone,
                               /*opmath=*/true, roundDivisor);
  if (runtime::isInteger(p.compute)) {
    Value b = p.values[1];
    checkNone(
        c,
        [b](Function& f) {
          return f.compare(b, ew::splat(f, 0, b), hlo::ComparisonDirection::kEq);
        },
        DeviceCheck::Error::kRuntime, "ZeroDivisionError");
  }
  return {kernel(c.fn, p.values[0], p.values[1])};
}

std::vector<Value> lowerAdd(LowerCtx& c) {
  return {ew::binary(c.fn, Binary::kAdd, operand(c, "self"), operand(c, "other"), alphaOf(c))};
}
const Registrar kAdd({"aten::add.Tensor", "aten::add.Scalar", "aten::add.out",
                      "aten::add.Scalar_out", "aten::add_.Tensor", "aten::add_.Scalar"},
                     lowerAdd);

std::vector<Value> lowerSub(LowerCtx& c) {
  return {ew::binary(c.fn, Binary::kSub, operand(c, "self"), operand(c, "other"), alphaOf(c))};
}
const Registrar kSub({"aten::sub.Tensor", "aten::sub.Scalar", "aten::sub.out",
                      "aten::sub.Scalar_out", "aten::sub_.Tensor", "aten::sub_.Scalar"},
                     lowerSub);

// rsub: other - alpha * self.
std::vector<Value> lowerRsub(LowerCtx& c) {
  return {ew::binary(c.fn, Binary::kSub, operand(c, "other"), operand(c, "self"), alphaOf(c))};
}
const Registrar kRsub({"aten::rsub.Tensor", "aten::rsub.Scalar", "aten::rsub.Tensor_out",
                       "aten::rsub.Scalar_out"},
                      lowerRsub);

std::vector<Value> lowerMul(LowerCtx& c) {
  return {ew::binary(c.fn, Binary::kMul, operand(c, "self"), operand(c, "other"))};
}
const Registrar kMul({"aten::mul.Tensor", "aten::mul.Scalar", "aten::mul.out",
                      "aten::mul.Scalar_out", "aten::mul_.Tensor", "aten::mul_.Scalar"},
                     lowerMul);

// div: true division (integers compute in float32), or rounding_mode
// "trunc" / "floor" (integers stay integers).
std::vector<Value> lowerDiv(LowerCtx& c) {
  if (c.isNone("rounding_mode")) {
    return {ew::binary(c.fn, Binary::kDiv, operand(c, "self"), operand(c, "other"))};
  }
  const std::string mode = c.str("rounding_mode");
  // The CPU's rounding divisions read a number divisor at full precision.
  if (mode == "trunc") return applyDivision(c, ew::truncDiv, false);
  if (mode == "floor") return applyDivision(c, ew::floorDiv, false);
  c.fail("unknown rounding_mode '" + mode + "'");
}
const Registrar kDiv({"aten::div.Tensor", "aten::div.Scalar", "aten::div.Tensor_mode",
                      "aten::div.Scalar_mode", "aten::div.out", "aten::div.out_mode",
                      "aten::div.Scalar_out", "aten::div.Scalar_mode_out", "aten::div_.Tensor",
                      "aten::div_.Tensor_mode", "aten::div_.Scalar", "aten::div_.Scalar_mode"},
                     lowerDiv);

const Registrar kFloorDivide({"aten::floor_divide", "aten::floor_divide.Scalar",
                              "aten::floor_divide.out", "aten::floor_divide.Scalar_out",
                              "aten::floor_divide_.Tensor", "aten::floor_divide_.Scalar"},
                             [](LowerCtx& c) { return applyDivision(c, ew::floorDiv, false); });

// remainder: Python's modulo (result has the divisor's sign).
const Registrar kRemainder({"aten::remainder.Tensor", "aten::remainder.Scalar",
                            "aten::remainder.Scalar_Tensor", "aten::remainder.Tensor_out",
                            "aten::remainder.Scalar_out", "aten::remainder.Scalar_Tensor_out",
                            "aten::remainder_.Tensor", "aten::remainder_.Scalar"},
                           [](LowerCtx& c) { return applyDivision(c, ew::remainder); });

// fmod: C's fmod (result has the dividend's sign).
const Registrar kFmod({"aten::fmod.Tensor", "aten::fmod.Scalar", "aten::fmod.Tensor_out",
                       "aten::fmod.Scalar_out", "aten::fmod_.Tensor", "aten::fmod_.Scalar"},
                      [](LowerCtx& c) { return applyDivision(c, ew::fmod); });

std::vector<Value> lowerPow(LowerCtx& c) {
  const Operand base = operand(c, "self"), exponent = operand(c, "exponent");
  // A bool tensor to a bool tensor's power: the CPU kernel raises
  // NotImplementedError (the fallback gives that error); a bool Python
  // exponent is x ** False == True, x ** True == x.
  if (base.value.dtype() == ElementType::kPred && exponent.value.dtype() == ElementType::kPred &&
      !exponent.isScalar) {
    c.fail("pow of bool tensors is not implemented for 'Bool'");
  }
  return {ew::binary(c.fn, Binary::kPow, base, exponent)};
}
const Registrar kPow({"aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar", "aten::pow.Scalar",
                      "aten::pow.Tensor_Tensor_out", "aten::pow.Tensor_Scalar_out",
                      "aten::pow.Scalar_out", "aten::pow_.Tensor", "aten::pow_.Scalar"},
                     lowerPow);

// maximum / minimum propagate NaN; fmax / fmin ignore it.
const Registrar kMaximum({"aten::maximum", "aten::maximum.out"}, [](LowerCtx& c) {
  return applyBinary(c, "self", "other", Promote::kNone, ew::maxNan);
});
const Registrar kMinimum({"aten::minimum", "aten::minimum.out"}, [](LowerCtx& c) {
  return applyBinary(c, "self", "other", Promote::kNone, ew::minNan);
});
const Registrar kFmax({"aten::fmax", "aten::fmax.out"}, [](LowerCtx& c) {
  return applyBinary(c, "self", "other", Promote::kNone, ew::fmax);
});
const Registrar kFmin({"aten::fmin", "aten::fmin.out"}, [](LowerCtx& c) {
  return applyBinary(c, "self", "other", Promote::kNone, ew::fmin);
});

const Registrar kAtan2({"aten::atan2", "aten::atan2.out", "aten::atan2_"}, [](LowerCtx& c) {
  return applyBinary(c, "self", "other", Promote::kIntToFloat, [](Function& fn, Value a, Value b) {
    return fn.binary(hlo::BinaryOp::kAtan2, a, b);
  });
});
const Registrar kHypot({"aten::hypot", "aten::hypot.out", "aten::hypot_"}, [](LowerCtx& c) {
  return applyBinary(c, "self", "other", Promote::kIntToFloat, ew::hypot);
});
const Registrar kCopysign({"aten::copysign.Tensor", "aten::copysign.Scalar", "aten::copysign.out",
                           "aten::copysign.Scalar_out", "aten::copysign_.Tensor",
                           "aten::copysign_.Scalar"},
                          [](LowerCtx& c) {
                            return applyBinary(c, "self", "other", Promote::kIntToFloat,
                                               ew::copysign);
                          });

// Bitwise ops on integers and booleans.
template <hlo::BinaryOp Op>
std::vector<Value> lowerBitwise(LowerCtx& c) {
  ew::Prepared p = ew::prepare(c.fn, {operand(c, "self"), operand(c, "other")});
  if (ew::isFloat(p.compute)) c.fail("bitwise ops need integer or boolean operands");
  return {c.fn.binary(Op, p.values[0], p.values[1])};
}
const Registrar kBitwiseAnd({"aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar",
                             "aten::bitwise_and.Scalar_Tensor", "aten::bitwise_and.Tensor_out",
                             "aten::bitwise_and.Scalar_out", "aten::bitwise_and.Scalar_Tensor_out",
                             "aten::bitwise_and_.Tensor", "aten::bitwise_and_.Scalar"},
                            lowerBitwise<hlo::BinaryOp::kAnd>);
const Registrar kBitwiseOr({"aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar",
                            "aten::bitwise_or.Scalar_Tensor", "aten::bitwise_or.Tensor_out",
                            "aten::bitwise_or.Scalar_out", "aten::bitwise_or.Scalar_Tensor_out",
                            "aten::bitwise_or_.Tensor", "aten::bitwise_or_.Scalar"},
                           lowerBitwise<hlo::BinaryOp::kOr>);
const Registrar kBitwiseXor({"aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar",
                             "aten::bitwise_xor.Scalar_Tensor", "aten::bitwise_xor.Tensor_out",
                             "aten::bitwise_xor.Scalar_out", "aten::bitwise_xor.Scalar_Tensor_out",
                             "aten::bitwise_xor_.Tensor", "aten::bitwise_xor_.Scalar"},
                            lowerBitwise<hlo::BinaryOp::kXor>);
const Registrar kBitwiseNot({"aten::bitwise_not", "aten::bitwise_not.out", "aten::bitwise_not_"},
                            [](LowerCtx& c) -> std::vector<Value> {
                              Value x = c.tensor("self");
                              if (ew::isFloat(x.dtype()) || runtime::isComplex(x.dtype())) {
                                c.fail("bitwise_not needs an integer or boolean tensor");
                              }
                              return {c.fn.unary(hlo::UnaryOp::kNot, x)};
                            });

// Logical ops: operands are truth values (x != 0, NaN is true); the result is bool.
Value truth(Function& fn, Value x) {
  if (x.dtype() == ElementType::kPred) return x;
  if (runtime::isComplex(x.dtype())) throw LoweringError("complex operands are not lowered");
  return fn.compare(x, ew::splat(fn, 0, x), hlo::ComparisonDirection::kNe);
}
template <hlo::BinaryOp Op>
std::vector<Value> lowerLogical(LowerCtx& c) {
  Value a = c.tensor("self"), b = c.tensor("other");
  const std::vector<int64_t> dims = broadcastShapes({a.dims(), b.dims()});
  return {c.fn.binary(Op, broadcastTo(c.fn, truth(c.fn, a), dims),
                      broadcastTo(c.fn, truth(c.fn, b), dims))};
}
const Registrar kLogicalAnd({"aten::logical_and", "aten::logical_and.out", "aten::logical_and_"},
                            lowerLogical<hlo::BinaryOp::kAnd>);
const Registrar kLogicalOr({"aten::logical_or", "aten::logical_or.out", "aten::logical_or_"},
                           lowerLogical<hlo::BinaryOp::kOr>);
const Registrar kLogicalXor({"aten::logical_xor", "aten::logical_xor.out", "aten::logical_xor_"},
                            lowerLogical<hlo::BinaryOp::kXor>);
const Registrar kLogicalNot({"aten::logical_not", "aten::logical_not.out", "aten::logical_not_"},
                            [](LowerCtx& c) -> std::vector<Value> {
                              return {
                                  c.fn.unary(hlo::UnaryOp::kNot, truth(c.fn, c.tensor("self")))};
                            });

// lerp(self, end, weight) with a Scalar or Tensor weight.
const Registrar kLerp({"aten::lerp.Scalar", "aten::lerp.Tensor", "aten::lerp.Scalar_out",
                       "aten::lerp.Tensor_out", "aten::lerp_.Scalar", "aten::lerp_.Tensor"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        return {ew::lerp(c.fn, operand(c, "self"), operand(c, "end"),
                                         operand(c, "weight"))};
                      });

const Registrar kAddcmul({"aten::addcmul", "aten::addcmul.out", "aten::addcmul_"},
                         [](LowerCtx& c) -> std::vector<Value> {
                           return {ew::addcmul(c.fn, operand(c, "self"), operand(c, "tensor1"),
                                               operand(c, "tensor2"), c.scalar("value"))};
                         });
const Registrar kAddcdiv({"aten::addcdiv", "aten::addcdiv.out", "aten::addcdiv_"},
                         [](LowerCtx& c) -> std::vector<Value> {
                           return {ew::addcdiv(c.fn, operand(c, "self"), operand(c, "tensor1"),
                                               operand(c, "tensor2"), c.scalar("value"))};
                         });

// heaviside(x, v): 0 for x < 0, v for x == 0, 1 for x > 0, and 0 for NaN (the
// CPU kernel's x == 0 ? v : x > 0).
const Registrar kHeaviside(
    {"aten::heaviside", "aten::heaviside.out", "aten::heaviside_"}, [](LowerCtx& c) {
      return applyBinary(c, "self", "values", Promote::kNone, [](Function& fn, Value x, Value v) {
        Value zero = ew::splat(fn, 0, x);
        Value one = ew::splat(fn, 1, x);
        Value pos = fn.select(fn.compare(x, zero, hlo::ComparisonDirection::kGt), one, zero);
        return fn.select(fn.compare(x, zero, hlo::ComparisonDirection::kEq), v, pos);
      });
    });

}  // namespace
}  // namespace torchtpu::lower
