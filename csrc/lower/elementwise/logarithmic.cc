// Elementwise functions built on logarithms: logaddexp and logaddexp2,
// xlogy (and special_xlogy), special_xlog1py and special_entr.
#include <cmath>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"

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

// entr(x) = -x log x for x > 0, 0 at 0, -inf below 0, NaN for NaN.
const Registrar kEntr({"aten::special_entr", "aten::special_entr.out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Function& fn = c.fn;
                        Value x = ew::prepareArgs(c, {"self"}, ew::Promote::kIntToFloat)[0];
                        Value zero = ew::splat(fn, 0, x);
                        Value r = fn.negate(fn.multiply(x, fn.log(x)));
                        r = fn.select(fn.compare(x, zero, ComparisonDirection::kEq), zero, r);
                        r = fn.select(fn.compare(x, zero, ComparisonDirection::kLt),
                                      ew::splat(fn, -INFINITY, x), r);
                        return {fn.select(ew::isNan(fn, x), x, r)};
                      });

}  // namespace
}  // namespace torchtpu::lower
