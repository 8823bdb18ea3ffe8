// Adaptive max pooling (adaptive_max_pool2d / 3d; adaptive_max_pool1d arrives
// as the 2-d op) over the trailing spatial dims, with PyTorch's indices (the
// flat index of the chosen element within its input plane). Output o of a dim
// of size `in` pools [floor(o*in/out), ceil((o+1)*in/out)); windows differ in
// size, so each dim gathers its windows padded to the largest one (the padding
// marked invalid), and one variadic reduce over the window dims picks the max
// and its index. The backward op is max pooling's (registered in lower/nn/pooling.cc).
#include <limits>

#include "lower/core/common.h"
#include "lower/indexing/take_along.h"
#include "lower/nn/max_with_index.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;

std::vector<Value> adaptiveMaxPool(LowerCtx& c, int64_t k) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isFloating(x.dtype()))
    c.fail("only floating-point adaptive max pooling is lowered");
  const std::vector<int64_t> outSize = c.ints("output_size");
  if (static_cast<int64_t>(outSize.size()) != k || x.rank() < k + 1 || x.rank() > k + 2) {
    c.fail("bad input rank or output_size");
  }
  const int64_t lead = x.rank() - k;
  std::vector<int64_t> inSize(x.dims().begin() + lead, x.dims().end());
  std::vector<std::vector<int64_t>> starts(k);
  std::vector<int64_t> widths(k);
  for (int64_t d = 0; d < k; ++d) {
    const int64_t in = inSize[d], out = outSize[d];
    if (in <= 0 || out <= 0) c.fail("adaptive max pooling of an empty dimension");
    int64_t width = 0;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t s = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
      starts[d].push_back(s);
      width = std::max(width, e - s);
    }
    widths[d] = width;
  }
  // Gather each dim's windows: dim lead+2d becomes (out_d, width_d).
  Value v = x;
  for (int64_t d = 0; d < k; ++d) {
    const int64_t in = inSize[d], out = outSize[d], dim = lead + 2 * d;
    std::vector<int64_t> idx;
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t j = 0; j < widths[d]; ++j) idx.push_back(std::min(starts[d][o] + j, in - 1));
    }
    v = takeAlong(fn, v, dim, idx);
    std::vector<int64_t> dims = v.dims();
    dims.erase(dims.begin() + dim);
    dims.insert(dims.begin() + dim, {out, widths[d]});
    v = fn.reshape(v, dims);
  }
  // Per element: whether it lies in its window, and its flat plane index.
  const std::vector<int64_t> shape = v.dims();
  Value valid = fn.constant(1, ElementType::kPred, shape);
  Value flat = fn.constantInt(0, ElementType::kS64, shape);
  int64_t stride = 1;
  for (int64_t d = k - 1; d >= 0; --d) {
    const int64_t out = outSize[d], w = widths[d];
    std::vector<int64_t> pos, ok;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t e = ((o + 1) * inSize[d] + out - 1) / out;
      for (int64_t j = 0; j < w; ++j) {
        pos.push_back(std::min(starts[d][o] + j, inSize[d] - 1) * stride);
        ok.push_back(starts[d][o] + j < e ? 1 : 0);
      }
    }
    const TensorType small(ElementType::kS64, {out, w});
    const std::vector<int64_t> at = {lead + 2 * d, lead + 2 * d + 1};
    flat = fn.add(flat, fn.broadcastInDim(fn.constantData(small, pos.data()), shape, at));
    Value okV = fn.broadcastInDim(fn.constantData(small, ok.data()), shape, at);
    valid = fn.binary(B::kAnd, valid,
                      fn.compare(okV, fn.constantInt(0, ElementType::kS64, shape), D::kNe));
    stride *= inSize[d];
  }
  Value lowest = fn.constant(-std::numeric_limits<double>::infinity(), x.dtype());
  Value big = fn.constantInt(std::numeric_limits<int64_t>::max(), ElementType::kS64);
  v = fn.select(valid, v, fn.broadcastInDim(lowest, shape, {}));
  flat = fn.select(valid, flat, fn.broadcastInDim(big, shape, {}));
  std::vector<int64_t> windowDims;
  for (int64_t d = 0; d < k; ++d) windowDims.push_back(lead + 2 * d + 1);
  std::vector<Value> r = fn.reduce({v, flat}, {lowest, big}, windowDims, maxWithIndex);
  return {r[0], r[1]};
}

const Registrar kAdaptiveMax2d({"aten::adaptive_max_pool2d", "aten::adaptive_max_pool2d.out"},
                               [](LowerCtx& c) { return adaptiveMaxPool(c, 2); });
const Registrar kAdaptiveMax3d({"aten::adaptive_max_pool3d", "aten::adaptive_max_pool3d.out"},
                               [](LowerCtx& c) { return adaptiveMaxPool(c, 3); });

}  // namespace
}  // namespace torchtpu::lower
