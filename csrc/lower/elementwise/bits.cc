// Ops on the bits of numbers: the bitwise shifts of integers
// (bitwise_left_shift / bitwise_right_shift, __lshift__ / __rshift__), and
// nextafter and frexp, which work on the bit patterns of float32 / float64 /
// bfloat16 / float16 values.
#include <cmath>
#include <string>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::UnaryOp;
using Dir = hlo::ComparisonDirection;

template <typename Kernel>
std::vector<Value> binaryOp(LowerCtx& c, ew::Promote promote, Kernel kernel,
                            const char* other = "other") {
  ew::Prepared p = ew::prepare(c.fn, {ew::operand(c, "self"), ew::operand(c, other)}, promote);
  return {kernel(c.fn, p.values[0], p.values[1])};
}

// ---- nextafter / frexp ----------------------------------------------------------------------

ElementType bitsType(ElementType t) {
  switch (t) {
    case ElementType::kF64:
      return ElementType::kS64;
    case ElementType::kF32:
      return ElementType::kS32;
    default:
      return ElementType::kS16;  // f16, bf16
  }
}

std::vector<Value> lowerNextafter(LowerCtx& c) {
  Function& fn = c.fn;
  ew::Prepared p = ew::prepare(fn, {ew::operand(c, "self"), ew::operand(c, "other")},
                               ew::Promote::kNone, /*opmath=*/false);
  Value x = p.values[0], y = p.values[1];
  if (!ew::isFloat(x.dtype())) c.fail("nextafter expects floating-point tensors");
  const ElementType bt = bitsType(x.dtype());
  Value bits = fn.bitcastConvert(x, bt);
  Value zero = ew::splat(fn, 0, x);
  Value up = fn.compare(fn.compare(y, x, Dir::kGt), fn.compare(x, zero, Dir::kGt), Dir::kEq);
  Value one = fn.constantInt(1, bt, x.dims());
  Value stepped =
      fn.bitcastConvert(fn.select(up, fn.add(bits, one), fn.subtract(bits, one)), x.dtype());
  // From zero: the smallest subnormal with y's sign.
  Value tiny = ew::copysign(fn, fn.bitcastConvert(one, x.dtype()), y);
  Value r = fn.select(fn.compare(x, zero, Dir::kEq), tiny, stepped);
  r = fn.select(fn.compare(x, y, Dir::kEq), y, r);
  Value nan = fn.binary(BinaryOp::kOr, ew::isNan(fn, x), ew::isNan(fn, y));
  return {fn.select(nan, fn.add(x, y), r)};
}
const Registrar kNextafter({"aten::nextafter", "aten::nextafter.out", "aten::nextafter_"},
                           lowerNextafter);

// frexp (float32 / float64): x = m * 2^e with 0.5 <= |m| < 1; (x, 0) for 0, inf, NaN.
std::vector<Value> lowerFrexp(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const ElementType t = x.dtype();
  if (t != ElementType::kF32 && t != ElementType::kF64) c.fail("frexp: float32/float64 only");
  const bool wide = t == ElementType::kF64;
  const ElementType bt = wide ? ElementType::kS64 : ElementType::kS32;
  const int mant = wide ? 52 : 23;
  const int64_t bias = wide ? 1022 : 126;
  const int64_t expMask = wide ? 0x7ff : 0xff;
  const int sub = wide ? 54 : 25;  // scales subnormals into the normal range
  Value zero = ew::splat(fn, 0, x);
  Value isSub = fn.compare(
      fn.abs(x), ew::splat(fn, wide ? 2.2250738585072014e-308 : 1.17549435e-38f, x), Dir::kLt);
  Value scaled = fn.select(isSub, fn.multiply(x, ew::splat(fn, std::ldexp(1.0, sub), x)), x);
  Value bits = fn.bitcastConvert(scaled, bt);
  auto k = [&](int64_t v) { return fn.constantInt(v, bt, x.dims()); };
  Value e = fn.subtract(
      fn.binary(BinaryOp::kAnd, fn.binary(BinaryOp::kShiftRightLogical, bits, k(mant)), k(expMask)),
      k(bias));
  e = fn.select(isSub, fn.subtract(e, k(sub)), e);
  Value keep = fn.binary(BinaryOp::kOr, fn.binary(BinaryOp::kShiftLeft, k(1), k(wide ? 63 : 31)),
                         fn.subtract(fn.binary(BinaryOp::kShiftLeft, k(1), k(mant)), k(1)));
  Value mbits = fn.binary(BinaryOp::kOr, fn.binary(BinaryOp::kAnd, bits, keep),
                          fn.binary(BinaryOp::kShiftLeft, k(bias), k(mant)));
  Value m = fn.bitcastConvert(mbits, t);
  Value special = fn.binary(BinaryOp::kOr, fn.compare(x, zero, Dir::kEq),
                            fn.unary(UnaryOp::kNot, fn.unary(UnaryOp::kIsFinite, x)));
  m = fn.select(special, x, m);
  e = fn.select(special, k(0), e);
  return {m, castTo(fn, e, ElementType::kS32)};
}
const Registrar kFrexp({"aten::frexp.Tensor", "aten::frexp.Tensor_out"}, lowerFrexp);

// ---- bitwise shifts ----------------------------------------------------------------------

// Shifts: PyTorch shifts by a negative amount or one >= the bit width give 0
// (left) or the sign fill (right).
Value shiftAmountClamp(Function& fn, Value s, int bits) {
  return fn.clamp(ew::splat(fn, 0, s), s, ew::splat(fn, bits, s));
}
int bitWidth(ElementType t) {
  switch (t) {
    case ElementType::kS8:
    case ElementType::kU8:
      return 8;
    case ElementType::kS16:
      return 16;
    case ElementType::kS32:
      return 32;
    default:
      return 64;
  }
}
const Registrar kShiftLeft(
    {"aten::bitwise_left_shift.Tensor", "aten::bitwise_left_shift.Tensor_Scalar",
     "aten::bitwise_left_shift.Scalar_Tensor", "aten::bitwise_left_shift.Tensor_out",
     "aten::bitwise_left_shift.Tensor_Scalar_out", "aten::bitwise_left_shift.Scalar_Tensor_out",
     "aten::bitwise_left_shift_.Tensor", "aten::bitwise_left_shift_.Tensor_Scalar",
     "aten::__lshift__.Tensor", "aten::__lshift__.Scalar", "aten::__ilshift__.Tensor",
     "aten::__ilshift__.Scalar"},
    [](LowerCtx& c) {
      return binaryOp(c, ew::Promote::kNone, [&c](Function& fn, Value a, Value b) {
        if (ew::isFloat(a.dtype())) c.fail("shifts need integer operands");
        const int bits = bitWidth(a.dtype());
        Value s = shiftAmountClamp(fn, b, bits);
        Value r = fn.binary(BinaryOp::kShiftLeft, a, s);
        Value out = fn.binary(BinaryOp::kOr, fn.compare(b, ew::splat(fn, bits, b), Dir::kGe),
                              fn.compare(b, ew::splat(fn, 0, b), Dir::kLt));
        return fn.select(out, ew::splat(fn, 0, a), r);
      });
    });
const Registrar kShiftRight(
    {"aten::bitwise_right_shift.Tensor", "aten::bitwise_right_shift.Tensor_Scalar",
     "aten::bitwise_right_shift.Scalar_Tensor", "aten::bitwise_right_shift.Tensor_out",
     "aten::bitwise_right_shift.Tensor_Scalar_out", "aten::bitwise_right_shift.Scalar_Tensor_out",
     "aten::bitwise_right_shift_.Tensor", "aten::bitwise_right_shift_.Tensor_Scalar",
     "aten::__rshift__.Tensor", "aten::__rshift__.Scalar", "aten::__irshift__.Tensor",
     "aten::__irshift__.Scalar"},
    [](LowerCtx& c) {
      return binaryOp(c, ew::Promote::kNone, [&c](Function& fn, Value a, Value b) {
        if (ew::isFloat(a.dtype())) c.fail("shifts need integer operands");
        const int bits = bitWidth(a.dtype());
        Value s = shiftAmountClamp(fn, b, bits - 1);
        s = fn.select(fn.compare(b, ew::splat(fn, 0, b), Dir::kLt), ew::splat(fn, bits - 1, b), s);
        return fn.binary(a.dtype() == ElementType::kU8 ? BinaryOp::kShiftRightLogical
                                                       : BinaryOp::kShiftRightArithmetic,
                         a, s);
      });
    });

}  // namespace
}  // namespace torchtpu::lower
