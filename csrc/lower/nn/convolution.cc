// Convolution (any spatial rank, strides, padding, dilation, groups, transposed
// with output_padding, bias) and its backward (grad_input, grad_weight,
// grad_bias, selected by output_mask). On a PrivateUse1 device PyTorch routes
// conv1d/2d/3d and conv_transpose through aten::convolution -> _convolution ->
// convolution_overrideable, and the backward through convolution_backward ->
// convolution_backward_overrideable; all of them are registered here.
//
// Layouts are PyTorch's: input N C D..., weight O I/g D... (transposed:
// I O/g D...), output N C D.... A transposed convolution is the input gradient
// of the regular convolution whose weight has the same shape, and vice versa.
#include <algorithm>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using hlo::ConvDims;
using hlo::PadPair;

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation, outputPadding;
  bool transposed = false;
  int64_t groups = 1;
};

// A parameter list expanded to `n` spatial dims (PyTorch accepts one value for all).
std::vector<int64_t> expand(const LowerCtx& c, std::vector<int64_t> v, size_t n, const char* what) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n) c.fail(std::string(what) + " has the wrong length");
  return v;
}

ConvParams params(const LowerCtx& c, int64_t spatial) {
  ConvParams p;
  const size_t n = static_cast<size_t>(spatial);
  p.stride = expand(c, c.ints("stride"), n, "stride");
  p.padding = expand(c, c.ints("padding"), n, "padding");
  p.dilation = expand(c, c.ints("dilation"), n, "dilation");
  p.transposed = c.b("transposed");
  p.outputPadding = expand(c, c.ints("output_padding"), n, "output_padding");
  p.groups = c.i("groups");
  if (p.groups < 1) c.fail("groups must be positive");
  return p;
}

hlo::Precision precisionFor(ElementType t) {
  return runtime::isFloating(t) ? hlo::Precision::kHighest : hlo::Precision::kDefault;
}

std::vector<int64_t> spatialDims(int64_t spatial) {
  std::vector<int64_t> d;
  for (int64_t k = 0; k < spatial; ++k) d.push_back(k + 2);
  return d;
}

// The regular convolution: x N Cin I..., w Cout Cin/g K... -> N Cout O....
Value convForward(Function& fn, Value x, Value w, const ConvParams& p) {
  const int64_t s = x.rank() - 2;
  std::vector<PadPair> pads;
  for (int64_t k = 0; k < s; ++k) pads.emplace_back(p.padding[k], p.padding[k]);
  return fn.convolution(x, w, ConvDims::channelsFirst(s), p.stride, pads, {}, p.dilation, p.groups,
                        1, accType(x.dtype()), precisionFor(x.dtype()));
}

// The input gradient of the regular convolution (also the transposed
// convolution's forward): g N Cout O..., w Cout Cin/g K... -> N Cin I... with
// I = inSizes. Each input element receives the kernel-weighted output
// elements whose windows cover it: a stride-1 convolution of g dilated by the
// stride with the spatially reversed, in/out-swapped kernel.
Value convInputGrad(Function& fn, Value g, Value w, const std::vector<int64_t>& inSizes,
                    const ConvParams& p) {
  const int64_t s = g.rank() - 2;
  const int64_t cout = w.dims()[0], cinG = w.dims()[1], groups = p.groups;
  std::vector<int64_t> k(w.dims().begin() + 2, w.dims().end());
  // Cout Cin/g K -> g Cout/g Cin/g K -> g Cin/g Cout/g K -> Cin Cout/g K, reversed.
  std::vector<int64_t> split = {groups, cout / groups, cinG};
  split.insert(split.end(), k.begin(), k.end());
  Value wr = fn.reshape(w, split);
  std::vector<int64_t> perm = {0, 2, 1};
  for (int64_t d = 0; d < s; ++d) perm.push_back(d + 3);
  wr = fn.transpose(wr, perm);
  std::vector<int64_t> merged = {groups * cinG, cout / groups};
  merged.insert(merged.end(), k.begin(), k.end());
  wr = fn.reverse(fn.reshape(wr, merged), spatialDims(s));

  std::vector<PadPair> pads;
  bool negative = false;
  for (int64_t d = 0; d < s; ++d) {
    const int64_t o = g.dims()[d + 2];
    const int64_t lo = p.dilation[d] * (k[d] - 1) - p.padding[d];
    const int64_t hi = inSizes[d] + p.padding[d] - 1 - (o - 1) * p.stride[d];
    pads.emplace_back(lo, hi);
    negative = negative || lo < 0 || hi < 0;
  }
  const ConvDims dims = ConvDims::channelsFirst(s);
  if (!negative) {
    return fn.convolution(g, wr, dims, {}, pads, p.stride, p.dilation, groups, 1,
                          accType(g.dtype()), precisionFor(g.dtype()));
  }
  // Negative padding crops: dilate and pad explicitly (stablehlo.pad allows it).
  std::vector<int64_t> lo(2, 0), hi(2, 0), interior(2, 0);
  for (int64_t d = 0; d < s; ++d) {
    lo.push_back(pads[d].first);
    hi.push_back(pads[d].second);
    interior.push_back(p.stride[d] - 1);
  }
  Value padded = fn.pad(g, constantLike(fn, 0, g.dtype()), lo, hi, interior);
  return fn.convolution(padded, wr, dims, {}, {}, {}, p.dilation, groups, 1, accType(g.dtype()),
                        precisionFor(g.dtype()));
}

// The weight gradient of the regular convolution: x N Cin I..., g N Cout O...
// -> Cout Cin/g K.... grad_w[o, c, k] = sum_{n, j} x[n, c, j*stride + k*dil - pad] *
// g[n, o, j]: a convolution over x (channels as batch, batch as features)
// with g as the kernel, window stride = dilation and kernel dilation =
// stride; groups become batch groups.
Value convWeightGrad(Function& fn, Value x, Value g, const std::vector<int64_t>& kSizes,
                     const ConvParams& p) {
  const int64_t s = x.rank() - 2;
  std::vector<PadPair> pads;
  std::vector<int64_t> limit = x.dims();
  bool crop = false;
  for (int64_t d = 0; d < s; ++d) {
    const int64_t in = x.dims()[d + 2], o = g.dims()[d + 2];
    int64_t hi = (kSizes[d] - 1) * p.dilation[d] + (o - 1) * p.stride[d] + 1 - in - p.padding[d];
    if (hi < 0) {  // trailing input elements no window reaches
      limit[d + 2] = in + hi;
      hi = 0;
      crop = true;
    }
    pads.emplace_back(p.padding[d], hi);
  }
  if (crop) x = fn.slice(x, std::vector<int64_t>(x.rank(), 0), limit);
  ConvDims dims;
  dims.inputBatch = 1;
  dims.inputFeature = 0;
  dims.inputSpatial = spatialDims(s);
  dims.kernelInputFeature = 0;
  dims.kernelOutputFeature = 1;
  dims.kernelSpatial = spatialDims(s);
  dims.outputBatch = 1;
  dims.outputFeature = 0;
  dims.outputSpatial = spatialDims(s);
  return fn.convolution(x, g, dims, p.dilation, pads, {}, p.stride, 1, p.groups, accType(x.dtype()),
                        precisionFor(x.dtype()));
}

void checkTypes(const LowerCtx& c, const Value& x, const Value& w) {
  if (!runtime::isFloating(x.dtype())) c.fail("only floating-point convolutions are lowered");
  if (x.rank() < 3 || w.rank() != x.rank()) {
    c.fail("expects a batched input of rank >= 3 and a weight of the same rank, got " +
           hlo::dimsStr(x.dims()) + " and " + hlo::dimsStr(w.dims()));
  }
}

std::vector<Value> lowerConvolution(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  Value x = c.tensor("input");
  Value w = c.tensor("weight");
  checkTypes(c, x, w);
  const ConvParams p = params(c, x.rank() - 2);
  const ElementType t = out.dtype;
  x = castTo(fn, x, t);
  w = castTo(fn, w, t);
  Value y;
  if (!p.transposed) {
    y = convForward(fn, x, w, p);
  } else {
    std::vector<int64_t> outSizes(out.dims.begin() + 2, out.dims.end());
    y = convInputGrad(fn, x, w, outSizes, p);
  }
  if (y.dims() != out.dims) {
    c.fail("computed shape " + hlo::dimsStr(y.dims()) + " but PyTorch expects " +
           hlo::dimsStr(out.dims));
  }
  if (auto bias = c.optTensor("bias")) {
    Value b = castTo(fn, *bias, y.dtype());
    y = fn.add(y, fn.broadcastInDim(b, y.dims(), {1}));
  }
  return {y};
}

// Crops or zero-pads trailing spatial elements so that v has spatial sizes `want`.
Value fitSpatial(Function& fn, Value v, const std::vector<int64_t>& want) {
  if (v.dims() == want) return v;
  std::vector<int64_t> lo(v.rank(), 0), hi(v.rank(), 0);
  for (int64_t d = 2; d < v.rank(); ++d) hi[d] = want[d] - v.dims()[d];
  return fn.pad(v, constantLike(fn, 0, v.dtype()), lo, hi);
}

std::vector<Value> lowerConvolutionBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_output");
  Value x = c.tensor("input");
  Value w = c.tensor("weight");
  checkTypes(c, x, w);
  const ConvParams p = params(c, x.rank() - 2);
  // bool[3]; when the bridge does not pass it as a list, compute all three.
  std::vector<int64_t> mask = {1, 1, 1};
  try {
    mask = c.ints("output_mask");
  } catch (const LoweringError&) {
  }
  mask.resize(3, 0);
  const ElementType t = g.dtype();
  x = castTo(fn, x, t);
  w = castTo(fn, w, t);
  const int64_t s = x.rank() - 2;
  std::vector<int64_t> xSpatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kSpatial(w.dims().begin() + 2, w.dims().end());

  std::vector<Value> results;
  const size_t n = c.results().size();
  for (size_t k = 0; k < n; ++k) {
    const TensorType& want = c.result(k);
    Value r;
    if (k < 3 && mask[k] && want.numElements() > 0) {
      if (k == 0) {
        r = p.transposed ? fitSpatial(fn, convForward(fn, g, w, p), x.dims())
                         : convInputGrad(fn, g, w, xSpatial, p);
      } else if (k == 1) {
        r = p.transposed ? convWeightGrad(fn, g, x, kSpatial, p)
                         : convWeightGrad(fn, x, g, kSpatial, p);
      } else {
        std::vector<int64_t> dims = {0};
        for (int64_t d = 0; d < s; ++d) dims.push_back(d + 2);
        r = fn.reduce(castTo(fn, g, accType(t)), constantLike(fn, 0, accType(t)), dims,
                      hlo::BinaryOp::kAdd);
      }
      if (r.t().numElements() != want.numElements()) {
        c.fail("gradient " + std::to_string(k) + " has shape " + hlo::dimsStr(r.dims()) +
               " but PyTorch expects " + hlo::dimsStr(want.dims));
      }
    } else {
      r = constantLike(fn, 0, want.dtype, want.dims);
    }
    results.push_back(r);
  }
  return results;
}

const Registrar kConvolution({"aten::convolution", "aten::convolution.out",
                              "aten::convolution_overrideable",
                              "aten::convolution_overrideable.out", "aten::_convolution",
                              "aten::_convolution.out", "aten::_convolution.deprecated"},
                             lowerConvolution);
const Registrar kConvolutionBackward({"aten::convolution_backward",
                                      "aten::convolution_backward.out",
                                      "aten::convolution_backward_overrideable",
                                      "aten::convolution_backward_overrideable.out"},
                                     lowerConvolutionBackward);

}  // namespace
}  // namespace torchtpu::lower
