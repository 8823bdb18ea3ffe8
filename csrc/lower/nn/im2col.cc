// im2col (nn.functional.unfold) and col2im (nn.functional.fold, and unfold's
// backward) over a batched [N, C, H, W] or unbatched [C, H, W] tensor. im2col
// pads the input and takes one strided slice per kernel offset (rows ordered
// channel-major, then kernel row, then kernel column, as PyTorch's columns);
// col2im is its adjoint: each kernel offset's slice is placed back with
// interior padding (the stride) and the pieces are summed, then cropped.
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

struct Geometry {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
  int64_t oh, ow;  // number of kernel positions per dim
};

Geometry geometry(const LowerCtx& c, int64_t h, int64_t w) {
  const auto pair = [&](const char* name) {
    const std::vector<int64_t> v = c.ints(name);
    if (v.size() != 2) c.fail(std::string(name) + " must have 2 elements");
    return v;
  };
  const auto k = pair("kernel_size"), d = pair("dilation"), p = pair("padding"), s = pair("stride");
  Geometry g{k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1], 0, 0};
  if (g.kh <= 0 || g.kw <= 0 || g.dh <= 0 || g.dw <= 0 || g.sh <= 0 || g.sw <= 0 || g.ph < 0 ||
      g.pw < 0) {
    c.fail("kernel_size, dilation and stride must be positive and padding non-negative");
  }
  g.oh = (h + 2 * g.ph - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  g.ow = (w + 2 * g.pw - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  if (g.oh <= 0 || g.ow <= 0) c.fail("the kernel does not fit in the padded input");
  return g;
}

std::vector<Value> im2col(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const bool batched = x.rank() == 4;
  if (!batched && x.rank() != 3) c.fail("expected a 3-d or 4-d input");
  if (!batched) x = fn.reshape(x, {1, x.dims()[0], x.dims()[1], x.dims()[2]});
  const int64_t n = x.dims()[0], ch = x.dims()[1];
  const Geometry g = geometry(c, x.dims()[2], x.dims()[3]);
  Value xp = fn.pad(x, fn.constant(0, x.dtype()), {0, 0, g.ph, g.pw}, {0, 0, g.ph, g.pw});
  std::vector<Value> parts;
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      Value s =
          fn.slice(xp, {0, 0, i * g.dh, j * g.dw},
                   {n, ch, i * g.dh + (g.oh - 1) * g.sh + 1, j * g.dw + (g.ow - 1) * g.sw + 1},
                   {1, 1, g.sh, g.sw});
      parts.push_back(fn.reshape(s, {n, ch, 1, g.oh * g.ow}));
    }
  }
  Value cols = parts.size() == 1 ? parts[0] : fn.concatenate(parts, 2);
  const int64_t rows = ch * g.kh * g.kw;
  if (!batched) return {fn.reshape(cols, {rows, g.oh * g.ow})};
  return {fn.reshape(cols, {n, rows, g.oh * g.ow})};
}

std::vector<Value> col2im(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  const bool batched = x.rank() == 3;
  if (!batched && x.rank() != 2) c.fail("expected a 2-d or 3-d input");
  if (!batched) x = fn.reshape(x, {1, x.dims()[0], x.dims()[1]});
  const std::vector<int64_t> out = c.ints("output_size");
  if (out.size() != 2) c.fail("output_size must have 2 elements");
  const Geometry g = geometry(c, out[0], out[1]);
  const int64_t n = x.dims()[0], kk = g.kh * g.kw;
  if (x.dims()[1] % kk != 0 || x.dims()[2] != g.oh * g.ow)
    c.fail("input does not match the blocks");
  const int64_t ch = x.dims()[1] / kk;
  const ElementType t = accType(x.dtype());
  Value cols = fn.reshape(castTo(fn, x, t), {n, ch, kk, g.oh, g.ow});
  const int64_t hp = out[0] + 2 * g.ph, wp = out[1] + 2 * g.pw;
  Value zero = fn.constant(0, t);
  Value acc = fn.constant(0, t, {n, ch, hp, wp});
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t k = i * g.kw + j;
      Value part = fn.reshape(fn.slice(cols, {0, 0, k, 0, 0}, {n, ch, k + 1, g.oh, g.ow}),
                              {n, ch, g.oh, g.ow});
      const int64_t loH = i * g.dh, loW = j * g.dw;
      const int64_t hiH = hp - (loH + (g.oh - 1) * g.sh + 1);
      const int64_t hiW = wp - (loW + (g.ow - 1) * g.sw + 1);
      acc = fn.add(
          acc, fn.pad(part, zero, {0, 0, loH, loW}, {0, 0, hiH, hiW}, {0, 0, g.sh - 1, g.sw - 1}));
    }
  }
  Value r = fn.slice(acc, {0, 0, g.ph, g.pw}, {n, ch, g.ph + out[0], g.pw + out[1]});
  if (!batched) return {fn.reshape(r, {ch, out[0], out[1]})};
  return {r};
}

const Registrar kIm2col({"aten::im2col", "aten::im2col.out"}, im2col);
const Registrar kCol2im({"aten::col2im", "aten::col2im.out"}, col2im);

}  // namespace
}  // namespace torchtpu::lower
