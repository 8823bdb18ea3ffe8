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

const Registrar kNearest1d({"aten::upsample_nearest1d", "aten::upsample_nearest1d.out"},
                           [](LowerCtx& c) { return upsample(c, 1, false, false); });
const Registrar kNearest1dBackward({"aten::upsample_nearest1d_backward",
                                    "aten::upsample_nearest1d_backward.grad_input"},
                                   [](LowerCtx& c) { return upsample(c, 1, false, true); });
const Registrar kNearest2d({"aten::upsample_nearest2d", "aten::upsample_nearest2d.out"},
                           [](LowerCtx& c) { return upsample(c, 2, false, false); });
const Registrar kNearest2dBackward({"aten::upsample_nearest2d_backward",
                                    "aten::upsample_nearest2d_backward.grad_input"},
                                   [](LowerCtx& c) { return upsample(c, 2, false, true); });
const Registrar kNearest3d({"aten::upsample_nearest3d", "aten::upsample_nearest3d.out"},
                           [](LowerCtx& c) { return upsample(c, 3, false, false); });
const Registrar kNearest3dBackward({"aten::upsample_nearest3d_backward",
                                    "aten::upsample_nearest3d_backward.grad_input"},
                                   [](LowerCtx& c) { return upsample(c, 3, false, true); });
const Registrar kNearestExact1d({"aten::_upsample_nearest_exact1d",
                                 "aten::_upsample_nearest_exact1d.out"},
                                [](LowerCtx& c) { return upsample(c, 1, true, false); });
const Registrar kNearestExact1dBackward({"aten::_upsample_nearest_exact1d_backward",
                                         "aten::_upsample_nearest_exact1d_backward.grad_input"},
                                        [](LowerCtx& c) { return upsample(c, 1, true, true); });
const Registrar kNearestExact2d({"aten::_upsample_nearest_exact2d",
                                 "aten::_upsample_nearest_exact2d.out"},
                                [](LowerCtx& c) { return upsample(c, 2, true, false); });
const Registrar kNearestExact2dBackward({"aten::_upsample_nearest_exact2d_backward",
                                         "aten::_upsample_nearest_exact2d_backward.grad_input"},
                                        [](LowerCtx& c) { return upsample(c, 2, true, true); });
const Registrar kNearestExact3d({"aten::_upsample_nearest_exact3d",
                                 "aten::_upsample_nearest_exact3d.out"},
                                [](LowerCtx& c) { return upsample(c, 3, true, false); });
const Registrar kNearestExact3dBackward({"aten::_upsample_nearest_exact3d_backward",
                                         "aten::_upsample_nearest_exact3d_backward.grad_input"},
                                        [](LowerCtx& c) { return upsample(c, 3, true, true); });

}  // namespace
}  // namespace torchtpu::lower
