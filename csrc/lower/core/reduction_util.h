// Building blocks shared by the reduction-like lowerings (reductions,
// softmax, normalization, losses, sorting, cumulative ops): reducing over a
// set of dimensions, broadcasting a reduced value back, PyTorch's NaN
// propagation for max/min and first-index tie breaking for arg-reductions.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "lower/core/common.h"

namespace torchtpu::lower {

// All dimensions 0..rank-1.
std::vector<int64_t> allDims(int64_t rank);
// The dimensions of `rank` that are not in `dims`.
std::vector<int64_t> otherDims(const std::vector<int64_t>& dims, int64_t rank);
// The product of x's sizes along `dims`.
int64_t countOf(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims);

// Sorted, normalized reduction dims from an optional `int[]?` argument: None
// means all dims; an empty list means all dims when `emptyMeansAll` (most
// reductions) and no dims otherwise (any.dims / all.dims).
std::vector<int64_t> reductionDims(LowerCtx& c, const char* name, int64_t rank,
                                   bool emptyMeansAll = true);

// A constant with x's type and shape.
Value splatLike(Function& fn, double v, const Value& x);
// The elementwise NaN test (false for non-floating types).
Value isNan(Function& fn, Value x);
// The smallest / largest value of a type: -inf / +inf for floats, the integer
// limits for integers (false / true for i1).
Value lowest(Function& fn, ElementType t);
Value highest(Function& fn, ElementType t);

// A value reduced over `dims` broadcast back to `shape` (the dims it lost are
// re-expanded; it may also have kept them as size 1).
Value expandReduced(Function& fn, Value reduced, const std::vector<int64_t>& shape,
                    const std::vector<int64_t>& dims);

// Reductions over `dims` (which must be sorted); the result drops them.
Value reduceSum(Function& fn, Value x, const std::vector<int64_t>& dims);
Value reduceProd(Function& fn, Value x, const std::vector<int64_t>& dims);
// Max / min that propagate NaN, as PyTorch's amax/amin/max/min do.
Value reduceMax(Function& fn, Value x, const std::vector<int64_t>& dims);
Value reduceMin(Function& fn, Value x, const std::vector<int64_t>& dims);
Value reduceAny(Function& fn, Value pred, const std::vector<int64_t>& dims);
Value reduceAll(Function& fn, Value pred, const std::vector<int64_t>& dims);

// PyTorch's max.dim / min.dim / argmax / argmin along `dim`: the extreme value
// and the first index (i64) where it occurs; NaN counts as the extreme.
// Returns {values, indices}, both without `dim`.
std::pair<Value, Value> reduceArgExtreme(Function& fn, Value x, int64_t dim, bool isMax);

// NaN-propagating elementwise max/min of two values of the same type.
Value nanMaximum(Function& fn, Value a, Value b);
Value nanMinimum(Function& fn, Value a, Value b);

}  // namespace torchtpu::lower
