// Nearest and nearest-exact upsampling (1-3d) and their backward ops. The
// forward op gathers along each spatial dim with PyTorch's constant source
// indices; the backward op scatter-adds the gradient through the same map.
#include <cmath>

#include "lower/core/common.h"
#include "lower/indexing/take_along.h"
#include "lower/nn/upsample_scales.h"

namespace torchtpu::lower {
namespace {

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

}  // namespace
}  // namespace torchtpu::lower
