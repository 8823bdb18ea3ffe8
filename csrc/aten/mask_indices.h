// Boolean (and uint8) mask indices of x[mask] and x[mask] = v: their result
// shape depends on the data, so each mask is replaced by the index tensors of
// its nonzero positions (computed on the device) before the op is lowered.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace torchtpu::aten {

// If the op has a "self" tensor and an "indices" (Tensor?[]) argument holding
// masks, replaces each mask of k dims by k index tensors, in place on the
// stack, and returns true. Raises IndexError like PyTorch when a mask's shape
// does not match the dims it indexes.
bool expandMaskIndices(const c10::FunctionSchema& schema, torch::jit::Stack* stack);

}  // namespace torchtpu::aten
