// Helpers shared by the tests that build op calls by hand (ir, lower, exec):
// a tensor view over one of the call's arrays, and a tensor argument.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/op_call.h"

namespace torchtpu::ir::test {

// A float32 view (sizes, strides, offset in elements) of call array `array`.
inline TensorRef view(int array, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                      int64_t offset = 0) {
  TensorRef t;
  t.array = array;
  t.dtype = runtime::ElementType::kF32;
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  t.offset = offset;
  return t;
}

inline ArgValue tensorArg(TensorRef t) {
  ArgValue a;
  a.kind = ArgValue::Kind::kTensor;
  a.tensor = std::move(t);
  return a;
}

}  // namespace torchtpu::ir::test
