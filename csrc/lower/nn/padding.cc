// Reflection and replication padding (1-3d) and their backward ops. The
// forward op gathers along each padded dim with a constant index map; the
// backward op scatter-adds the gradient through the same map.
#include <algorithm>

#include "lower/core/common.h"
#include "lower/indexing/take_along.h"

namespace torchtpu::lower {
namespace {

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

const Registrar kReflect1d({"aten::reflection_pad1d", "aten::reflection_pad1d.out"},
                           [](LowerCtx& c) { return padOp(c, 1, true, false); });
const Registrar kReflect1dBackward({"aten::reflection_pad1d_backward",
                                    "aten::reflection_pad1d_backward.grad_input"},
                                   [](LowerCtx& c) { return padOp(c, 1, true, true); });
const Registrar kReflect2d({"aten::reflection_pad2d", "aten::reflection_pad2d.out"},
                           [](LowerCtx& c) { return padOp(c, 2, true, false); });
const Registrar kReflect2dBackward({"aten::reflection_pad2d_backward",
                                    "aten::reflection_pad2d_backward.grad_input"},
                                   [](LowerCtx& c) { return padOp(c, 2, true, true); });
const Registrar kReflect3d({"aten::reflection_pad3d", "aten::reflection_pad3d.out"},
                           [](LowerCtx& c) { return padOp(c, 3, true, false); });
const Registrar kReflect3dBackward({"aten::reflection_pad3d_backward",
                                    "aten::reflection_pad3d_backward.grad_input"},
                                   [](LowerCtx& c) { return padOp(c, 3, true, true); });
const Registrar kReplicate1d({"aten::replication_pad1d", "aten::replication_pad1d.out"},
                             [](LowerCtx& c) { return padOp(c, 1, false, false); });
const Registrar kReplicate1dBackward({"aten::replication_pad1d_backward",
                                      "aten::replication_pad1d_backward.grad_input"},
                                     [](LowerCtx& c) { return padOp(c, 1, false, true); });
const Registrar kReplicate2d({"aten::replication_pad2d", "aten::replication_pad2d.out"},
                             [](LowerCtx& c) { return padOp(c, 2, false, false); });
const Registrar kReplicate2dBackward({"aten::replication_pad2d_backward",
                                      "aten::replication_pad2d_backward.grad_input"},
                                     [](LowerCtx& c) { return padOp(c, 2, false, true); });
const Registrar kReplicate3d({"aten::replication_pad3d", "aten::replication_pad3d.out"},
                             [](LowerCtx& c) { return padOp(c, 3, false, false); });
const Registrar kReplicate3dBackward({"aten::replication_pad3d_backward",
                                      "aten::replication_pad3d_backward.grad_input"},
                                     [](LowerCtx& c) { return padOp(c, 3, false, true); });

}  // namespace
}  // namespace torchtpu::lower
