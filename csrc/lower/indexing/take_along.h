// Moving whole slices along one dim by a constant index map: a gather
// (out[..., j, ...] = x[..., idx[j], ...]) and its adjoint, a scatter-add.
#pragma once

#include <vector>

#include "lower/core/lowering.h"

namespace torchtpu::lower {

// out[..., j, ...] = x[..., idx[j], ...] along dim.
Value takeAlong(Function& fn, Value x, int64_t dim, const std::vector<int64_t>& idx);
// The adjoint of takeAlong: out[..., idx[j], ...] += g[..., j, ...], out of
// size `n` along dim.
Value addAlong(Function& fn, Value g, int64_t dim, const std::vector<int64_t>& idx, int64_t n);

}  // namespace torchtpu::lower
