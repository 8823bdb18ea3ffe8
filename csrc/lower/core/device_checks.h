// Device-side checks shared by lowerings (see lower::DeviceCheck): the index
// range checks of the indexing ops and checks of a whole predicate. They are
// declarations; only launch_blocking programs compute them.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "lower/core/lowering.h"

namespace torchtpu::lower {

// Declares that every element of `index` (an integer tensor of any shape)
// lies in [lo, hi) or equals `also` (an ignore_index). On failure
// `message`'s "{}" is the first offending index in row-major order.
void checkIndexRange(LowerCtx& c, Value index, int64_t lo, int64_t hi, DeviceCheck::Error error,
                     std::string message, std::optional<int64_t> also = std::nullopt);

// PyTorch's message for an index out of a dimension's range:
// "index {} is out of bounds for dimension <dim> with size <size>".
std::string outOfBoundsMessage(int64_t dim, int64_t size, const std::string& prefix = "");

// Declares that no element of the i1 tensor that `bad` builds is true
// (`bad` runs only for checked programs).
void checkNone(LowerCtx& c, std::function<Value(Function&)> bad, DeviceCheck::Error error,
               std::string message);

}  // namespace torchtpu::lower
