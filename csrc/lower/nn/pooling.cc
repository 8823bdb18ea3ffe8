// Pooling over the trailing 1-3 spatial dims of a (batched or unbatched)
// channels-first tensor: max pooling with PyTorch's indices (the flat index of
// the chosen element within its input plane), average pooling (ceil_mode,
// count_include_pad, divisor_override), adaptive average pooling, and their
// backwards. max_pool1d/avg_pool1d and max_pool2d/adaptive_avg_pool2d are
// CompositeImplicit in PyTorch and arrive here as the 2-d ops (global adaptive
// pooling becomes a mean). Output sizes come from PyTorch's meta functions.
#include <algorithm>
#include <limits>

#include "lower/core/common.h"
#include "lower/nn/max_with_index.h"

namespace torchtpu::lower {
namespace {

using hlo::PadPair;

// Kernel, stride, padding and dilation of one pooling call, per spatial dim.
struct Window {
  int64_t spatial = 0;  // number of pooled dims
  int64_t lead = 0;     // dims before them
  std::vector<int64_t> kernel, stride, padding, dilation;
};

std::vector<int64_t> expand(const LowerCtx& c, std::vector<int64_t> v, int64_t n,
                            const char* what) {
  if (v.size() == 1) v.assign(n, v[0]);
  if (static_cast<int64_t>(v.size()) != n) c.fail(std::string(what) + " has the wrong length");
  return v;
}

Window window(const LowerCtx& c, const Value& x, int64_t spatial, bool hasDilation) {
  Window w;
  w.spatial = spatial;
  w.lead = x.rank() - spatial;
  if (w.lead < 1 || w.lead > 2)
    c.fail("expects an input of rank " + std::to_string(spatial + 1) + " or " +
           std::to_string(spatial + 2));
  w.kernel = expand(c, c.ints("kernel_size"), spatial, "kernel_size");
  std::vector<int64_t> stride = c.ints("stride");
  w.stride = stride.empty() ? w.kernel : expand(c, stride, spatial, "stride");
  w.padding = expand(c, c.ints("padding"), spatial, "padding");
  w.dilation = hasDilation ? expand(c, c.ints("dilation"), spatial, "dilation")
                           : std::vector<int64_t>(spatial, 1);
  return w;
}

int64_t spatialOf(const std::string& op) {
  if (op.find("pool3d") != std::string::npos) return 3;
  if (op.find("pool1d") != std::string::npos) return 1;
  return 2;
}

std::vector<int64_t> ones(int64_t n) { return std::vector<int64_t>(n, 1); }

// reduce_window attributes over all dims of x: the pooled dims get the window,
// padding `padding` low and enough high padding for `outDims` windows.
struct WindowAttrs {
  std::vector<int64_t> dims, strides, dilations;
  std::vector<PadPair> pads;
};

WindowAttrs windowAttrs(const Window& w, const Value& x, const std::vector<int64_t>& outDims) {
  WindowAttrs a;
  a.dims = ones(w.lead);
  a.strides = ones(w.lead);
  a.dilations = ones(w.lead);
  a.pads.assign(w.lead, {0, 0});
  for (int64_t d = 0; d < w.spatial; ++d) {
    const int64_t in = x.dims()[w.lead + d], out = outDims[w.lead + d];
    const int64_t extent = (w.kernel[d] - 1) * w.dilation[d] + 1;
    const int64_t hi = std::max<int64_t>(0, (out - 1) * w.stride[d] + extent - in - w.padding[d]);
    a.dims.push_back(w.kernel[d]);
    a.strides.push_back(w.stride[d]);
    a.dilations.push_back(w.dilation[d]);
    a.pads.emplace_back(w.padding[d], hi);
  }
  return a;
}

// Crops the windows computed past the ones PyTorch keeps.
Value cropTo(Function& fn, Value v, const std::vector<int64_t>& dims) {
  if (v.dims() == dims) return v;
  return fn.slice(v, std::vector<int64_t>(v.rank(), 0), dims);
}

// The flat index of each element within its plane (the pooled dims), as s64.
Value planeIndex(Function& fn, const Window& w, const std::vector<int64_t>& dims) {
  const TensorType t(ElementType::kS64, dims);
  Value idx = fn.constantInt(0, ElementType::kS64, dims);
  int64_t scale = 1;
  for (int64_t d = w.spatial - 1; d >= 0; --d) {
    Value term = fn.iota(t, w.lead + d);
    if (scale != 1) term = fn.multiply(term, fn.constantInt(scale, ElementType::kS64, dims));
    idx = fn.add(idx, term);
    scale *= dims[w.lead + d];
  }
  return idx;
}

// ---- max pooling -------------------------------------------------------------

// Max pooling picks with maxWithIndex (lower/nn/max_with_index.h).

std::vector<Value> lowerMaxPoolWithIndices(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isFloating(x.dtype())) c.fail("only floating-point max pooling is lowered");
  const Window w = window(c, x, spatialOf(c.op()), true);
  const std::vector<int64_t>& outDims = c.result(0).dims;
  const WindowAttrs a = windowAttrs(w, x, outDims);
  Value idx = planeIndex(fn, w, x.dims());
  Value lowest = fn.constant(-std::numeric_limits<double>::infinity(), x.dtype());
  Value big = fn.constantInt(std::numeric_limits<int64_t>::max(), ElementType::kS64);
  std::vector<Value> r = fn.reduceWindow({x, idx}, {lowest, big}, a.dims, a.strides, {},
                                         a.dilations, a.pads, maxWithIndex);
  return {cropTo(fn, r[0], outDims), cropTo(fn, r[1], outDims)};
}

// Each output gradient goes to the input element its index names (summed
// where windows overlap).
std::vector<Value> lowerMaxPoolBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_output");
  Value x = c.tensor("self");
  Value indices = castTo(fn, c.tensor("indices"), ElementType::kS64);
  const int64_t spatial = spatialOf(c.op());
  const int64_t lead = x.rank() - spatial;
  int64_t planes = 1, plane = 1, outPlane = 1;
  for (int64_t d = 0; d < lead; ++d) planes *= x.dims()[d];
  for (int64_t d = lead; d < x.rank(); ++d) plane *= x.dims()[d];
  for (int64_t d = lead; d < g.rank(); ++d) outPlane *= g.dims()[d];
  const ElementType t = accType(c.result().dtype);
  Value flatIdx = fn.reshape(indices, {planes, outPlane});
  Value base = fn.iota(TensorType(ElementType::kS64, {planes, outPlane}), 0);
  base = fn.multiply(base, fn.constantInt(plane, ElementType::kS64, {planes, outPlane}));
  flatIdx = fn.reshape(fn.add(flatIdx, base), {planes * outPlane, 1});
  Value updates = fn.reshape(castTo(fn, g, t), {planes * outPlane});
  hlo::ScatterDims dims;
  dims.insertedWindowDims = {0};
  dims.scatterDimsToOperandDims = {0};
  dims.indexVectorDim = 1;
  Value zeros = constantLike(fn, 0, t, {planes * plane});
  Value r =
      fn.scatter({zeros}, flatIdx, {updates}, dims, [](Function& rg, const std::vector<Value>& v) {
        return std::vector<Value>{rg.add(v[0], v[1])};
      })[0];
  return {fn.reshape(r, x.dims())};
}

// ---- average pooling ---------------------------------------------------------

// PyTorch's divisor for each output window, as an f64 constant of the pooled
// dims' output shape (1 where a window holds no input: its sum is 0 anyway).
Value avgDivisor(LowerCtx& c, const Window& w, const std::vector<int64_t>& inDims,
                 const std::vector<int64_t>& outDims) {
  const bool includePad = c.b("count_include_pad");
  const std::optional<int64_t> override = c.optInt("divisor_override");
  if (override && *override == 0) c.fail("divisor_override must be non-zero");
  std::vector<int64_t> shape(outDims.begin() + w.lead, outDims.end());
  // Per dim: window size with padding, and without.
  std::vector<std::vector<int64_t>> padded(w.spatial), valid(w.spatial);
  for (int64_t d = 0; d < w.spatial; ++d) {
    const int64_t in = inDims[w.lead + d];
    for (int64_t o = 0; o < shape[d]; ++o) {
      int64_t start = o * w.stride[d] - w.padding[d];
      int64_t end = std::min(start + w.kernel[d], in + w.padding[d]);
      padded[d].push_back(end - start);
      start = std::max<int64_t>(start, 0);
      end = std::min(end, in);
      valid[d].push_back(std::max<int64_t>(end - start, 0));
    }
  }
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> data(n);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat;
    int64_t pad = 1, val = 1;
    for (int64_t d = w.spatial - 1; d >= 0; --d) {
      const int64_t o = rest % shape[d];
      rest /= shape[d];
      pad *= padded[d][o];
      val *= valid[d][o];
    }
    double div =
        override ? static_cast<double>(*override) : static_cast<double>(includePad ? pad : val);
    data[flat] = val == 0 || div == 0 ? 1.0 : div;
  }
  return c.fn.constantData(TensorType(ElementType::kF64, shape), data.data());
}

Value broadcastPlane(Function& fn, Value planeValue, const std::vector<int64_t>& dims,
                     int64_t lead) {
  std::vector<int64_t> map;
  for (int64_t d = lead; d < static_cast<int64_t>(dims.size()); ++d) map.push_back(d);
  return fn.broadcastInDim(planeValue, dims, map);
}

std::vector<Value> lowerAvgPool(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isFloating(x.dtype())) c.fail("only floating-point average pooling is lowered");
  const Window w = window(c, x, spatialOf(c.op()), false);
  const std::vector<int64_t>& outDims = c.result().dims;
  const ElementType t = accType(x.dtype());
  const WindowAttrs a = windowAttrs(w, x, outDims);
  Value sum = fn.reduceWindow({castTo(fn, x, t)}, {constantLike(fn, 0, t)}, a.dims, a.strides, {},
                              a.dilations, a.pads, [](Function& r, const std::vector<Value>& v) {
                                return std::vector<Value>{r.add(v[0], v[1])};
                              })[0];
  sum = cropTo(fn, sum, outDims);
  Value div = castTo(fn, avgDivisor(c, w, x.dims(), outDims), t);
  return {fn.divide(sum, broadcastPlane(fn, div, outDims, w.lead))};
}

// Input element i receives g[o] / divisor[o] from every window o covering it:
// dilate g by the stride, pad, and sum windows of the kernel size.
std::vector<Value> lowerAvgPoolBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_output");
  Value x = c.tensor("self");
  const Window w = window(c, x, spatialOf(c.op()), false);
  const ElementType t = accType(c.result().dtype);
  Value div = castTo(fn, avgDivisor(c, w, x.dims(), g.dims()), t);
  Value scaled = fn.divide(castTo(fn, g, t), broadcastPlane(fn, div, g.dims(), w.lead));
  std::vector<int64_t> lo(w.lead, 0), hi(w.lead, 0), interior(w.lead, 0);
  for (int64_t d = 0; d < w.spatial; ++d) {
    const int64_t in = x.dims()[w.lead + d], out = g.dims()[w.lead + d];
    lo.push_back(w.kernel[d] - 1 - w.padding[d]);
    hi.push_back(in + w.padding[d] - (out - 1) * w.stride[d] - 1);
    interior.push_back(w.stride[d] - 1);
  }
  Value spread = fn.pad(scaled, constantLike(fn, 0, t), lo, hi, interior);
  std::vector<int64_t> wdims = ones(w.lead);
  wdims.insert(wdims.end(), w.kernel.begin(), w.kernel.end());
  Value r = fn.reduceWindow({spread}, {constantLike(fn, 0, t)}, wdims, {}, {}, {}, {},
                            [](Function& rg, const std::vector<Value>& v) {
                              return std::vector<Value>{rg.add(v[0], v[1])};
                            })[0];
  return {r};
}

// ---- adaptive average pooling --------------------------------------------------

// For one dim of input size `in` pooled to `out`: the 0/1 matrix (out, in) of
// which inputs each window covers (PyTorch: [floor(o*in/out), ceil((o+1)*in/out))),
// and the window sizes.
void adaptiveWindows(int64_t in, int64_t out, std::vector<double>& matrix,
                     std::vector<double>& counts) {
  matrix.assign(out * in, 0.0);
  counts.assign(out, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = (o * in) / out;
    const int64_t end = ((o + 1) * in + out - 1) / out;
    for (int64_t i = start; i < end; ++i) matrix[o * in + i] = 1.0;
    counts[o] = static_cast<double>(end - start);
  }
}

struct Adaptive {
  std::vector<Value> matrices;  // (out_d, in_d) per pooled dim, type t
  Value counts;                 // product of window sizes, pooled output shape, type t
};

Adaptive adaptive(Function& fn, const std::vector<int64_t>& inPlane,
                  const std::vector<int64_t>& outPlane, ElementType t) {
  Adaptive a;
  const int64_t s = static_cast<int64_t>(inPlane.size());
  std::vector<std::vector<double>> counts(s);
  for (int64_t d = 0; d < s; ++d) {
    std::vector<double> m;
    adaptiveWindows(inPlane[d], outPlane[d], m, counts[d]);
    a.matrices.push_back(castTo(
        fn, fn.constantData(TensorType(ElementType::kF64, {outPlane[d], inPlane[d]}), m.data()),
        t));
  }
  int64_t n = 1;
  for (int64_t o : outPlane) n *= o;
  std::vector<double> prod(n, 1.0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat;
    for (int64_t d = s - 1; d >= 0; --d) {
      prod[flat] *= counts[d][rest % outPlane[d]];
      rest /= outPlane[d];
    }
  }
  a.counts = castTo(fn, fn.constantData(TensorType(ElementType::kF64, outPlane), prod.data()), t);
  return a;
}

// Contracts the first pooled dim (at `lead`) of v with m's dim `mDim`; the
// new dim goes last, so applying this to each pooled dim in turn keeps order.
Value contractFirstPooled(Function& fn, Value v, Value m, int64_t lead, int64_t mDim) {
  hlo::DotDims d;
  d.lhsContracting = {lead};
  d.rhsContracting = {mDim};
  return fn.dotGeneral(v, m, d, std::nullopt, hlo::Precision::kHighest);
}

std::vector<Value> lowerAdaptiveAvgPool(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isFloating(x.dtype())) c.fail("only floating-point adaptive pooling is lowered");
  const int64_t s = spatialOf(c.op());
  const int64_t lead = x.rank() - s;
  const std::vector<int64_t>& outDims = c.result().dims;
  const ElementType t = accType(x.dtype());
  std::vector<int64_t> inPlane(x.dims().begin() + lead, x.dims().end());
  std::vector<int64_t> outPlane(outDims.begin() + lead, outDims.end());
  Adaptive a = adaptive(fn, inPlane, outPlane, t);
  Value v = castTo(fn, x, t);
  for (int64_t d = 0; d < s; ++d) v = contractFirstPooled(fn, v, a.matrices[d], lead, 1);
  return {fn.divide(v, broadcastPlane(fn, a.counts, outDims, lead))};
}

std::vector<Value> lowerAdaptiveAvgPoolBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value g = c.tensor("grad_output");
  Value x = c.tensor("self");
  const int64_t s = spatialOf(c.op());
  const int64_t lead = x.rank() - s;
  const ElementType t = accType(c.result().dtype);
  std::vector<int64_t> inPlane(x.dims().begin() + lead, x.dims().end());
  std::vector<int64_t> outPlane(g.dims().begin() + lead, g.dims().end());
  Adaptive a = adaptive(fn, inPlane, outPlane, t);
  Value v = fn.divide(castTo(fn, g, t), broadcastPlane(fn, a.counts, g.dims(), lead));
  for (int64_t d = 0; d < s; ++d) v = contractFirstPooled(fn, v, a.matrices[d], lead, 0);
  return {v};
}

const Registrar kMaxPool({"aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices.out",
                          "aten::max_pool3d_with_indices", "aten::max_pool3d_with_indices.out"},
                         lowerMaxPoolWithIndices);
const Registrar kMaxPoolBackward(
    {"aten::max_pool2d_with_indices_backward", "aten::max_pool2d_with_indices_backward.grad_input",
     "aten::max_pool3d_with_indices_backward", "aten::max_pool3d_with_indices_backward.grad_input",
     "aten::adaptive_max_pool2d_backward", "aten::adaptive_max_pool2d_backward.grad_input",
     "aten::adaptive_max_pool3d_backward", "aten::adaptive_max_pool3d_backward.grad_input"},
    lowerMaxPoolBackward);
const Registrar kAvgPool({"aten::avg_pool2d", "aten::avg_pool2d.out", "aten::avg_pool3d",
                          "aten::avg_pool3d.out"},
                         lowerAvgPool);
const Registrar kAvgPoolBackward({"aten::avg_pool2d_backward",
                                  "aten::avg_pool2d_backward.grad_input",
                                  "aten::avg_pool3d_backward",
                                  "aten::avg_pool3d_backward.grad_input"},
                                 lowerAvgPoolBackward);
const Registrar kAdaptiveAvgPool({"aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d.out",
                                  "aten::_adaptive_avg_pool3d", "aten::_adaptive_avg_pool3d.out"},
                                 lowerAdaptiveAvgPool);
const Registrar kAdaptiveAvgPoolBackward({"aten::_adaptive_avg_pool2d_backward",
                                          "aten::_adaptive_avg_pool2d_backward.out",
                                          "aten::_adaptive_avg_pool3d_backward",
                                          "aten::_adaptive_avg_pool3d_backward.out"},
                                         lowerAdaptiveAvgPoolBackward);

}  // namespace
}  // namespace torchtpu::lower
