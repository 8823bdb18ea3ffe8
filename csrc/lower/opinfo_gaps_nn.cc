// Activations and small tensor ops the OpInfo sweep found on the CPU fallback:
// glu, softshrink, hardshrink, prelu (with their backward ops), sinc, entr,
// angle of real tensors, vdot, linalg_cross and channel_shuffle.
#include <cmath>
#include <numbers>

#include "hlo/comparison.h"
#include "lower/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using ew::operand;
using hlo::BinaryOp;
using hlo::ComparisonDirection;
using Dir = hlo::ComparisonDirection;

Value cmp(Function& fn, Value a, Value b, Dir d) { return fn.compare(a, b, d); }

// Tensors of one op prepared together (promoted, broadcast, in the compute type).
std::vector<Value> inputs(LowerCtx& c, const std::vector<const char*>& names,
                          ew::Promote promote = ew::Promote::kIntToFloat) {
  std::vector<Operand> ops;
  for (const char* n : names) ops.push_back(operand(c, n));
  return ew::prepare(c.fn, ops, promote).values;
}

// Halves of x along dim.
std::pair<Value, Value> halves(Function& fn, Value x, int64_t dim) {
  std::vector<int64_t> start(x.rank(), 0), mid = x.dims(), end = x.dims();
  mid[dim] = x.dims()[dim] / 2;
  std::vector<int64_t> start2 = start;
  start2[dim] = mid[dim];
  return {fn.slice(x, start, mid), fn.slice(x, start2, end)};
}

const Registrar kGlu({"aten::glu", "aten::glu.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Value x = inputs(c, {"self"})[0];
  const int64_t dim = normDim(c.i("dim"), x.rank());
  if (x.dims()[dim] % 2 != 0) c.fail("glu needs an even size along dim");
  auto [a, b] = halves(c.fn, x, dim);
  return {c.fn.multiply(a, ew::unary(c.fn, ew::Unary::kSigmoid, b))};
});

const Registrar kGluBackward({"aten::glu_backward", "aten::glu_backward.grad_input"},
                             [](LowerCtx& c) -> std::vector<Value> {
                               Function& fn = c.fn;
                               Value g = inputs(c, {"grad_output"})[0];
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
                              Value x = inputs(c, {"self"})[0];
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
      fn.binary(BinaryOp::kAnd, cmp(fn, x, fn.negate(l), Dir::kGe), cmp(fn, x, l, Dir::kLe));
  return fn.select(inside, ew::splat(fn, 0, outside), outside);
}

const Registrar kHardshrink({"aten::hardshrink", "aten::hardshrink.out"},
                            [](LowerCtx& c) -> std::vector<Value> {
                              Value x = inputs(c, {"self"})[0];
                              return {shrinkSelect(c, x, x)};
                            });

const Registrar kShrinkBackward(
    {"aten::hardshrink_backward", "aten::hardshrink_backward.grad_input",
     "aten::softshrink_backward", "aten::softshrink_backward.grad_input"},
    [](LowerCtx& c) -> std::vector<Value> {
      auto v = inputs(c, {c.has("grad_out") ? "grad_out" : "grad_output", "self"});
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
  Value s = fn.reduce(x, fn.constant(0, x.dtype()), red, BinaryOp::kAdd);
  return fn.reshape(s, dims);
}

const Registrar kPrelu({"aten::_prelu_kernel"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  auto v = inputs(c, {"self", "weight"}, ew::Promote::kNone);
  Value x = v[0];
  return {fn.select(cmp(fn, x, ew::splat(fn, 0, x), Dir::kGt), x, fn.multiply(v[1], x))};
});

const Registrar kPreluBackward({"aten::_prelu_kernel_backward"},
                               [](LowerCtx& c) -> std::vector<Value> {
                                 Function& fn = c.fn;
                                 auto v = inputs(c, {"grad_output", "self", "weight"},
                                                 ew::Promote::kNone);
                                 Value g = v[0], x = v[1], w = v[2];
                                 Value pos = cmp(fn, x, ew::splat(fn, 0, x), Dir::kGt);
                                 Value gx = fn.select(pos, g, fn.multiply(w, g));
                                 Value gw = fn.select(pos, ew::splat(fn, 0, g), fn.multiply(x, g));
                                 return {gx, sumTo(fn, gw, c.result(1).dims)};
                               });

// sinc(x) = sin(pi x) / (pi x), 1 at 0.
const Registrar kSinc({"aten::sinc", "aten::sinc.out", "aten::sinc_", "aten::special_sinc"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Function& fn = c.fn;
                        Value x = inputs(c, {"self"})[0];
                        if (!ew::isFloat(x.dtype())) c.fail("sinc of complex is not lowered");
                        Value px = fn.multiply(x, ew::splat(fn, std::numbers::pi, x));
                        Value r = fn.divide(fn.unary(hlo::UnaryOp::kSine, px), px);
                        return {fn.select(cmp(fn, x, ew::splat(fn, 0, x), Dir::kEq),
                                          ew::splat(fn, 1, x), r)};
                      });

// entr(x) = -x log x for x > 0, 0 at 0, -inf below 0, NaN for NaN.
const Registrar kEntr({"aten::special_entr", "aten::special_entr.out"},
                      [](LowerCtx& c) -> std::vector<Value> {
                        Function& fn = c.fn;
                        Value x = inputs(c, {"self"})[0];
                        Value zero = ew::splat(fn, 0, x);
                        Value r = fn.negate(fn.multiply(x, fn.log(x)));
                        r = fn.select(cmp(fn, x, zero, Dir::kEq), zero, r);
                        r = fn.select(cmp(fn, x, zero, Dir::kLt), ew::splat(fn, -INFINITY, x), r);
                        return {fn.select(ew::isNan(fn, x), x, r)};
                      });

// angle of a real tensor: pi below 0, else 0; NaN stays NaN. Of a complex
// tensor: atan2(imag, real).
const Registrar kAngle({"aten::angle", "aten::angle.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  Value z = c.tensor("self");
  if (runtime::isComplex(z.dtype())) {
    return {fn.binary(hlo::BinaryOp::kAtan2, fn.unary(hlo::UnaryOp::kImag, z),
                      fn.unary(hlo::UnaryOp::kReal, z))};
  }
  Value x = inputs(c, {"self"})[0];
  Value r = fn.select(cmp(fn, x, ew::splat(fn, 0, x), Dir::kLt), ew::splat(fn, std::numbers::pi, x),
                      ew::splat(fn, 0, x));
  return {fn.select(ew::isNan(fn, x), x, r)};
});

// vdot of real vectors: sum(a * b).
const Registrar kVdot({"aten::vdot", "aten::vdot.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  auto v = inputs(c, {"self", "other"}, ew::Promote::kNone);
  if (runtime::isComplex(v[0].dtype())) c.fail("vdot of complex vectors is not lowered");
  if (v[0].rank() != 1) c.fail("vdot expects 1-D tensors");
  Value p = fn.multiply(v[0], v[1]);
  return {fn.reduce(p, fn.constant(0, p.dtype()), {0}, BinaryOp::kAdd)};
});

// linalg_cross: the cross product of 3-vectors along dim.
const Registrar kCross({"aten::linalg_cross", "aten::linalg_cross.out"},
                       [](LowerCtx& c) -> std::vector<Value> {
                         Function& fn = c.fn;
                         auto v = inputs(c, {"self", "other"}, ew::Promote::kNone);
                         const int64_t dim = normDim(c.i("dim"), v[0].rank());
                         if (v[0].dims()[dim] != 3) c.fail("linalg_cross needs size 3 along dim");
                         auto part = [&](Value x, int64_t k) {
                           std::vector<int64_t> s(x.rank(), 0), e = x.dims();
                           s[dim] = k;
                           e[dim] = k + 1;
                           return fn.slice(x, s, e);
                         };
                         Value a[3] = {part(v[0], 0), part(v[0], 1), part(v[0], 2)};
                         Value b[3] = {part(v[1], 0), part(v[1], 1), part(v[1], 2)};
                         auto term = [&](int i, int j) {
                           return fn.subtract(fn.multiply(a[i], b[j]), fn.multiply(a[j], b[i]));
                         };
                         return {fn.concatenate({term(1, 2), term(2, 0), term(0, 1)}, dim)};
                       });

// channel_shuffle: (N, C, *) -> (N, g, C/g, *) -> swap -> (N, C, *).
const Registrar kChannelShuffle({"aten::channel_shuffle", "aten::native_channel_shuffle"},
                                [](LowerCtx& c) -> std::vector<Value> {
                                  Function& fn = c.fn;
                                  Value x = c.tensor("self");
                                  const int64_t g = c.i("groups");
                                  if (x.rank() < 2 || g <= 0 || x.dims()[1] % g != 0) {
                                    c.fail("channel_shuffle: channels must divide into groups");
                                  }
                                  std::vector<int64_t> d = {x.dims()[0], g, x.dims()[1] / g};
                                  std::vector<int64_t> perm = {0, 2, 1};
                                  for (int64_t i = 2; i < x.rank(); ++i) {
                                    d.push_back(x.dims()[i]);
                                    perm.push_back(i + 1);
                                  }
                                  Value y = fn.transpose(fn.reshape(x, d), perm);
                                  return {fn.reshape(y, x.dims())};
                                });

}  // namespace
}  // namespace torchtpu::lower
