// Helpers shared by the lowerings that index one dim or a flattened tensor
// (index_fill, index_copy, index_reduce, take, put) and by max_unpool:
// wrapping negative indices, and the combiners of their scatters.
#pragma once

#include <cstdint>

#include "lower/core/lowering.h"

namespace torchtpu::lower::indexing {

// idx as s64, negative entries wrapped by `size`.
Value wrapIndex(Function& fn, Value idx, int64_t size);

// A scatter's combiner: with `add` the sum of the old and the new value (or
// for bools), otherwise the new value.
hlo::RegionFn combiner(bool add);

}  // namespace torchtpu::lower::indexing
