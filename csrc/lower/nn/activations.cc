// Activation functions and their backward ops, with PyTorch's formulas
// (including which side of each threshold the boundary falls on): relu,
// threshold, gelu, silu, mish, sigmoid / tanh backward, leaky_relu, elu,
// hardtanh, softplus, hardsigmoid, hardswish, log_sigmoid, logit backward,
// glu, softshrink, hardshrink and prelu (_prelu_kernel). f16/bf16 compute in
// f32; Scalar parameters are runtime values.
#include <cmath>

#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using Dir = hlo::ComparisonDirection;
using ew::splat;

// The input(s) of an activation in their computation type (broadcast).
std::vector<Value> inputs(LowerCtx& c, const std::vector<const char*>& names) {
  std::vector<Operand> ops;
  for (const char* n : names) ops.push_back(ew::operand(c, n));
  ew::Prepared p = ew::prepare(c.fn, ops);
  if (!ew::isFloat(p.compute) && p.compute != ElementType::kS64 && p.compute != ElementType::kS32 &&
      p.compute != ElementType::kS16 && p.compute != ElementType::kS8 &&
      p.compute != ElementType::kU8) {
    c.fail("unsupported element type");
  }
  return p.values;
}
Value floats(LowerCtx& c, const char* name) {
  Value x = inputs(c, {name})[0];
  if (!ew::isFloat(x.dtype())) c.fail("needs a floating-point tensor");
  return x;
}
Value param(LowerCtx& c, const char* name, const Value& x) {
  return ew::like(c.fn, c.scalar(name), x);
}
Value cmp(Function& fn, Value a, Value b, Dir d) { return fn.compare(a, b, d); }
Value cmpK(Function& fn, Value a, double k, Dir d) { return fn.compare(a, splat(fn, k, a), d); }

// relu: x < 0 ? 0 : x (NaN stays NaN).
const Registrar kRelu({"aten::relu", "aten::relu_", "aten::relu.out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Value x = inputs(c, {"self"})[0];
                        return {c.fn.select(cmpK(c.fn, x, 0, Dir::kLt), splat(c.fn, 0, x), x)};
                      });

// threshold: x <= threshold ? value : x.
const Registrar kThreshold({"aten::threshold", "aten::threshold_", "aten::threshold.out"},
                           [](LowerCtx& c) -> std::vector<Value> {
                             Value x = inputs(c, {"self"})[0];
                             return {c.fn.select(cmp(c.fn, x, param(c, "threshold", x), Dir::kLe),
                                                 param(c, "value", x), x)};
                           });
const Registrar kThresholdBackward({"aten::threshold_backward",
                                    "aten::threshold_backward.grad_input"},
                                   [](LowerCtx& c) -> std::vector<Value> {
                                     auto v = inputs(c, {"grad_output", "self"});
                                     return {c.fn.select(
                                         cmp(c.fn, v[1], param(c, "threshold", v[1]), Dir::kLe),
                                         splat(c.fn, 0, v[0]), v[0])};
                                   });

// gelu: x * Phi(x) ("none", via erf) or the tanh approximation.
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kTanhBeta = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

bool tanhApproximation(const LowerCtx& c) {
  const std::string a = c.str("approximate");
  if (a == "tanh") return true;
  if (a != "none") c.fail("unknown approximate '" + a + "'");
  return false;
}

const Registrar kGelu({"aten::gelu", "aten::gelu_", "aten::gelu.out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Function& fn = c.fn;
                        Value x = floats(c, "self");
                        Value half = splat(fn, 0.5, x), one = splat(fn, 1, x);
                        if (tanhApproximation(c)) {
                          Value x3 = fn.multiply(fn.multiply(x, x), x);
                          Value inner =
                              fn.multiply(splat(fn, kTanhBeta, x),
                                          fn.add(x, fn.multiply(splat(fn, kKappa, x), x3)));
                          return {fn.multiply(fn.multiply(half, x),
                                              fn.add(one, fn.unary(hlo::UnaryOp::kTanh, inner)))};
                        }
                        Value cdf = fn.multiply(
                            half, fn.add(one, ew::erf(fn, fn.multiply(x, splat(fn, kSqrt1_2, x)))));
                        return {fn.multiply(x, cdf)};
                      });

const Registrar kGeluBackward(
    {"aten::gelu_backward", "aten::gelu_backward.grad_input"},
    [](LowerCtx& c) -> std::vector<Value> {
      Function& fn = c.fn;
      auto v = inputs(c, {"grad_output", "self"});
      Value dy = v[0], x = v[1];
      if (!ew::isFloat(x.dtype())) c.fail("needs a floating-point tensor");
      Value half = splat(fn, 0.5, x), one = splat(fn, 1, x);
      if (tanhApproximation(c)) {
        Value x2 = fn.multiply(x, x);
        Value inner = fn.multiply(splat(fn, kTanhBeta, x),
                                  fn.add(x, fn.multiply(splat(fn, kKappa, x), fn.multiply(x2, x))));
        Value t = fn.unary(hlo::UnaryOp::kTanh, inner);
        Value left = fn.multiply(half, x);
        Value right = fn.add(one, t);
        Value dLeft = fn.multiply(half, right);
        Value dTanh = fn.subtract(one, fn.multiply(t, t));
        Value dInner = fn.multiply(splat(fn, kTanhBeta, x),
                                   fn.add(one, fn.multiply(splat(fn, 3 * kKappa, x), x2)));
        Value dRight = fn.multiply(fn.multiply(left, dTanh), dInner);
        return {fn.multiply(dy, fn.add(dLeft, dRight))};
      }
      Value cdf =
          fn.multiply(half, fn.add(one, ew::erf(fn, fn.multiply(x, splat(fn, kSqrt1_2, x)))));
      Value pdf = fn.multiply(splat(fn, kInvSqrt2Pi, x),
                              fn.exp(fn.multiply(splat(fn, -0.5, x), fn.multiply(x, x))));
      return {fn.multiply(dy, fn.add(cdf, fn.multiply(x, pdf)))};
    });

// silu: x * sigmoid(x); backward: dy * s * (1 + x * (1 - s)).
const Registrar kSilu({"aten::silu", "aten::silu_", "aten::silu.out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Value x = floats(c, "self");
                        return {c.fn.multiply(x, c.fn.unary(hlo::UnaryOp::kLogistic, x))};
                      });
const Registrar kSiluBackward({"aten::silu_backward", "aten::silu_backward.grad_input"},
                              [](LowerCtx& c) -> std::vector<Value> {
                                Function& fn = c.fn;
                                auto v = inputs(c, {"grad_output", "self"});
                                Value x = v[1], one = splat(fn, 1, x);
                                Value s = fn.unary(hlo::UnaryOp::kLogistic, x);
                                return {
                                    fn.multiply(fn.multiply(v[0], s),
                                                fn.add(one, fn.multiply(x, fn.subtract(one, s))))};
                              });

// mish: x * tanh(log1p(exp(x))); backward: dy * (t + x * s * (1 - t^2)).
Value softplus1(Function& fn, Value x) { return fn.unary(hlo::UnaryOp::kLogPlusOne, fn.exp(x)); }
const Registrar kMish({"aten::mish", "aten::mish_", "aten::mish.out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Value x = floats(c, "self");
                        return {
                            c.fn.multiply(x, c.fn.unary(hlo::UnaryOp::kTanh, softplus1(c.fn, x)))};
                      });
const Registrar kMishBackward({"aten::mish_backward"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  auto v = inputs(c, {"grad_output", "self"});
  Value x = v[1];
  Value t = fn.unary(hlo::UnaryOp::kTanh, softplus1(fn, x));
  Value s = fn.unary(hlo::UnaryOp::kLogistic, x);
  Value d =
      fn.add(t, fn.multiply(fn.multiply(x, s), fn.subtract(splat(fn, 1, t), fn.multiply(t, t))));
  return {fn.multiply(v[0], d)};
});

// sigmoid_backward: dy * (1 - y) * y; tanh_backward: dy * (1 - y^2).
const Registrar kSigmoidBackward({"aten::sigmoid_backward", "aten::sigmoid_backward.grad_input"},
                                 [](LowerCtx& c) -> std::vector<Value> {
                                   auto v = inputs(c, {"grad_output", "output"});
                                   Value y = v[1];
                                   return {c.fn.multiply(
                                       c.fn.multiply(v[0], c.fn.subtract(splat(c.fn, 1, y), y)),
                                       y)};
                                 });
const Registrar kTanhBackward({"aten::tanh_backward", "aten::tanh_backward.grad_input"},
                              [](LowerCtx& c) -> std::vector<Value> {
                                auto v = inputs(c, {"grad_output", "output"});
                                Value y = v[1];
                                return {c.fn.multiply(
                                    v[0], c.fn.subtract(splat(c.fn, 1, y), c.fn.multiply(y, y)))};
                              });

// leaky_relu: x > 0 ? x : x * slope; backward: x > 0 ? dy : dy * slope.
const Registrar kLeakyRelu({"aten::leaky_relu", "aten::leaky_relu_", "aten::leaky_relu.out"},
                           [](LowerCtx& c) -> std::vector<Value> {
                             Value x = floats(c, "self");
                             Value slope = param(c, "negative_slope", x);
                             return {c.fn.select(cmpK(c.fn, x, 0, Dir::kGt), x,
                                                 c.fn.multiply(x, slope))};
                           });
const Registrar kLeakyReluBackward({"aten::leaky_relu_backward",
                                    "aten::leaky_relu_backward.grad_input"},
                                   [](LowerCtx& c) -> std::vector<Value> {
                                     auto v = inputs(c, {"grad_output", "self"});
                                     Value slope = param(c, "negative_slope", v[0]);
                                     return {c.fn.select(cmpK(c.fn, v[1], 0, Dir::kGt), v[0],
                                                         c.fn.multiply(v[0], slope))};
                                   });

// elu: x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale.
const Registrar kElu({"aten::elu", "aten::elu_", "aten::elu.out"},
                     [](LowerCtx& c) -> std::vector<Value> {
                       Function& fn = c.fn;
                       Value x = floats(c, "self");
                       Value negcoef = fn.multiply(param(c, "alpha", x), param(c, "scale", x));
                       Value neg = fn.multiply(fn.unary(hlo::UnaryOp::kExponentialMinusOne,
                                                        fn.multiply(x, param(c, "input_scale", x))),
                                               negcoef);
                       return {fn.select(cmpK(fn, x, 0, Dir::kLe), neg,
                                         fn.multiply(x, param(c, "scale", x)))};
                     });
// elu_backward, from the result (is_result) or from the input.
const Registrar kEluBackward({"aten::elu_backward", "aten::elu_backward.grad_input"},
                             [](LowerCtx& c) -> std::vector<Value> {
                               Function& fn = c.fn;
                               auto v = inputs(c, {"grad_output", "self_or_result"});
                               Value dy = v[0], x = v[1];
                               Value negcoef =
                                   fn.multiply(param(c, "alpha", x), param(c, "scale", x));
                               Value negiptcoef = param(c, "input_scale", x);
                               Value pos = fn.multiply(dy, param(c, "scale", x));
                               Value neg;
                               if (c.b("is_result")) {
                                 neg = fn.multiply(fn.multiply(dy, negiptcoef), fn.add(x, negcoef));
                               } else {
                                 neg =
                                     fn.multiply(fn.multiply(fn.multiply(dy, negiptcoef), negcoef),
                                                 fn.exp(fn.multiply(x, negiptcoef)));
                               }
                               return {fn.select(cmpK(fn, x, 0, Dir::kLe), neg, pos)};
                             });

// hardtanh: clamp(x, min_val, max_val); backward: 0 outside (min_val, max_val).
const Registrar kHardtanh({"aten::hardtanh", "aten::hardtanh_", "aten::hardtanh.out"},
                          [](LowerCtx& c) -> std::vector<Value> {
                            Value x = inputs(c, {"self"})[0];
                            Value r = ew::maxNan(c.fn, x, param(c, "min_val", x));
                            return {ew::minNan(c.fn, r, param(c, "max_val", x))};
                          });
const Registrar kHardtanhBackward({"aten::hardtanh_backward", "aten::hardtanh_backward.grad_input"},
                                  [](LowerCtx& c) -> std::vector<Value> {
                                    Function& fn = c.fn;
                                    auto v = inputs(c, {"grad_output", "self"});
                                    Value x = v[1];
                                    Value out =
                                        fn.binary(hlo::BinaryOp::kOr,
                                                  cmp(fn, x, param(c, "min_val", x), Dir::kLe),
                                                  cmp(fn, x, param(c, "max_val", x), Dir::kGe));
                                    return {fn.select(out, splat(fn, 0, v[0]), v[0])};
                                  });

// softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
const Registrar kSoftplus({"aten::softplus", "aten::softplus.out"},
                          [](LowerCtx& c) -> std::vector<Value> {
                            Function& fn = c.fn;
                            Value x = floats(c, "self");
                            Value beta = param(c, "beta", x);
                            Value xb = fn.multiply(x, beta);
                            Value soft = fn.divide(softplus1(fn, xb), beta);
                            return {fn.select(cmp(fn, xb, param(c, "threshold", x), Dir::kGt), x,
                                              soft)};
                          });
const Registrar kSoftplusBackward({"aten::softplus_backward", "aten::softplus_backward.grad_input"},
                                  [](LowerCtx& c) -> std::vector<Value> {
                                    Function& fn = c.fn;
                                    auto v = inputs(c, {"grad_output", "self"});
                                    Value dy = v[0], x = v[1];
                                    Value xb = fn.multiply(x, param(c, "beta", x));
                                    Value z = fn.exp(xb);
                                    Value g =
                                        fn.divide(fn.multiply(dy, z), fn.add(z, splat(fn, 1, z)));
                                    return {fn.select(
                                        cmp(fn, xb, param(c, "threshold", x), Dir::kGt), dy, g)};
                                  });

// hardsigmoid: min(max(x + 3, 0), 6) / 6; backward: dy / 6 inside (-3, 3).
const Registrar kHardsigmoid({"aten::hardsigmoid", "aten::hardsigmoid_", "aten::hardsigmoid.out"},
                             [](LowerCtx& c) -> std::vector<Value> {
                               Function& fn = c.fn;
                               Value x = floats(c, "self");
                               Value r = ew::minNan(
                                   fn, ew::maxNan(fn, fn.add(x, splat(fn, 3, x)), splat(fn, 0, x)),
                                   splat(fn, 6, x));
                               return {fn.divide(r, splat(fn, 6, x))};
                             });
const Registrar kHardsigmoidBackward(
    {"aten::hardsigmoid_backward", "aten::hardsigmoid_backward.grad_input"},
    [](LowerCtx& c) -> std::vector<Value> {
      Function& fn = c.fn;
      auto v = inputs(c, {"grad_output", "self"});
      Value x = v[1];
      Value inside =
          fn.binary(hlo::BinaryOp::kAnd, cmpK(fn, x, -3, Dir::kGt), cmpK(fn, x, 3, Dir::kLt));
      return {fn.select(inside, fn.divide(v[0], splat(fn, 6, x)), splat(fn, 0, x))};
    });

// hardswish: x * min(max(x + 3, 0), 6) / 6;
// backward: x <= -3 ? 0 : x < 3 ? dy * (x / 3 + 0.5) : dy.
const Registrar kHardswish({"aten::hardswish", "aten::hardswish_", "aten::hardswish.out"},
                           [](LowerCtx& c) -> std::vector<Value> {
                             Function& fn = c.fn;
                             Value x = floats(c, "self");
                             Value r = ew::minNan(
                                 fn, ew::maxNan(fn, fn.add(x, splat(fn, 3, x)), splat(fn, 0, x)),
                                 splat(fn, 6, x));
                             return {fn.divide(fn.multiply(x, r), splat(fn, 6, x))};
                           });
const Registrar kHardswishBackward(
    {"aten::hardswish_backward", "aten::hardswish_backward.out"},
    [](LowerCtx& c) -> std::vector<Value> {
      Function& fn = c.fn;
      auto v = inputs(c, {"grad_output", "self"});
      Value dy = v[0], x = v[1];
      Value mid = fn.multiply(dy, fn.add(fn.divide(x, splat(fn, 3, x)), splat(fn, 0.5, x)));
      return {fn.select(cmpK(fn, x, -3, Dir::kLe), splat(fn, 0, x),
                        fn.select(cmpK(fn, x, 3, Dir::kLt), mid, dy))};
    });

// log_sigmoid_forward: (min(x, 0) - log1p(exp(-|x|)), buffer = exp(-|x|)).
const Registrar kLogSigmoidForward({"aten::log_sigmoid_forward",
                                    "aten::log_sigmoid_forward.output"},
                                   [](LowerCtx& c) -> std::vector<Value> {
                                     Function& fn = c.fn;
                                     Value x = floats(c, "self");
                                     Value z = fn.exp(fn.negate(fn.abs(x)));
                                     Value out =
                                         fn.subtract(ew::minNan(fn, x, splat(fn, 0, x)),
                                                     fn.unary(hlo::UnaryOp::kLogPlusOne, z));
                                     const TensorType& buf = c.result(1);
                                     if (buf.numElements() != x.t().numElements())
                                       return {out, constantLike(fn, 0, buf.dtype, buf.dims)};
                                     return {out, z};
                                   });
// log_sigmoid_backward: dy * (max_deriv - sign * z / (1 + z)), z recomputed from x.
const Registrar kLogSigmoidBackward(
    {"aten::log_sigmoid_backward", "aten::log_sigmoid_backward.grad_input"},
    [](LowerCtx& c) -> std::vector<Value> {
      Function& fn = c.fn;
      auto v = inputs(c, {"grad_output", "self"});
      Value dy = v[0], x = v[1];
      Value z = fn.exp(fn.negate(fn.abs(x)));
      Value neg = cmpK(fn, x, 0, Dir::kLt);
      Value maxDeriv = fn.select(neg, splat(fn, 1, x), splat(fn, 0, x));
      Value sign = fn.select(neg, splat(fn, 1, x), splat(fn, -1, x));
      Value frac = fn.divide(z, fn.add(splat(fn, 1, z), z));
      return {fn.multiply(fn.subtract(maxDeriv, fn.multiply(sign, frac)), dy)};
    });

// logit_backward: dy / (x (1 - x)) inside the domain ([eps, 1 - eps] when
// eps is given, else [0, 1]); outside it 0 (with eps) or NaN (without).
const Registrar kLogitBackward({"aten::logit_backward", "aten::logit_backward.grad_input"},
                               [](LowerCtx& c) -> std::vector<Value> {
                                 Function& fn = c.fn;
                                 auto v = inputs(c, {"grad_output", "self"});
                                 Value dy = v[0], x = v[1];
                                 if (!ew::isFloat(x.dtype()))
                                   c.fail("needs a floating-point tensor");
                                 const std::optional<double> eps = c.optDouble("eps");
                                 const double lo = eps.value_or(0.0), hi = 1.0 - eps.value_or(0.0);
                                 Value g =
                                     fn.divide(dy, fn.multiply(x, fn.subtract(splat(fn, 1, x), x)));
                                 Value outside =
                                     fn.binary(hlo::BinaryOp::kOr, cmpK(fn, x, lo, Dir::kLt),
                                               cmpK(fn, x, hi, Dir::kGt));
                                 Value fill = splat(fn, eps ? 0.0 : std::nan(""), x);
                                 return {fn.select(outside, fill, g)};
                               });

// Halves of x along dim.
std::pair<Value, Value> halves(Function& fn, Value x, int64_t dim) {
  std::vector<int64_t> start(x.rank(), 0), mid = x.dims(), end = x.dims();
  mid[dim] = x.dims()[dim] / 2;
  std::vector<int64_t> start2 = start;
  start2[dim] = mid[dim];
  return {fn.slice(x, start, mid), fn.slice(x, start2, end)};
}

const Registrar kGlu({"aten::glu", "aten::glu.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Value x = ew::prepareArgs(c, {"self"}, ew::Promote::kIntToFloat)[0];
  const int64_t dim = normDim(c.i("dim"), x.rank());
  if (x.dims()[dim] % 2 != 0) c.fail("glu needs an even size along dim");
  auto [a, b] = halves(c.fn, x, dim);
  return {c.fn.multiply(a, ew::unary(c.fn, ew::Unary::kSigmoid, b))};
});

const Registrar kGluBackward({"aten::glu_backward", "aten::glu_backward.grad_input"},
                             [](LowerCtx& c) -> std::vector<Value> {
                               Function& fn = c.fn;
                               Value g =
                                   ew::prepareArgs(c, {"grad_output"}, ew::Promote::kIntToFloat)[0];
                               Value x = castTo(fn, c.tensor("self"), g.dtype());
                               const int64_t dim = normDim(c.i("dim"), x.rank());
                               auto [a, b] = halves(fn, x, dim);
                               Value s = ew::unary(fn, ew::Unary::kSigmoid, b);
                               Value ga = fn.multiply(g, s);
                               Value ds = fn.multiply(s, fn.subtract(ew::splat(fn, 1, s), s));
                               Value gb = fn.multiply(fn.multiply(g, a), ds);
                               return {fn.concatenate({ga, gb}, dim)};
                             });

Value lambdOf(LowerCtx& c, const Value& x) { return ew::like(c.fn, c.scalar("lambd"), x); }

// softshrink: x - l above l, x + l below -l, else 0 (NaN stays NaN).
const Registrar kSoftshrink({"aten::softshrink", "aten::softshrink.out"},
                            [](LowerCtx& c) -> std::vector<Value> {
                              Function& fn = c.fn;
                              Value x = ew::prepareArgs(c, {"self"}, ew::Promote::kIntToFloat)[0];
                              Value l = lambdOf(c, x);
                              Value r = fn.select(cmp(fn, x, fn.negate(l), Dir::kLt), fn.add(x, l),
                                                  fn.multiply(x, ew::splat(fn, 0, x)));
                              return {fn.select(cmp(fn, x, l, Dir::kGt), fn.subtract(x, l), r)};
                            });

// Inside [-l, l]: 0; outside (or NaN): `outside`.
Value shrinkSelect(LowerCtx& c, Value x, Value outside) {
  Function& fn = c.fn;
  Value l = lambdOf(c, x);
  Value inside =
      fn.binary(hlo::BinaryOp::kAnd, cmp(fn, x, fn.negate(l), Dir::kGe), cmp(fn, x, l, Dir::kLe));
  return fn.select(inside, ew::splat(fn, 0, outside), outside);
}

const Registrar kHardshrink({"aten::hardshrink", "aten::hardshrink.out"},
                            [](LowerCtx& c) -> std::vector<Value> {
                              Value x = ew::prepareArgs(c, {"self"}, ew::Promote::kIntToFloat)[0];
                              return {shrinkSelect(c, x, x)};
                            });

const Registrar kShrinkBackward(
    {"aten::hardshrink_backward", "aten::hardshrink_backward.grad_input",
     "aten::softshrink_backward", "aten::softshrink_backward.grad_input"},
    [](LowerCtx& c) -> std::vector<Value> {
      auto v = ew::prepareArgs(c, {c.has("grad_out") ? "grad_out" : "grad_output", "self"},
                               ew::Promote::kIntToFloat);
      return {shrinkSelect(c, v[1], v[0])};
    });

// The sum of x over the dimensions broadcasting added or expanded to reach
// x's shape from `dims`.
Value sumTo(Function& fn, Value x, const std::vector<int64_t>& dims) {
  if (x.dims() == dims) return x;
  const int64_t lead = x.rank() - static_cast<int64_t>(dims.size());
  std::vector<int64_t> red;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (i < lead || (dims[i - lead] == 1 && x.dims()[i] != 1)) red.push_back(i);
  }
  Value s = fn.reduce(x, fn.constant(0, x.dtype()), red, hlo::BinaryOp::kAdd);
  return fn.reshape(s, dims);
}

const Registrar kPrelu({"aten::_prelu_kernel"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  auto v = ew::prepareArgs(c, {"self", "weight"}, ew::Promote::kNone);
  Value x = v[0];
  return {fn.select(cmp(fn, x, ew::splat(fn, 0, x), Dir::kGt), x, fn.multiply(v[1], x))};
});

const Registrar kPreluBackward({"aten::_prelu_kernel_backward"},
                               [](LowerCtx& c) -> std::vector<Value> {
                                 Function& fn = c.fn;
                                 auto v = ew::prepareArgs(c, {"grad_output", "self", "weight"},
                                                          ew::Promote::kNone);
                                 Value g = v[0], x = v[1], w = v[2];
                                 Value pos = cmp(fn, x, ew::splat(fn, 0, x), Dir::kGt);
                                 Value gx = fn.select(pos, g, fn.multiply(w, g));
                                 Value gw = fn.select(pos, ew::splat(fn, 0, g), fn.multiply(x, g));
                                 return {gx, sumTo(fn, gw, c.result(1).dims)};
                               });

}  // namespace
}  // namespace torchtpu::lower
