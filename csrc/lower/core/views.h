// Reading a tensor view out of its storage array, and writing a new value
// back through a view into the array (so that every alias sees it).
#pragma once

#include "hlo/function.h"
#include "ir/op_call.h"

namespace torchtpu::lower {

// The bytes of `array` as a flat array of `to` (little-endian; complex as
// (re, im) pairs, bool as one byte); `array` unchanged when it already has
// that element type. What a view of another dtype than its storage's reads
// (view_as_real, view_as_complex, Tensor.view(dtype)).
hlo::Value reinterpret(hlo::Function& fn, hlo::Value array, runtime::ElementType to);

// The view `ref` of `array`, as a value of shape ref.sizes. A view of another
// element type than the array's reads the array's bytes as its own type.
hlo::Value readView(hlo::Function& fn, hlo::Value array, const ir::TensorRef& ref);

// `array` with the elements of view `ref` replaced by `value` (which has the
// view's shape and dtype); through a view of another element type, the bytes
// it covers are replaced and the array keeps its type and shape.
hlo::Value writeView(hlo::Function& fn, hlo::Value array, const ir::TensorRef& ref,
                     hlo::Value value);

}  // namespace torchtpu::lower
