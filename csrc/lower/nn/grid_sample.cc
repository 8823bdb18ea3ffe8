// grid_sampler_2d / grid_sampler_3d and their backward ops: bilinear
// (trilinear), nearest and (2-d) bicubic sampling of [N, C, *in] at the grid's
// normalized coordinates, with zeros / border / reflection padding and both
// align_corners conventions, following PyTorch's CPU kernels. Each output
// point reads a few taps (2, 1 or 4 per dim): a tap is an integer index per
// dim and a weight; values come from a gather of the [N, P, C] input (P the
// flattened plane), the input gradient is the matching scatter-add, and the
// grid gradient sums the taps' values times the weights' derivatives. All
// arithmetic is in the input's type, as PyTorch's CPU kernels do (bfloat16
// coordinates and weights included).
#include <cmath>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;
using U = hlo::UnaryOp;

enum Interp : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// One tap along one dim: integer index (as float), weight, d weight / d coord.
struct DimTap {
  Value index, weight, dweight;
};

struct Sampler {
  Function& fn;
  ElementType t;
  int64_t k = 0, n = 0, ch = 0;
  std::vector<int64_t> in;     // spatial input sizes
  std::vector<int64_t> shape;  // [N, *out]
  int64_t interp = 0, padding = 0;
  bool align = false;

  Value c(double v) const { return fn.constant(v, t, shape); }

  Value clip(Value x, int64_t size, Value* grad) const {
    Value lo = c(0), hi = c(static_cast<double>(size - 1));
    if (grad) {
      Value inside = fn.binary(B::kAnd, fn.compare(x, lo, D::kGt), fn.compare(x, hi, D::kLt));
      *grad = fn.multiply(*grad, fn.select(inside, c(1), c(0)));
    }
    return fn.minimum(hi, fn.maximum(x, lo));
  }

  Value reflect(Value x, double twiceLow, double twiceHigh, Value* grad) const {
    if (twiceLow == twiceHigh) {
      if (grad) *grad = c(0);
      return c(0);
    }
    const double mn = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    Value shifted = fn.subtract(x, c(mn));
    Value neg = fn.compare(shifted, c(0), D::kLt);
    Value a = fn.abs(shifted);
    Value extra = fn.binary(B::kRemainder, a, c(span));
    Value flips = fn.unary(U::kFloor, fn.divide(a, c(span)));
    Value even = fn.compare(fn.binary(B::kRemainder, flips, c(2)), c(0), D::kEq);
    if (grad) {
      Value mult = fn.select(neg, c(-1), c(1));
      *grad = fn.multiply(*grad, fn.select(even, mult, fn.negate(mult)));
    }
    return fn.select(even, fn.add(extra, c(mn)), fn.add(fn.subtract(c(span), extra), c(mn)));
  }

  // PyTorch's padding of a source coordinate (border / reflection).
  Value pad(Value x, int64_t size, Value* grad) const {
    if (padding == kBorder) return clip(x, size, grad);
    if (padding == kReflection) {
      x = align ? reflect(x, 0, 2.0 * static_cast<double>(size - 1), grad)
                : reflect(x, -1, 2.0 * static_cast<double>(size) - 1, grad);
      return clip(x, size, grad);
    }
    return x;
  }

  Value unnormalize(Value g, int64_t size) const {
    const double s = static_cast<double>(size);
    if (align) return fn.multiply(fn.divide(fn.add(g, c(1)), c(2)), c(s - 1));
    return fn.divide(fn.subtract(fn.multiply(fn.add(g, c(1)), c(s)), c(1)), c(2));
  }

  // The taps of one dim for normalized coordinates g; *mult gets d src / d g.
  std::vector<DimTap> taps(Value g, int64_t size, Value* mult) const {
    const double s = static_cast<double>(size);
    *mult = c(align ? (s - 1) / 2 : s / 2);
    Value src = unnormalize(g, size);
    if (interp == kBicubic) {
      Value lo = fn.unary(U::kFloor, src);
      Value tt = fn.subtract(src, lo);
      const double a = -0.75;
      auto c1 = [&](Value x) {  // ((a + 2) x - (a + 3)) x x + 1
        return fn.add(
            fn.multiply(fn.multiply(fn.subtract(fn.multiply(c(a + 2), x), c(a + 3)), x), x), c(1));
      };
      auto c1d = [&](Value x) {  // 3 (a + 2) x^2 - 2 (a + 3) x
        return fn.subtract(fn.multiply(c(3 * (a + 2)), fn.multiply(x, x)),
                           fn.multiply(c(2 * (a + 3)), x));
      };
      auto c2 = [&](Value x) {  // ((a x - 5a) x + 8a) x - 4a
        return fn.subtract(
            fn.multiply(
                fn.add(fn.multiply(fn.subtract(fn.multiply(c(a), x), c(5 * a)), x), c(8 * a)), x),
            c(4 * a));
      };
      auto c2d = [&](Value x) {  // 3a x^2 - 10a x + 8a
        return fn.add(
            fn.subtract(fn.multiply(c(3 * a), fn.multiply(x, x)), fn.multiply(c(10 * a), x)),
            c(8 * a));
      };
      Value t1 = fn.add(tt, c(1)), u = fn.subtract(c(1), tt), u1 = fn.add(u, c(1));
      const Value w[4] = {c2(t1), c1(tt), c1(u), c2(u1)};
      const Value dw[4] = {c2d(t1), c1d(tt), fn.negate(c1d(u)), fn.negate(c2d(u1))};
      std::vector<DimTap> out;
      for (int i = 0; i < 4; ++i) {
        Value idx = pad(fn.add(lo, c(static_cast<double>(i - 1))), size, nullptr);
        out.push_back({idx, w[i], dw[i]});
      }
      return out;
    }
    src = pad(src, size, mult);
    if (interp == kNearest) {
      return {{fn.unary(U::kRoundNearestEven, src), c(1), c(0)}};
    }
    Value lo = fn.unary(U::kFloor, src);
    Value f = fn.subtract(src, lo);
    return {{lo, fn.subtract(c(1), f), c(-1)}, {fn.add(lo, c(1)), f, c(1)}};
  }
};

struct Combo {
  Value indices;                         // [N, *out, 2] s64: batch, flat plane index
  Value valid;                           // [N, *out] i1
  std::vector<Value> weights, dweights;  // per dim
};

std::vector<Combo> combos(Sampler& s, const std::vector<std::vector<DimTap>>& perDim) {
  Function& fn = s.fn;
  std::vector<Combo> out;
  std::vector<size_t> pick(s.k, 0);
  const TensorType idxT(ElementType::kS64, s.shape);
  std::vector<int64_t> idxDims = s.shape;
  idxDims.push_back(1);
  Value batch = fn.reshape(fn.iota(idxT, 0), idxDims);
  while (true) {
    Combo cb;
    Value flat = fn.constantInt(0, ElementType::kS64, s.shape);
    Value valid = fn.constant(1, ElementType::kPred, s.shape);
    for (int64_t d = 0; d < s.k; ++d) {
      const DimTap& tap = perDim[d][pick[d]];
      Value inside =
          fn.binary(B::kAnd, fn.compare(tap.index, s.c(0), D::kGe),
                    fn.compare(tap.index, s.c(static_cast<double>(s.in[d] - 1)), D::kLe));
      valid = fn.binary(B::kAnd, valid, inside);
      Value i = fn.convert(
          fn.minimum(s.c(static_cast<double>(s.in[d] - 1)), fn.maximum(tap.index, s.c(0))),
          ElementType::kS64);
      flat = fn.add(fn.multiply(flat, fn.constantInt(s.in[d], ElementType::kS64, s.shape)), i);
      cb.weights.push_back(tap.weight);
      cb.dweights.push_back(tap.dweight);
    }
    cb.valid = valid;
    cb.indices = fn.concatenate({batch, fn.reshape(flat, idxDims)}, s.k + 1);
    out.push_back(cb);
    int64_t d = s.k - 1;
    while (d >= 0 && ++pick[d] == perDim[d].size()) pick[d--] = 0;
    if (d < 0) break;
  }
  return out;
}

hlo::GatherDims gatherDims(int64_t k) {
  hlo::GatherDims g;
  g.offsetDims = {k + 1};
  g.collapsedSliceDims = {0, 1};
  g.startIndexMap = {0, 1};
  g.indexVectorDim = k + 1;
  return g;
}

struct Prepared {
  Sampler s;
  Value xt;  // [N, P, C]
  std::vector<std::vector<DimTap>> perDim;
  std::vector<Value> mults;
  std::vector<Combo> cbs;
};

Prepared prepare(LowerCtx& c, int64_t k) {
  Function& fn = c.fn;
  Value x = c.tensor("input");
  Value grid = c.tensor("grid");
  if (x.rank() != k + 2 || grid.rank() != k + 2 || grid.dims().back() != k ||
      grid.dims()[0] != x.dims()[0]) {
    c.fail("bad input / grid shapes");
  }
  const ElementType t = x.dtype();
  Prepared p{Sampler{fn, t}, {}, {}, {}, {}};
  Sampler& s = p.s;
  s.k = k;
  s.n = x.dims()[0];
  s.ch = x.dims()[1];
  s.in.assign(x.dims().begin() + 2, x.dims().end());
  s.shape.assign(grid.dims().begin(), grid.dims().end() - 1);
  s.interp = c.i("interpolation_mode");
  s.padding = c.i("padding_mode");
  s.align = c.b("align_corners");
  if (s.interp < 0 || s.interp > 2 || s.padding < 0 || s.padding > 2) c.fail("bad mode");
  if (s.interp == kBicubic && k != 2) c.fail("bicubic sampling is 2-d only");
  int64_t plane = 1;
  for (int64_t v : s.in) plane *= v;
  std::vector<int64_t> perm = {0};
  for (int64_t d = 0; d < k; ++d) perm.push_back(2 + d);
  perm.push_back(1);
  p.xt = fn.reshape(fn.transpose(castTo(fn, x, t), perm), {s.n, plane, s.ch});
  grid = castTo(fn, grid, t);
  for (int64_t d = 0; d < k; ++d) {
    // The grid's last dim lists x (the last spatial dim) first.
    const int64_t comp = k - 1 - d;
    std::vector<int64_t> start(k + 2, 0), limit = grid.dims();
    start[k + 1] = comp;
    limit[k + 1] = comp + 1;
    Value g = fn.reshape(fn.slice(grid, start, limit), s.shape);
    Value mult;
    p.perDim.push_back(s.taps(g, s.in[d], &mult));
    p.mults.push_back(mult);
  }
  p.cbs = combos(s, p.perDim);
  return p;
}

Value weightOf(Function& fn, const Combo& cb, int64_t skip = -1) {
  Value w;
  for (size_t d = 0; d < cb.weights.size(); ++d) {
    if (static_cast<int64_t>(d) == skip) continue;
    w = w.valid() ? fn.multiply(w, cb.weights[d]) : cb.weights[d];
  }
  return w;
}

// [N, *out] broadcast along a trailing C dim.
Value withC(const Sampler& s, Value v) {
  std::vector<int64_t> dims = s.shape, at;
  dims.push_back(s.ch);
  for (int64_t d = 0; d <= s.k; ++d) at.push_back(d);
  return s.fn.broadcastInDim(v, dims, at);
}

// [N, *out, C] -> [N, C, *out].
Value channelsFirst(const Sampler& s, Value v) {
  std::vector<int64_t> perm = {0, s.k + 1};
  for (int64_t d = 1; d <= s.k; ++d) perm.push_back(d);
  return s.fn.transpose(v, perm);
}

std::vector<Value> gridSample(LowerCtx& c, int64_t k) {
  Function& fn = c.fn;
  Prepared p = prepare(c, k);
  const Sampler& s = p.s;
  std::vector<int64_t> sliceSizes = {1, 1, s.ch};
  std::vector<int64_t> outC = s.shape;
  outC.push_back(s.ch);
  Value acc = fn.constant(0, s.t, outC);
  for (const Combo& cb : p.cbs) {
    Value v = fn.gather(p.xt, cb.indices, gatherDims(k), sliceSizes);
    Value w = fn.select(cb.valid, weightOf(fn, cb), s.c(0));
    acc = fn.add(acc, fn.multiply(v, withC(s, w)));
  }
  return {channelsFirst(s, acc)};
}

std::vector<Value> gridSampleBackward(LowerCtx& c, int64_t k) {
  Function& fn = c.fn;
  Prepared p = prepare(c, k);
  const Sampler& s = p.s;
  std::vector<int64_t> perm = {0};
  for (int64_t d = 0; d < k; ++d) perm.push_back(2 + d);
  perm.push_back(1);
  Value g = fn.transpose(castTo(fn, c.tensor("grad_output"), s.t), perm);  // [N, *out, C]
  std::vector<int64_t> sliceSizes = {1, 1, s.ch};
  hlo::ScatterDims sd;
  sd.updateWindowDims = {k + 1};
  sd.insertedWindowDims = {0, 1};
  sd.scatterDimsToOperandDims = {0, 1};
  sd.indexVectorDim = k + 1;
  auto add = [](Function& r, const std::vector<Value>& a) {
    return std::vector<Value>{r.add(a[0], a[1])};
  };
  Value gradIn = fn.constant(0, s.t, p.xt.dims());
  std::vector<Value> gradCoord(k, s.c(0));
  for (const Combo& cb : p.cbs) {
    Value w = fn.select(cb.valid, weightOf(fn, cb), s.c(0));
    gradIn = fn.scatter({gradIn}, cb.indices, {fn.multiply(g, withC(s, w))}, sd, add)[0];
    if (s.interp == kNearest) continue;
    Value v = fn.gather(p.xt, cb.indices, gatherDims(k), sliceSizes);
    Value gv = fn.reduce(fn.multiply(g, v), fn.constant(0, s.t), {k + 1}, B::kAdd);
    gv = fn.select(cb.valid, gv, s.c(0));
    for (int64_t d = 0; d < k; ++d) {
      Value others = k > 1 ? weightOf(fn, cb, d) : s.c(1);
      gradCoord[d] = fn.add(gradCoord[d], fn.multiply(gv, fn.multiply(others, cb.dweights[d])));
    }
  }
  // Back to [N, C, *in] and the grid's [N, *out, k] (x first).
  std::vector<int64_t> inDims = {s.n};
  inDims.insert(inDims.end(), s.in.begin(), s.in.end());
  inDims.push_back(s.ch);
  Value gi = fn.reshape(gradIn, inDims);
  std::vector<int64_t> back = {0, k + 1};
  for (int64_t d = 1; d <= k; ++d) back.push_back(d);
  gi = fn.transpose(gi, back);
  std::vector<Value> comps;
  std::vector<int64_t> compDims = s.shape;
  compDims.push_back(1);
  for (int64_t comp = 0; comp < k; ++comp) {
    const int64_t d = k - 1 - comp;
    comps.push_back(fn.reshape(fn.multiply(gradCoord[d], p.mults[d]), compDims));
  }
  Value gg = k == 1 ? comps[0] : fn.concatenate(comps, k + 1);
  return {gi, gg};
}

const Registrar k2d({"aten::grid_sampler_2d", "aten::grid_sampler_2d.out"},
                    [](LowerCtx& c) { return gridSample(c, 2); });
const Registrar k3d({"aten::grid_sampler_3d", "aten::grid_sampler_3d.out"},
                    [](LowerCtx& c) { return gridSample(c, 3); });
const Registrar k2dB({"aten::grid_sampler_2d_backward", "aten::grid_sampler_2d_backward.out"},
                     [](LowerCtx& c) { return gridSampleBackward(c, 2); });
const Registrar k3dB({"aten::grid_sampler_3d_backward", "aten::grid_sampler_3d_backward.out"},
                     [](LowerCtx& c) { return gridSampleBackward(c, 3); });

}  // namespace
}  // namespace torchtpu::lower
