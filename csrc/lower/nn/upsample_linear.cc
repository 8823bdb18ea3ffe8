// Linear-family upsampling over the trailing 1-3 dims: upsample_linear1d,
// upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d, the
// antialiased _upsample_bilinear2d_aa / _upsample_bicubic2d_aa, and their
// backward ops. Each spatial axis is a linear map out x in: PyTorch's source
// indices and weights are computed on the host (as its CPU kernel does, in the
// op-math type), passed as small [out, taps] constants, expanded into a dense
// [out, in] matrix with iota/compare/select, and applied by dot_general. The
// backward op applies the transposed matrices.
#include <algorithm>
#include <cmath>

#include "lower/core/common.h"
#include "lower/nn/upsample_scales.h"

namespace torchtpu::lower {
namespace {

// Per output index: `taps` source indices and their weights (row major).
struct Taps {
  int64_t in = 0, out = 0, taps = 0;
  std::vector<int64_t> idx;
  std::vector<double> w;
};

enum class Kind { kLinear, kCubic, kLinearAA, kCubicAA };

template <typename T>
T areaScale(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
  if (alignCorners) {
    return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : static_cast<T>(0);
  }
  return (scale && *scale > 0.) ? static_cast<T>(1.0 / *scale)
                                : static_cast<T>(in) / static_cast<T>(out);
}

template <typename T>
T sourceIndex(T scale, int64_t j, bool alignCorners, bool cubic) {
  if (alignCorners) return scale * static_cast<T>(j);
  const T src = scale * (static_cast<T>(j) + static_cast<T>(0.5)) - static_cast<T>(0.5);
  return (!cubic && src < 0) ? static_cast<T>(0) : src;
}

// The integer part (clamped to the last index) and the fraction in [0, 1].
template <typename T>
void guardIndex(T real, int64_t in, int64_t& index, T& lambda) {
  index = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
  lambda = std::min(std::max(real - static_cast<T>(index), static_cast<T>(0)), static_cast<T>(1));
}

template <typename T>
T cubic1(T x, T a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename T>
T cubic2(T x, T a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <typename T>
T aaFilter(T x, bool cubic) {
  x = std::abs(x);
  if (!cubic) return x < static_cast<T>(1) ? static_cast<T>(1) - x : static_cast<T>(0);
  const T a = static_cast<T>(-0.5);
  if (x < static_cast<T>(1)) return cubic1(x, a);
  if (x < static_cast<T>(2)) return cubic2(x, a);
  return static_cast<T>(0);
}

template <typename T>
Taps makeTaps(Kind kind, int64_t in, int64_t out, bool alignCorners, std::optional<double> s) {
  Taps t;
  t.in = in;
  t.out = out;
  const T scale = areaScale<T>(in, out, alignCorners, s);
  if (kind == Kind::kLinear || kind == Kind::kCubic) {
    const bool cubic = kind == Kind::kCubic;
    t.taps = cubic ? 4 : 2;
    for (int64_t j = 0; j < out; ++j) {
      int64_t i0 = 0;
      T lambda = 0;
      guardIndex(sourceIndex(scale, j, alignCorners, cubic), in, i0, lambda);
      if (!cubic) {
        t.idx.push_back(i0);
        t.idx.push_back(i0 < in - 1 ? i0 + 1 : i0);
        t.w.push_back(static_cast<double>(static_cast<T>(1) - lambda));
        t.w.push_back(static_cast<double>(lambda));
      } else {
        const T a = static_cast<T>(-0.75);
        const T x2 = static_cast<T>(1) - lambda;
        const T coeffs[4] = {cubic2<T>(lambda + static_cast<T>(1), a), cubic1<T>(lambda, a),
                             cubic1<T>(x2, a), cubic2<T>(x2 + static_cast<T>(1), a)};
        for (int64_t k = 0; k < 4; ++k) {
          t.idx.push_back(std::clamp<int64_t>(i0 - 1 + k, 0, in - 1));
          t.w.push_back(static_cast<double>(coeffs[k]));
        }
      }
    }
    return t;
  }
  // Antialiased: a filter of support scaled by the downsampling factor,
  // weights normalized to sum 1 (PyTorch's _compute_indices_min_size_weights_aa).
  const bool cubic = kind == Kind::kCubicAA;
  const T interp = static_cast<T>(cubic ? 4 : 2);
  const T support = scale >= static_cast<T>(1) ? (interp * static_cast<T>(0.5)) * scale
                                               : interp * static_cast<T>(0.5);
  t.taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const T invscale = scale >= static_cast<T>(1) ? static_cast<T>(1.0 / scale) : static_cast<T>(1);
  for (int64_t j = 0; j < out; ++j) {
    const T center = static_cast<T>(static_cast<double>(scale) * (static_cast<double>(j) + 0.5));
    const int64_t xmin =
        std::max(static_cast<int64_t>(static_cast<double>(center - support) + 0.5), int64_t{0});
    const int64_t xsize =
        std::min(static_cast<int64_t>(static_cast<double>(center + support) + 0.5), in) - xmin;
    std::vector<T> ws(t.taps, static_cast<T>(0));
    T total = 0;
    for (int64_t k = 0; k < xsize && k < t.taps; ++k) {
      const double arg = (static_cast<double>(static_cast<T>(k + xmin) - center) + 0.5) *
                         static_cast<double>(invscale);
      ws[k] = aaFilter(static_cast<T>(arg), cubic);
      total += ws[k];
    }
    for (int64_t k = 0; k < t.taps; ++k) {
      if (k < xsize && total != static_cast<T>(0)) ws[k] /= total;
      t.idx.push_back(k < xsize ? xmin + k : 0);
      t.w.push_back(k < xsize ? static_cast<double>(ws[k]) : 0.0);
    }
  }
  return t;
}

// The dense [out, in] interpolation matrix of `t`, in element type `ct`.
// With `roundTo` (bfloat16 / half inputs), the weights are rounded to that
// type as PyTorch's CPU kernel stores them; linear weights as it computes
// them: lambda rounded, then 1 - lambda rounded.
Value weightMatrix(Function& fn, const Taps& t, ElementType ct,
                   std::optional<ElementType> roundTo) {
  const std::vector<int64_t> small = {t.out, t.taps};
  const std::vector<int64_t> big = {t.out, t.taps, t.in};
  Value idx = fn.constantData(TensorType(ElementType::kS64, small), t.idx.data());
  Value w = castTo(fn, fn.constantData(TensorType(ElementType::kF64, small), t.w.data()), ct);
  if (roundTo) {
    auto round = [&](Value v) { return castTo(fn, castTo(fn, v, *roundTo), ct); };
    if (t.taps == 2) {
      Value l1 = round(fn.slice(w, {0, 1}, {t.out, 2}));
      Value l0 = round(fn.subtract(fn.constant(1, ct, {t.out, 1}), l1));
      w = fn.concatenate({l0, l1}, 1);
    } else {
      w = round(w);
    }
  }
  Value hit =
      fn.compare(fn.broadcastInDim(idx, big, {0, 1}),
                 fn.iota(TensorType(ElementType::kS64, big), 2), hlo::ComparisonDirection::kEq);
  Value terms = fn.select(hit, fn.broadcastInDim(w, big, {0, 1}), fn.constant(0, ct, big));
  return fn.reduce(terms, fn.constant(0, ct), {1}, hlo::BinaryOp::kAdd);
}

std::vector<Value> interpolate(LowerCtx& c, int k, Kind kind, bool backward) {
  Function& fn = c.fn;
  Value x = c.tensor(backward ? "grad_output" : "self");
  if (!runtime::isFloating(x.dtype())) c.fail("interpolation of a non-floating tensor");
  const std::vector<int64_t> outSize = c.ints("output_size");
  if (static_cast<int>(outSize.size()) != k || x.rank() < k) c.fail("bad output_size");
  std::vector<int64_t> inSize;
  if (backward) {
    const std::vector<int64_t> input = c.ints("input_size");
    if (static_cast<int>(input.size()) < k) c.fail("bad input_size");
    inSize.assign(input.end() - k, input.end());
  } else {
    inSize.assign(x.dims().end() - k, x.dims().end());
  }
  for (int i = 0; i < k; ++i) {
    if (inSize[i] <= 0 || outSize[i] <= 0) c.fail("input and output sizes must be positive");
  }
  const bool align = c.b("align_corners");
  const auto scales = upsampleScales(c, k);
  // PyTorch's generic CPU kernel (linear 1d / 3d) stores the weights in the
  // input's type: bfloat16 / half inputs see rounded weights (then accumulate
  // in float). Its bilinear 2d and bicubic kernels keep float weights.
  const ElementType inType = x.dtype();
  const bool roundWeights = !backward && kind == Kind::kLinear && k != 2 &&
                            (inType == ElementType::kBF16 || inType == ElementType::kF16);
  const bool f64 = x.dtype() == ElementType::kF64;
  const ElementType ct = f64 ? ElementType::kF64 : ElementType::kF32;
  x = castTo(fn, x, ct);
  // Contracting the first spatial dim appends the new one at the end, so after
  // k steps the spatial dims are back in order.
  const int64_t dim = x.rank() - k;
  for (int i = 0; i < k; ++i) {
    const Taps t = f64 ? makeTaps<double>(kind, inSize[i], outSize[i], align, scales[i])
                       : makeTaps<float>(kind, inSize[i], outSize[i], align, scales[i]);
    hlo::DotDims d;
    d.lhsContracting = {dim};
    d.rhsContracting = {backward ? 0 : 1};
    Value w = weightMatrix(fn, t, ct, roundWeights ? std::optional(inType) : std::nullopt);
    x = fn.dotGeneral(x, w, d, std::nullopt, hlo::Precision::kHighest);
  }
  return {x};
}

const Registrar kLinear1d({"aten::upsample_linear1d", "aten::upsample_linear1d.out"},
                          [](LowerCtx& c) { return interpolate(c, 1, Kind::kLinear, false); });
const Registrar kLinear1dBackward({"aten::upsample_linear1d_backward",
                                   "aten::upsample_linear1d_backward.grad_input"},
                                  [](LowerCtx& c) {
                                    return interpolate(c, 1, Kind::kLinear, true);
                                  });
const Registrar kBilinear2d({"aten::upsample_bilinear2d", "aten::upsample_bilinear2d.out"},
                            [](LowerCtx& c) { return interpolate(c, 2, Kind::kLinear, false); });
const Registrar kBilinear2dBackward({"aten::upsample_bilinear2d_backward",
                                     "aten::upsample_bilinear2d_backward.grad_input"},
                                    [](LowerCtx& c) {
                                      return interpolate(c, 2, Kind::kLinear, true);
                                    });
const Registrar kTrilinear3d({"aten::upsample_trilinear3d", "aten::upsample_trilinear3d.out"},
                             [](LowerCtx& c) { return interpolate(c, 3, Kind::kLinear, false); });
const Registrar kTrilinear3dBackward({"aten::upsample_trilinear3d_backward",
                                      "aten::upsample_trilinear3d_backward.grad_input"},
                                     [](LowerCtx& c) {
                                       return interpolate(c, 3, Kind::kLinear, true);
                                     });
const Registrar kBicubic2d({"aten::upsample_bicubic2d", "aten::upsample_bicubic2d.out"},
                           [](LowerCtx& c) { return interpolate(c, 2, Kind::kCubic, false); });
const Registrar kBicubic2dBackward({"aten::upsample_bicubic2d_backward",
                                    "aten::upsample_bicubic2d_backward.grad_input"},
                                   [](LowerCtx& c) {
                                     return interpolate(c, 2, Kind::kCubic, true);
                                   });
const Registrar kBilinear2dAA({"aten::_upsample_bilinear2d_aa",
                               "aten::_upsample_bilinear2d_aa.out"},
                              [](LowerCtx& c) {
                                return interpolate(c, 2, Kind::kLinearAA, false);
                              });
const Registrar kBilinear2dAABackward({"aten::_upsample_bilinear2d_aa_backward",
                                       "aten::_upsample_bilinear2d_aa_backward.grad_input"},
                                      [](LowerCtx& c) {
                                        return interpolate(c, 2, Kind::kLinearAA, true);
                                      });
const Registrar kBicubic2dAA({"aten::_upsample_bicubic2d_aa", "aten::_upsample_bicubic2d_aa.out"},
                             [](LowerCtx& c) { return interpolate(c, 2, Kind::kCubicAA, false); });
const Registrar kBicubic2dAABackward({"aten::_upsample_bicubic2d_aa_backward",
                                      "aten::_upsample_bicubic2d_aa_backward.grad_input"},
                                     [](LowerCtx& c) {
                                       return interpolate(c, 2, Kind::kCubicAA, true);
                                     });

}  // namespace
}  // namespace torchtpu::lower
