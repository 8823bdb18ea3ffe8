// The _foreach_* ops (what torch.optim's foreach paths call): one result per
// list element, each computed exactly like the matching single-tensor op
// (type promotion, broadcasting, opmath). In-place and out= overloads share
// the lowering; the bridge writes result i into element i of the mutated list.
// Scalar[] arguments arrive as one runtime [N] array; a Tensor `scalars`
// argument (addcmul/addcdiv .Tensor) holds one Python-number-like value per element.
#include <limits>

#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using ew::Binary;
using ew::Unary;
using Kind = ir::ArgValue::Kind;

Kind kindOf(const LowerCtx& c, std::string_view name) {
  for (size_t k = 0; k < c.call.argNames.size(); ++k) {
    if (c.call.argNames[k] == name) return c.call.args[k].kind;
  }
  c.fail("no argument named '" + std::string(name) + "'");
}

// Element k of a rank-1 value, as a 0-d value.
Value elementOf(Function& fn, const Value& v, size_t k) {
  const int64_t i = static_cast<int64_t>(k);
  return fn.reshape(fn.slice(v, {i}, {i + 1}), {});
}

// The operand that list element k sees for argument `name`.
Operand operandAt(const LowerCtx& c, std::string_view name, size_t k) {
  switch (kindOf(c, name)) {
    case Kind::kTensorList: {
      std::vector<Value> list = c.tensors(name);
      if (k >= list.size()) c.fail("tensor lists of different lengths");
      return {list[k], false};
    }
    case Kind::kScalar: {
      Value v = c.scalar(name);
      return {v.rank() == 1 ? elementOf(c.fn, v, k) : v, true};
    }
    case Kind::kTensor: {
      Value v = c.tensor(name);
      // A tensor of per-element scalars (Tensor `scalars`), or one shared tensor.
      if (name == "scalars" && v.rank() == 1) return {elementOf(c.fn, v, k), true};
      return {v, false};
    }
    default:
      c.fail("argument '" + std::string(name) + "' has an unexpected kind");
  }
}

// The first of `names` that the op has.
std::string_view pick(const LowerCtx& c, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (c.has(n)) return n;
  }
  c.fail("missing operand");
}

// Length of the op's tensor list (self, or exponent for pow.ScalarAndTensor).
size_t listLength(const LowerCtx& c) {
  if (kindOf(c, "self") == Kind::kTensorList) return c.tensors("self").size();
  return c.tensors("exponent").size();
}

std::vector<Value> lowerBinary(LowerCtx& c, Binary op) {
  const std::string_view other = pick(c, {"other", "scalar", "scalars", "exponent"});
  const size_t n = listLength(c);
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    std::optional<Value> alpha;
    if (c.has("alpha") && !c.isNone("alpha")) alpha = c.scalar("alpha");
    out.push_back(ew::binary(c.fn, op, operandAt(c, "self", k), operandAt(c, other, k), alpha));
  }
  return out;
}

std::vector<Value> lowerAddcOp(LowerCtx& c, bool isDiv) {
  const std::string_view value = pick(c, {"value", "scalars"});
  std::vector<Value> out;
  for (size_t k = 0; k < listLength(c); ++k) {
    Operand v = operandAt(c, value, k);
    Operand self = operandAt(c, "self", k), t1 = operandAt(c, "tensor1", k),
            t2 = operandAt(c, "tensor2", k);
    out.push_back(isDiv ? ew::addcdiv(c.fn, self, t1, t2, v.value)
                        : ew::addcmul(c.fn, self, t1, t2, v.value));
  }
  return out;
}

std::vector<Value> lowerLerp(LowerCtx& c) {
  const std::string_view weight = pick(c, {"weights", "weight"});
  std::vector<Value> out;
  for (size_t k = 0; k < listLength(c); ++k) {
    out.push_back(ew::lerp(c.fn, operandAt(c, "self", k), operandAt(c, "tensors1", k),
                           operandAt(c, weight, k)));
  }
  return out;
}

// p-norm of a whole tensor for a runtime `ord`: 2, 1, inf, -inf, 0 exactly,
// others as (sum |x|^p)^(1/p).
Value normOf(Function& fn, Value x, Value ord, std::optional<ElementType> dtype) {
  using hlo::BinaryOp;
  using Dir = hlo::ComparisonDirection;
  if (runtime::isComplex(x.dtype())) throw LoweringError("complex operands are not lowered");
  ElementType t = dtype.value_or(x.dtype());
  if (!ew::isFloat(t)) throw LoweringError("norm of an integer tensor");
  Value a = fn.abs(castTo(fn, x, accType(t)));
  const ElementType ct = a.dtype();
  const std::vector<int64_t> all = normDims({}, a.rank(), true);
  const double inf = std::numeric_limits<double>::infinity();
  auto sum = [&](Value v) { return fn.reduce(v, constantLike(fn, 0, ct), all, BinaryOp::kAdd); };
  Value p = castTo(fn, ord, ct);
  Value l2 = fn.sqrt(sum(fn.multiply(a, a)));
  Value l1 = sum(a);
  Value linf = fn.reduce(a, constantLike(fn, 0, ct), all, BinaryOp::kMaximum);
  Value lninf = fn.reduce(a, constantLike(fn, inf, ct), all, BinaryOp::kMinimum);
  Value l0 = sum(fn.convert(fn.compare(a, ew::splat(fn, 0, a), Dir::kNe), ct));
  Value lp = fn.binary(BinaryOp::kPower, sum(fn.binary(BinaryOp::kPower, a, ew::like(fn, p, a))),
                       fn.divide(constantLike(fn, 1, ct), p));
  auto is = [&](double v) { return fn.compare(p, constantLike(fn, v, ct), Dir::kEq); };
  Value r = fn.select(is(0), l0, lp);
  r = fn.select(is(-inf), lninf, r);
  r = fn.select(is(inf), linf, r);
  r = fn.select(is(1), l1, r);
  return fn.select(is(2), l2, r);
}

// The lowering of a binary _foreach_ op.
LowerFn binary(Binary op) {
  return [op](LowerCtx& c) { return lowerBinary(c, op); };
}

// Each overload in its functional, in-place and out= forms.
const Registrar kForeachAdd({"aten::_foreach_add.Scalar", "aten::_foreach_add_.Scalar",
                             "aten::_foreach_add.Scalar_out", "aten::_foreach_add.List",
                             "aten::_foreach_add_.List", "aten::_foreach_add.List_out",
                             "aten::_foreach_add.ScalarList", "aten::_foreach_add_.ScalarList",
                             "aten::_foreach_add.ScalarList_out", "aten::_foreach_add.Tensor",
                             "aten::_foreach_add_.Tensor", "aten::_foreach_add.Tensor_out"},
                            binary(Binary::kAdd));
const Registrar kForeachSub({"aten::_foreach_sub.Scalar", "aten::_foreach_sub_.Scalar",
                             "aten::_foreach_sub.Scalar_out", "aten::_foreach_sub.List",
                             "aten::_foreach_sub_.List", "aten::_foreach_sub.List_out",
                             "aten::_foreach_sub.ScalarList", "aten::_foreach_sub_.ScalarList",
                             "aten::_foreach_sub.ScalarList_out"},
                            binary(Binary::kSub));
const Registrar kForeachMul({"aten::_foreach_mul.Scalar", "aten::_foreach_mul_.Scalar",
                             "aten::_foreach_mul.Scalar_out", "aten::_foreach_mul.List",
                             "aten::_foreach_mul_.List", "aten::_foreach_mul.List_out",
                             "aten::_foreach_mul.ScalarList", "aten::_foreach_mul_.ScalarList",
                             "aten::_foreach_mul.ScalarList_out", "aten::_foreach_mul.Tensor",
                             "aten::_foreach_mul_.Tensor", "aten::_foreach_mul.Tensor_out"},
                            binary(Binary::kMul));
const Registrar kForeachDiv({"aten::_foreach_div.Scalar", "aten::_foreach_div_.Scalar",
                             "aten::_foreach_div.Scalar_out", "aten::_foreach_div.List",
                             "aten::_foreach_div_.List", "aten::_foreach_div.List_out",
                             "aten::_foreach_div.ScalarList", "aten::_foreach_div_.ScalarList",
                             "aten::_foreach_div.ScalarList_out", "aten::_foreach_div.Tensor",
                             "aten::_foreach_div_.Tensor", "aten::_foreach_div.Tensor_out"},
                            binary(Binary::kDiv));
const Registrar kForeachMaximum({"aten::_foreach_maximum.Scalar", "aten::_foreach_maximum_.Scalar",
                                 "aten::_foreach_maximum.Scalar_out", "aten::_foreach_maximum.List",
                                 "aten::_foreach_maximum_.List", "aten::_foreach_maximum.List_out",
                                 "aten::_foreach_maximum.ScalarList",
                                 "aten::_foreach_maximum_.ScalarList",
                                 "aten::_foreach_maximum.ScalarList_out"},
                                binary(Binary::kMaximum));
const Registrar kForeachMinimum({"aten::_foreach_minimum.Scalar", "aten::_foreach_minimum_.Scalar",
                                 "aten::_foreach_minimum.Scalar_out", "aten::_foreach_minimum.List",
                                 "aten::_foreach_minimum_.List", "aten::_foreach_minimum.List_out",
                                 "aten::_foreach_minimum.ScalarList",
                                 "aten::_foreach_minimum_.ScalarList",
                                 "aten::_foreach_minimum.ScalarList_out"},
                                binary(Binary::kMinimum));
const Registrar kForeachClampMin(
    {"aten::_foreach_clamp_min.Scalar", "aten::_foreach_clamp_min_.Scalar",
     "aten::_foreach_clamp_min.Scalar_out", "aten::_foreach_clamp_min.List",
     "aten::_foreach_clamp_min_.List", "aten::_foreach_clamp_min.List_out",
     "aten::_foreach_clamp_min.ScalarList", "aten::_foreach_clamp_min_.ScalarList",
     "aten::_foreach_clamp_min.ScalarList_out"},
    binary(Binary::kClampMin));
const Registrar kForeachClampMax(
    {"aten::_foreach_clamp_max.Scalar", "aten::_foreach_clamp_max_.Scalar",
     "aten::_foreach_clamp_max.Scalar_out", "aten::_foreach_clamp_max.List",
     "aten::_foreach_clamp_max_.List", "aten::_foreach_clamp_max.List_out",
     "aten::_foreach_clamp_max.ScalarList", "aten::_foreach_clamp_max_.ScalarList",
     "aten::_foreach_clamp_max.ScalarList_out"},
    binary(Binary::kClampMax));
const Registrar kForeachPow({"aten::_foreach_pow.Scalar", "aten::_foreach_pow_.Scalar",
                             "aten::_foreach_pow.Scalar_out", "aten::_foreach_pow.List",
                             "aten::_foreach_pow_.List", "aten::_foreach_pow.List_out",
                             "aten::_foreach_pow.ScalarList", "aten::_foreach_pow_.ScalarList",
                             "aten::_foreach_pow.ScalarList_out"},
                            binary(Binary::kPow));
const Registrar kForeachPowScalarAndTensor({"aten::_foreach_pow.ScalarAndTensor"},
                                           binary(Binary::kPow));
const Registrar kForeachAddcmul({"aten::_foreach_addcmul.Scalar", "aten::_foreach_addcmul_.Scalar",
                                 "aten::_foreach_addcmul.Scalar_out",
                                 "aten::_foreach_addcmul.ScalarList",
                                 "aten::_foreach_addcmul_.ScalarList",
                                 "aten::_foreach_addcmul.ScalarList_out",
                                 "aten::_foreach_addcmul.Tensor", "aten::_foreach_addcmul_.Tensor",
                                 "aten::_foreach_addcmul.Tensor_out"},
                                [](LowerCtx& c) { return lowerAddcOp(c, false); });
const Registrar kForeachAddcdiv({"aten::_foreach_addcdiv.Scalar", "aten::_foreach_addcdiv_.Scalar",
                                 "aten::_foreach_addcdiv.Scalar_out",
                                 "aten::_foreach_addcdiv.ScalarList",
                                 "aten::_foreach_addcdiv_.ScalarList",
                                 "aten::_foreach_addcdiv.ScalarList_out",
                                 "aten::_foreach_addcdiv.Tensor", "aten::_foreach_addcdiv_.Tensor",
                                 "aten::_foreach_addcdiv.Tensor_out"},
                                [](LowerCtx& c) { return lowerAddcOp(c, true); });
const Registrar kForeachLerp({"aten::_foreach_lerp.List", "aten::_foreach_lerp_.List",
                              "aten::_foreach_lerp.List_out", "aten::_foreach_lerp.Scalar",
                              "aten::_foreach_lerp_.Scalar", "aten::_foreach_lerp.Scalar_out",
                              "aten::_foreach_lerp.ScalarList", "aten::_foreach_lerp_.ScalarList",
                              "aten::_foreach_lerp.ScalarList_out"},
                             lowerLerp);

// The unary ops: aten::_foreach_op, aten::_foreach_op_ and aten::_foreach_op.out.
LowerFn unary(Unary op) {
  return [op](LowerCtx& c) {
    std::vector<Value> out;
    for (const Value& x : c.tensors("self")) out.push_back(ew::unary(c.fn, op, x));
    return out;
  };
}
const Registrar kForeachAbs({"aten::_foreach_abs", "aten::_foreach_abs_", "aten::_foreach_abs.out"},
                            unary(Unary::kAbs));
const Registrar kForeachAcos({"aten::_foreach_acos", "aten::_foreach_acos_",
                              "aten::_foreach_acos.out"},
                             unary(Unary::kAcos));
const Registrar kForeachAsin({"aten::_foreach_asin", "aten::_foreach_asin_",
                              "aten::_foreach_asin.out"},
                             unary(Unary::kAsin));
const Registrar kForeachAtan({"aten::_foreach_atan", "aten::_foreach_atan_",
                              "aten::_foreach_atan.out"},
                             unary(Unary::kAtan));
const Registrar kForeachCeil({"aten::_foreach_ceil", "aten::_foreach_ceil_",
                              "aten::_foreach_ceil.out"},
                             unary(Unary::kCeil));
const Registrar kForeachCos({"aten::_foreach_cos", "aten::_foreach_cos_", "aten::_foreach_cos.out"},
                            unary(Unary::kCos));
const Registrar kForeachCosh({"aten::_foreach_cosh", "aten::_foreach_cosh_",
                              "aten::_foreach_cosh.out"},
                             unary(Unary::kCosh));
const Registrar kForeachErf({"aten::_foreach_erf", "aten::_foreach_erf_", "aten::_foreach_erf.out"},
                            unary(Unary::kErf));
const Registrar kForeachErfc({"aten::_foreach_erfc", "aten::_foreach_erfc_",
                              "aten::_foreach_erfc.out"},
                             unary(Unary::kErfc));
const Registrar kForeachExp({"aten::_foreach_exp", "aten::_foreach_exp_", "aten::_foreach_exp.out"},
                            unary(Unary::kExp));
const Registrar kForeachExpm1({"aten::_foreach_expm1", "aten::_foreach_expm1_",
                               "aten::_foreach_expm1.out"},
                              unary(Unary::kExpm1));
const Registrar kForeachFloor({"aten::_foreach_floor", "aten::_foreach_floor_",
                               "aten::_foreach_floor.out"},
                              unary(Unary::kFloor));
const Registrar kForeachFrac({"aten::_foreach_frac", "aten::_foreach_frac_",
                              "aten::_foreach_frac.out"},
                             unary(Unary::kFrac));
const Registrar kForeachLog({"aten::_foreach_log", "aten::_foreach_log_", "aten::_foreach_log.out"},
                            unary(Unary::kLog));
const Registrar kForeachLog10({"aten::_foreach_log10", "aten::_foreach_log10_",
                               "aten::_foreach_log10.out"},
                              unary(Unary::kLog10));
const Registrar kForeachLog1p({"aten::_foreach_log1p", "aten::_foreach_log1p_",
                               "aten::_foreach_log1p.out"},
                              unary(Unary::kLog1p));
const Registrar kForeachLog2({"aten::_foreach_log2", "aten::_foreach_log2_",
                              "aten::_foreach_log2.out"},
                             unary(Unary::kLog2));
const Registrar kForeachNeg({"aten::_foreach_neg", "aten::_foreach_neg_", "aten::_foreach_neg.out"},
                            unary(Unary::kNeg));
const Registrar kForeachReciprocal({"aten::_foreach_reciprocal", "aten::_foreach_reciprocal_",
                                    "aten::_foreach_reciprocal.out"},
                                   unary(Unary::kReciprocal));
const Registrar kForeachRound({"aten::_foreach_round", "aten::_foreach_round_",
                               "aten::_foreach_round.out"},
                              unary(Unary::kRound));
const Registrar kForeachRsqrt({"aten::_foreach_rsqrt", "aten::_foreach_rsqrt_",
                               "aten::_foreach_rsqrt.out"},
                              unary(Unary::kRsqrt));
const Registrar kForeachSigmoid({"aten::_foreach_sigmoid", "aten::_foreach_sigmoid_",
                                 "aten::_foreach_sigmoid.out"},
                                unary(Unary::kSigmoid));
const Registrar kForeachSign({"aten::_foreach_sign", "aten::_foreach_sign_",
                              "aten::_foreach_sign.out"},
                             unary(Unary::kSign));
const Registrar kForeachSin({"aten::_foreach_sin", "aten::_foreach_sin_", "aten::_foreach_sin.out"},
                            unary(Unary::kSin));
const Registrar kForeachSinh({"aten::_foreach_sinh", "aten::_foreach_sinh_",
                              "aten::_foreach_sinh.out"},
                             unary(Unary::kSinh));
const Registrar kForeachSqrt({"aten::_foreach_sqrt", "aten::_foreach_sqrt_",
                              "aten::_foreach_sqrt.out"},
                             unary(Unary::kSqrt));
const Registrar kForeachTan({"aten::_foreach_tan", "aten::_foreach_tan_", "aten::_foreach_tan.out"},
                            unary(Unary::kTan));
const Registrar kForeachTanh({"aten::_foreach_tanh", "aten::_foreach_tanh_",
                              "aten::_foreach_tanh.out"},
                             unary(Unary::kTanh));
const Registrar kForeachTrunc({"aten::_foreach_trunc", "aten::_foreach_trunc_",
                               "aten::_foreach_trunc.out"},
                              unary(Unary::kTrunc));

const Registrar kForeachZero(
    {"aten::_foreach_zero", "aten::_foreach_zero_", "aten::_foreach_zero.out"}, [](LowerCtx& c) {
      std::vector<Value> out;
      for (size_t k = 0; k < c.results().size(); ++k) {
        out.push_back(constantLike(c.fn, 0, c.result(k).dtype, c.result(k).dims));
      }
      return out;
    });
const Registrar kForeachCopy(
    {"aten::_foreach_copy", "aten::_foreach_copy_", "aten::_foreach_copy.out"}, [](LowerCtx& c) {
      std::vector<Value> src = c.tensors("src");
      if (src.size() != c.results().size()) c.fail("lists of different lengths");
      std::vector<Value> out;
      for (size_t k = 0; k < src.size(); ++k) {
        out.push_back(fit(c.fn, src[k], c.result(k).dtype, c.result(k).dims));
      }
      return out;
    });
const Registrar kForeachNorm({"aten::_foreach_norm.Scalar", "aten::_foreach_norm.Scalar_out"},
                             [](LowerCtx& c) {
                               std::vector<Value> out;
                               for (const Value& x : c.tensors("self")) {
                                 out.push_back(normOf(c.fn, x, c.scalar("ord"), c.dtype("dtype")));
                               }
                               return out;
                             });

}  // namespace
}  // namespace torchtpu::lower
