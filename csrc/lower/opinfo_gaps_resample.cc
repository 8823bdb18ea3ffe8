// Ops that move whole elements by a fixed index map along each spatial
// dimension, found on the CPU fallback by the OpInfo sweep: nearest and
// nearest-exact upsampling, reflection and replication padding (1-3d), and
// their backward ops. The forward op gathers along each dim with constant
// indices; the backward op scatter-adds the gradient through the same map.
#include <cmath>

#include "lower/common.h"
#include "lower/take_along.h"
#include "lower/upsample_scales.h"

namespace torchtpu::lower {
namespace {

// ---- index maps -----------------------------------------------------------------

// PyTorch's nearest source index, computed in float as its CPU kernel does.
std::vector<int64_t> nearestMap(int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  const float s = (scale && *scale > 0) ? static_cast<float>(1.0 / *scale)
                                        : static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> idx(out);
  for (int64_t j = 0; j < out; ++j) {
    const float src = exact ? std::floor((static_cast<float>(j) + 0.5f) * s)
                            : std::floor(static_cast<float>(j) * s);
    idx[j] = std::min(static_cast<int64_t>(src), in - 1);
  }
  return idx;
}

std::vector<int64_t> padMap(int64_t in, int64_t lo, int64_t hi, bool reflect) {
  const int64_t out = in + lo + hi;
  std::vector<int64_t> idx(std::max<int64_t>(out, 0));
  for (int64_t j = 0; j < out; ++j) {
    int64_t i = j - lo;
    if (reflect) {
      if (i < 0) i = -i;
      if (i >= in) i = 2 * (in - 1) - i;
    } else {
      i = std::clamp<int64_t>(i, 0, in - 1);
    }
    idx[j] = i;
  }
  return idx;
}

// ---- upsample_nearest ---------------------------------------------------------------

std::vector<Value> upsample(LowerCtx& c, int k, bool exact, bool backward) {
  Function& fn = c.fn;
  Value x = c.tensor(backward ? "grad_output" : "self");
  const std::vector<int64_t> outSize = c.ints("output_size");
  if (static_cast<int>(outSize.size()) != k || x.rank() < k) c.fail("bad output_size");
  std::vector<int64_t> inSize;
  if (backward) {
    const std::vector<int64_t> input = c.ints("input_size");
    inSize.assign(input.end() - k, input.end());
  } else {
    inSize.assign(x.dims().end() - k, x.dims().end());
  }
  const auto scales = upsampleScales(c, k);
  for (int i = 0; i < k; ++i) {
    const int64_t dim = x.rank() - k + i;
    const auto idx = nearestMap(inSize[i], outSize[i], scales[i], exact);
    x = backward ? addAlong(fn, x, dim, idx, inSize[i]) : takeAlong(fn, x, dim, idx);
  }
  return {x};
}

#define TORCHTPU_UPSAMPLE(var, name, k, exact)                                              \
  const Registrar var##F({"aten::" name, "aten::" name ".out"},                             \
                         [](LowerCtx& c) { return upsample(c, k, exact, false); });         \
  const Registrar var##B({"aten::" name "_backward", "aten::" name "_backward.grad_input"}, \
                         [](LowerCtx& c) { return upsample(c, k, exact, true); })

TORCHTPU_UPSAMPLE(kNearest1d, "upsample_nearest1d", 1, false);
TORCHTPU_UPSAMPLE(kNearest2d, "upsample_nearest2d", 2, false);
TORCHTPU_UPSAMPLE(kNearest3d, "upsample_nearest3d", 3, false);
TORCHTPU_UPSAMPLE(kNearestExact1d, "_upsample_nearest_exact1d", 1, true);
TORCHTPU_UPSAMPLE(kNearestExact2d, "_upsample_nearest_exact2d", 2, true);
TORCHTPU_UPSAMPLE(kNearestExact3d, "_upsample_nearest_exact3d", 3, true);

#undef TORCHTPU_UPSAMPLE

// ---- reflection / replication padding -------------------------------------------------

std::vector<Value> padOp(LowerCtx& c, int k, bool reflect, bool backward) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  Value x = backward ? castTo(fn, c.tensor("grad_output"), self.dtype()) : self;
  const std::vector<int64_t> pad = c.ints("padding");
  if (static_cast<int>(pad.size()) != 2 * k || self.rank() < k) c.fail("bad padding");
  // padding lists (lo, hi) pairs from the last dim backwards.
  for (int i = 0; i < k; ++i) {
    const int64_t dim = self.rank() - 1 - i;
    const int64_t in = self.dims()[dim];
    const int64_t lo = pad[2 * i], hi = pad[2 * i + 1];
    if (reflect && (lo >= in || hi >= in))
      c.fail("reflection padding must be smaller than the input");
    if (in == 0) c.fail("padding an empty dimension");
    const auto idx = padMap(in, lo, hi, reflect);
    x = backward ? addAlong(fn, x, dim, idx, in) : takeAlong(fn, x, dim, idx);
  }
  return {x};
}

#define TORCHTPU_PAD(var, name, k, reflect)                                                 \
  const Registrar var##F({"aten::" name, "aten::" name ".out"},                             \
                         [](LowerCtx& c) { return padOp(c, k, reflect, false); });          \
  const Registrar var##B({"aten::" name "_backward", "aten::" name "_backward.grad_input"}, \
                         [](LowerCtx& c) { return padOp(c, k, reflect, true); })

TORCHTPU_PAD(kReflect1d, "reflection_pad1d", 1, true);
TORCHTPU_PAD(kReflect2d, "reflection_pad2d", 2, true);
TORCHTPU_PAD(kReflect3d, "reflection_pad3d", 3, true);
TORCHTPU_PAD(kReplicate1d, "replication_pad1d", 1, false);
TORCHTPU_PAD(kReplicate2d, "replication_pad2d", 2, false);
TORCHTPU_PAD(kReplicate3d, "replication_pad3d", 3, false);

#undef TORCHTPU_PAD

}  // namespace
}  // namespace torchtpu::lower
