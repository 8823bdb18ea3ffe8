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

// Registers the functional, in-place and out= forms of each overload.
void registerFamily(const std::string& name, const std::vector<std::string>& overloads,
                    LowerFn fn) {
  std::vector<std::string> ops;
  for (const std::string& o : overloads) {
    ops.push_back("aten::_foreach_" + name + "." + o);
    ops.push_back("aten::_foreach_" + name + "_." + o);
    ops.push_back("aten::_foreach_" + name + "." + o + "_out");
  }
  registerLowering(ops, std::move(fn));
}

struct UnaryName {
  const char* name;
  Unary op;
};
const UnaryName kUnaryOps[] = {
    {"abs", Unary::kAbs},
    {"acos", Unary::kAcos},
    {"asin", Unary::kAsin},
    {"atan", Unary::kAtan},
    {"ceil", Unary::kCeil},
    {"cos", Unary::kCos},
    {"cosh", Unary::kCosh},
    {"erf", Unary::kErf},
    {"erfc", Unary::kErfc},
    {"exp", Unary::kExp},
    {"expm1", Unary::kExpm1},
    {"floor", Unary::kFloor},
    {"frac", Unary::kFrac},
    {"log", Unary::kLog},
    {"log10", Unary::kLog10},
    {"log1p", Unary::kLog1p},
    {"log2", Unary::kLog2},
    {"neg", Unary::kNeg},
    {"reciprocal", Unary::kReciprocal},
    {"round", Unary::kRound},
    {"rsqrt", Unary::kRsqrt},
    {"sigmoid", Unary::kSigmoid},
    {"sign", Unary::kSign},
    {"sin", Unary::kSin},
    {"sinh", Unary::kSinh},
    {"sqrt", Unary::kSqrt},
    {"tan", Unary::kTan},
    {"tanh", Unary::kTanh},
    {"trunc", Unary::kTrunc},
};

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

const bool kRegistered = [] {
  const std::vector<std::string> arith = {"Scalar", "List", "ScalarList", "Tensor"};
  const std::vector<std::string> minmax = {"Scalar", "List", "ScalarList"};
  auto binary = [](Binary op) { return [op](LowerCtx& c) { return lowerBinary(c, op); }; };
  registerFamily("add", arith, binary(Binary::kAdd));
  registerFamily("sub", minmax, binary(Binary::kSub));
  registerFamily("mul", arith, binary(Binary::kMul));
  registerFamily("div", arith, binary(Binary::kDiv));
  registerFamily("maximum", minmax, binary(Binary::kMaximum));
  registerFamily("minimum", minmax, binary(Binary::kMinimum));
  registerFamily("clamp_min", minmax, binary(Binary::kClampMin));
  registerFamily("clamp_max", minmax, binary(Binary::kClampMax));
  registerFamily("pow", minmax, binary(Binary::kPow));
  registerLowering({"aten::_foreach_pow.ScalarAndTensor"}, binary(Binary::kPow));
  registerFamily("addcmul", {"Scalar", "ScalarList", "Tensor"},
                 [](LowerCtx& c) { return lowerAddcOp(c, false); });
  registerFamily("addcdiv", {"Scalar", "ScalarList", "Tensor"},
                 [](LowerCtx& c) { return lowerAddcOp(c, true); });
  registerFamily("lerp", {"List", "Scalar", "ScalarList"}, lowerLerp);

  for (const UnaryName& u : kUnaryOps) {
    const std::string base = std::string("aten::_foreach_") + u.name;
    const Unary op = u.op;
    registerLowering({base, base + "_", base + ".out"}, [op](LowerCtx& c) {
      std::vector<Value> out;
      for (const Value& x : c.tensors("self")) out.push_back(ew::unary(c.fn, op, x));
      return out;
    });
  }

  registerLowering({"aten::_foreach_zero", "aten::_foreach_zero_", "aten::_foreach_zero.out"},
                   [](LowerCtx& c) {
                     std::vector<Value> out;
                     for (size_t k = 0; k < c.results().size(); ++k) {
                       out.push_back(constantLike(c.fn, 0, c.result(k).dtype, c.result(k).dims));
                     }
                     return out;
                   });
  registerLowering({"aten::_foreach_copy", "aten::_foreach_copy_", "aten::_foreach_copy.out"},
                   [](LowerCtx& c) {
                     std::vector<Value> src = c.tensors("src");
                     if (src.size() != c.results().size()) c.fail("lists of different lengths");
                     std::vector<Value> out;
                     for (size_t k = 0; k < src.size(); ++k) {
                       out.push_back(fit(c.fn, src[k], c.result(k).dtype, c.result(k).dims));
                     }
                     return out;
                   });
  registerLowering({"aten::_foreach_norm.Scalar", "aten::_foreach_norm.Scalar_out"},
                   [](LowerCtx& c) {
                     std::vector<Value> out;
                     for (const Value& x : c.tensors("self")) {
                       out.push_back(normOf(c.fn, x, c.scalar("ord"), c.dtype("dtype")));
                     }
                     return out;
                   });
  return true;
}();

}  // namespace
}  // namespace torchtpu::lower
