// Reading a tensor view out of its storage array, and writing a new value
// back through a view into the array (so that every alias sees it).
#pragma once

#include "hlo/function.h"
#include "ir/op_call.h"

namespace torchtpu::lower {

// The view `ref` of `array`, as a value of shape ref.sizes.
hlo::Value readView(hlo::Function& fn, hlo::Value array, const ir::TensorRef& ref);

// `array` with the elements of view `ref` replaced by `value` (which has the
// view's shape and dtype).
hlo::Value writeView(hlo::Function& fn, hlo::Value array, const ir::TensorRef& ref,
                     hlo::Value value);

}  // namespace torchtpu::lower
