// Random distributions the OpInfo sweep found on the CPU fallback:
// exponential_, cauchy_, log_normal_ and geometric_, by inverse transform of
// uniform numbers drawn as random.cc draws them (lower/random_bits.h: a
// ThreeFry stream keyed by a hash of the generator's {seed, offset};
// reproducible per seed, different from PyTorch's CPU generator). Also unfold_backward (not
// random), which scatter-adds every window back to its place.
#include <cmath>
#include <numbers>

#include "lower/common.h"
#include "lower/random_bits.h"

namespace torchtpu::lower {
namespace {

// A splat of v with x's type and shape.
Value ew1(Function& fn, double v, const Value& x) { return fn.constant(v, x.dtype(), x.dims()); }

// ---- distributions --------------------------------------------------------------

// Uniform in (0, 1], in the compute type of the result.
Value uniformOpen0(LowerCtx& c, const TensorType& out) {
  Value u = uniform01(c, out.dtype, out.dims);
  return c.fn.subtract(ew1(c.fn, 1.0, u), u);
}

std::vector<Value> lowerExponential(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("exponential_ expects a floating-point tensor");
  Value u = uniformOpen0(c, out);
  return {fn.divide(fn.negate(fn.log(u)), ew1(fn, c.d("lambd"), u))};
}

std::vector<Value> lowerCauchy(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("cauchy_ expects a floating-point tensor");
  Value u = uniform01(c, out.dtype, out.dims);
  Value t = fn.unary(hlo::UnaryOp::kTan,
                     fn.multiply(ew1(fn, std::numbers::pi, u), fn.subtract(u, ew1(fn, 0.5, u))));
  return {fn.add(ew1(fn, c.d("median"), u), fn.multiply(ew1(fn, c.d("sigma"), u), t))};
}

std::vector<Value> lowerLogNormal(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("log_normal_ expects a floating-point tensor");
  // Box-Muller from two uniforms.
  Value u1 = uniformOpen0(c, out);
  Value u2 = uniform01(c, out.dtype, out.dims);
  Value z = fn.multiply(
      fn.sqrt(fn.multiply(ew1(fn, -2.0, u1), fn.log(u1))),
      fn.unary(hlo::UnaryOp::kCosine, fn.multiply(ew1(fn, 2.0 * std::numbers::pi, u2), u2)));
  return {fn.exp(fn.add(ew1(fn, c.d("mean"), z), fn.multiply(ew1(fn, c.d("std"), z), z)))};
}

std::vector<Value> lowerGeometric(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const double p = c.d("p");
  if (!(p > 0 && p < 1)) c.fail("geometric_ needs 0 < p < 1");
  Value u = uniformOpen0(c, TensorType(ElementType::kF32, out.dims));
  Value k = fn.unary(hlo::UnaryOp::kCeil, fn.divide(fn.log(u), ew1(fn, std::log1p(-p), u)));
  return {fn.maximum(k, ew1(fn, 1.0, k))};
}

const Registrar kExponential({"aten::exponential_", "aten::exponential", "aten::exponential.out"},
                             lowerExponential);
const Registrar kCauchy({"aten::cauchy_", "aten::cauchy", "aten::cauchy.out"}, lowerCauchy);
const Registrar kLogNormal({"aten::log_normal_", "aten::log_normal", "aten::log_normal.out"},
                           lowerLogNormal);
const Registrar kGeometric({"aten::geometric_", "aten::geometric", "aten::geometric.out"},
                           lowerGeometric);

// ---- unfold_backward ---------------------------------------------------------------

// grad_in has input_sizes with `dim` replaced by the window count and a
// trailing window dim; every element goes back to w * step + j along dim.
std::vector<Value> lowerUnfoldBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_in");
  const std::vector<int64_t> sizes = c.ints("input_sizes");
  const int64_t r = static_cast<int64_t>(sizes.size());
  const int64_t dim = normDim(c.i("dim"), r);
  const int64_t size = c.i("size"), step = c.i("step");
  if (r == 0) return {fn.reshape(g, {})};
  if (g.rank() != r + 1) c.fail("grad_in has an unexpected rank");
  const int64_t windows = g.dims()[dim];
  // (..., windows, ..., size) -> (..., windows, size, ...) -> (..., windows * size, ...)
  std::vector<int64_t> perm;
  for (int64_t d = 0; d <= dim; ++d) perm.push_back(d);
  perm.push_back(r);
  for (int64_t d = dim + 1; d < r; ++d) perm.push_back(d);
  Value t = fn.transpose(g, perm);
  std::vector<int64_t> merged = sizes;
  merged[dim] = windows * size;
  t = fn.reshape(t, merged);
  std::vector<int64_t> idx;
  for (int64_t w = 0; w < windows; ++w) {
    for (int64_t j = 0; j < size; ++j) idx.push_back(w * step + j);
  }
  std::vector<int64_t> outDims = sizes;
  Value zeros = fn.constant(0, g.dtype(), outDims);
  if (idx.empty()) return {zeros};
  hlo::ScatterDims s;
  for (int64_t d = 0; d < r; ++d) {
    if (d != dim) s.updateWindowDims.push_back(d);
  }
  s.insertedWindowDims = {dim};
  s.scatterDimsToOperandDims = {dim};
  s.indexVectorDim = 1;
  const int64_t n = static_cast<int64_t>(idx.size());
  Value index = fn.constantData(TensorType(ElementType::kS64, {n, 1}), idx.data());
  auto add = [](Function& rg, const std::vector<Value>& a) {
    return std::vector<Value>{rg.add(a[0], a[1])};
  };
  return {fn.scatter({zeros}, index, {t}, s, add)[0]};
}
const Registrar kUnfoldBackward({"aten::unfold_backward", "aten::unfold_backward.out"},
                                lowerUnfoldBackward);

}  // namespace
}  // namespace torchtpu::lower
