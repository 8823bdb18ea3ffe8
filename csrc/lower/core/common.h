// Helpers shared by lowerings: casting, broadcasting and PyTorch's type
// promotion.
#pragma once

#include <optional>
#include <vector>

#include "lower/core/lowering.h"

namespace torchtpu::lower {

// x converted to `t` (no-op when it already is).
Value castTo(Function& fn, Value x, ElementType t);
// x broadcast to `dims` with NumPy/PyTorch rules (trailing dimensions align).
Value broadcastTo(Function& fn, Value x, const std::vector<int64_t>& dims);
// The broadcast shape of several shapes; throws LoweringError if incompatible.
std::vector<int64_t> broadcastShapes(const std::vector<std::vector<int64_t>>& shapes);
// x cast to t and broadcast to dims.
Value fit(Function& fn, Value x, ElementType t, const std::vector<int64_t>& dims);

// PyTorch's promotion of two element types (promote_types).
ElementType promoteTypes(ElementType a, ElementType b);
// The type computations on `t` run and accumulate in (PyTorch's opmath type):
// f32 for the 16-bit floats f16 and bf16, otherwise `t` itself.
ElementType accType(ElementType t);

// Type categories for promotion with dimensionless operands.
enum class TypeCategory { kBool, kInteger, kFloating, kComplex };
TypeCategory category(ElementType t);

// The computation type of an op's operands, following torch's result_type:
// tensors with dimensions win over 0-d tensors, which win over Python scalars
// (given as wrapped numbers, `isScalar`), unless a lower-priority operand is
// of a higher category (then the default type of that category is used:
// float32 / int64 / complex64).
struct Operand {
  Value value;
  bool isScalar = false;  // a Python number (Scalar argument)
};
ElementType resultType(const std::vector<Operand>& operands);

// A 0-d constant of type t (and optionally broadcast to dims).
Value constantLike(Function& fn, double v, ElementType t, const std::vector<int64_t>& dims = {});

// Normalizes a possibly negative dimension against `rank` (rank 0 accepts 0 and -1).
int64_t normDim(int64_t dim, int64_t rank);
// Normalizes a dimension list; an empty list means "all dimensions" when `emptyMeansAll`.
std::vector<int64_t> normDims(const std::vector<int64_t>& dims, int64_t rank, bool emptyMeansAll);

}  // namespace torchtpu::lower
