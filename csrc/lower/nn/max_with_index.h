// The combiner of max pooling with indices (max_pool, adaptive_max_pool): a
// reduce body over (value, index) pairs in PyTorch's order. NaN is above
// everything (among NaNs the later index wins), then larger values, and among
// equal values the earlier index: the first maximum in window order, and the
// last NaN seen.
#pragma once

#include <vector>

#include "lower/core/lowering.h"

namespace torchtpu::lower {

// a = (value a, index a, value b, index b) -> (value, index) of the winner.
std::vector<Value> maxWithIndex(Function& r, const std::vector<Value>& a);

}  // namespace torchtpu::lower
