// Elementwise ops the OpInfo sweep found on the CPU fallback: logaddexp,
// logaddexp2, heaviside, bitwise shifts, xlogy-style special functions,
// frexp, ldexp helpers and vdot.
#include <cmath>

#include "hlo/comparison.h"
#include "lower/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using ew::operand;
using ew::Promote;
using hlo::BinaryOp;
using hlo::ComparisonDirection;
using hlo::UnaryOp;

template <typename Kernel>
std::vector<Value> binaryOp(LowerCtx& c, Promote promote, Kernel kernel,
                            const char* other = "other") {
  ew::Prepared p = ew::prepare(c.fn, {operand(c, "self"), operand(c, other)}, promote);
  return {kernel(c.fn, p.values[0], p.values[1])};
}

// log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)); equal infinities give
// themselves (the difference would be NaN).
Value logAddExp(Function& fn, Value a, Value b, bool base2) {
  Value m = ew::maxNan(fn, a, b);
  Value d = fn.negate(fn.abs(fn.subtract(a, b)));
  Value r;
  if (base2) {
    const double ln2 = std::log(2.0);
    Value e = fn.exp(fn.multiply(d, ew::splat(fn, ln2, d)));
    r = fn.add(m, fn.divide(fn.unary(UnaryOp::kLogPlusOne, e), ew::splat(fn, ln2, e)));
  } else {
    r = fn.add(m, fn.unary(UnaryOp::kLogPlusOne, fn.exp(d)));
  }
  Value sameInf = fn.binary(BinaryOp::kAnd, fn.compare(a, b, ComparisonDirection::kEq),
                            fn.unary(UnaryOp::kNot, fn.unary(UnaryOp::kIsFinite, a)));
  return fn.select(sameInf, a, r);
}

const Registrar kLogAddExp({"aten::logaddexp", "aten::logaddexp.out"}, [](LowerCtx& c) {
  return binaryOp(c, Promote::kIntToFloat,
                  [](Function& fn, Value a, Value b) { return logAddExp(fn, a, b, false); });
});
const Registrar kLogAddExp2({"aten::logaddexp2", "aten::logaddexp2.out"}, [](LowerCtx& c) {
  return binaryOp(c, Promote::kIntToFloat,
                  [](Function& fn, Value a, Value b) { return logAddExp(fn, a, b, true); });
});

// heaviside(x, v): 0 for x < 0, v for x == 0, 1 for x > 0, and 0 for NaN (the
// CPU kernel's x == 0 ? v : x > 0).
const Registrar kHeaviside(
    {"aten::heaviside", "aten::heaviside.out", "aten::heaviside_"}, [](LowerCtx& c) {
      return binaryOp(
          c, Promote::kNone,
          [](Function& fn, Value x, Value v) {
            Value zero = ew::splat(fn, 0, x);
            Value one = ew::splat(fn, 1, x);
            Value pos = fn.select(fn.compare(x, zero, ComparisonDirection::kGt), one, zero);
            return fn.select(fn.compare(x, zero, ComparisonDirection::kEq), v, pos);
          },
          "values");
    });

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
     "aten::__lshift__.Tensor", "aten::__lshift__.Scalar"},
    [](LowerCtx& c) {
      return binaryOp(c, Promote::kNone, [&c](Function& fn, Value a, Value b) {
        if (ew::isFloat(a.dtype())) c.fail("shifts need integer operands");
        const int bits = bitWidth(a.dtype());
        Value s = shiftAmountClamp(fn, b, bits);
        Value r = fn.binary(BinaryOp::kShiftLeft, a, s);
        Value out = fn.binary(BinaryOp::kOr,
                              fn.compare(b, ew::splat(fn, bits, b), ComparisonDirection::kGe),
                              fn.compare(b, ew::splat(fn, 0, b), ComparisonDirection::kLt));
        return fn.select(out, ew::splat(fn, 0, a), r);
      });
    });
const Registrar kShiftRight(
    {"aten::bitwise_right_shift.Tensor", "aten::bitwise_right_shift.Tensor_Scalar",
     "aten::bitwise_right_shift.Scalar_Tensor", "aten::bitwise_right_shift.Tensor_out",
     "aten::bitwise_right_shift.Tensor_Scalar_out", "aten::bitwise_right_shift.Scalar_Tensor_out",
     "aten::bitwise_right_shift_.Tensor", "aten::bitwise_right_shift_.Tensor_Scalar",
     "aten::__rshift__.Tensor", "aten::__rshift__.Scalar"},
    [](LowerCtx& c) {
      return binaryOp(c, Promote::kNone, [&c](Function& fn, Value a, Value b) {
        if (ew::isFloat(a.dtype())) c.fail("shifts need integer operands");
        const int bits = bitWidth(a.dtype());
        Value s = shiftAmountClamp(fn, b, bits - 1);
        s = fn.select(fn.compare(b, ew::splat(fn, 0, b), ComparisonDirection::kLt),
                      ew::splat(fn, bits - 1, b), s);
        return fn.binary(a.dtype() == ElementType::kU8 ? BinaryOp::kShiftRightLogical
                                                       : BinaryOp::kShiftRightArithmetic,
                         a, s);
      });
    });

// xlogy(x, y) = x * log(y), 0 where x == 0 (unless y is NaN).
Value xlogy(Function& fn, Value x, Value y, bool log1p) {
  Value l = log1p ? fn.unary(UnaryOp::kLogPlusOne, y) : fn.log(y);
  Value r = fn.multiply(x, l);
  Value zero = fn.compare(x, ew::splat(fn, 0, x), ComparisonDirection::kEq);
  r = fn.select(zero, ew::splat(fn, 0, r), r);
  return fn.select(ew::isNan(fn, y), y, r);
}
const Registrar kXlogy({"aten::xlogy.Tensor", "aten::xlogy.Scalar_Self", "aten::xlogy.Scalar_Other",
                        "aten::xlogy.OutTensor", "aten::xlogy.OutScalar_Self",
                        "aten::xlogy.OutScalar_Other", "aten::xlogy_.Tensor",
                        "aten::xlogy_.Scalar_Other", "aten::special_xlogy",
                        "aten::special_xlogy.self_scalar", "aten::special_xlogy.other_scalar"},
                       [](LowerCtx& c) {
                         return binaryOp(
                             c, Promote::kIntToFloat,
                             [](Function& fn, Value x, Value y) { return xlogy(fn, x, y, false); });
                       });
const Registrar kXlog1py({"aten::special_xlog1py", "aten::special_xlog1py.self_scalar",
                          "aten::special_xlog1py.other_scalar", "aten::special_xlog1py.out",
                          "aten::special_xlog1py.self_scalar_out",
                          "aten::special_xlog1py.other_scalar_out"},
                         [](LowerCtx& c) {
                           return binaryOp(c, Promote::kIntToFloat,
                                           [](Function& fn, Value x, Value y) {
                                             return xlogy(fn, x, y, true);
                                           });
                         });

}  // namespace
}  // namespace torchtpu::lower
