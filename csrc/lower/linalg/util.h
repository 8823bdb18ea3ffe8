// Batched matrix helpers shared by the linear algebra lowerings (Cholesky,
// triangular solves, LU and what is built on them). Matrices are the last two
// dimensions; the leading dimensions are a batch.
#pragma once

#include <vector>

#include "lower/core/common.h"

namespace torchtpu::lower::linalg {

// The leading (batch) dimensions of a value of rank >= 2.
std::vector<int64_t> batchDims(const Value& x);
// dims followed by `tail`.
std::vector<int64_t> concatDims(std::vector<int64_t> dims, const std::vector<int64_t>& tail);
// x with its batch dimensions broadcast to `batch` (matrix dims kept).
Value broadcastBatch(Function& fn, Value x, const std::vector<int64_t>& batch);
// x of shape [..., m, n] as [B, m, n] (B the product of the batch dims), and back.
Value flattenBatch(Function& fn, Value x);
Value unflattenBatch(Function& fn, Value x, const std::vector<int64_t>& batch);
// Swaps the last two dimensions.
Value mT(Function& fn, Value x);
// a [..., m, k] @ b [..., k, n] with equal batch dimensions, in full precision.
Value matmul(Function& fn, Value a, Value b);
// The identity of shape batch + [n, n].
Value eye(Function& fn, ElementType t, const std::vector<int64_t>& batch, int64_t n);
// Keeps the elements on and below (lower) or above (!lower) diagonal `k`, zeros the rest.
Value triangle(Function& fn, Value x, bool lower, int64_t k = 0);
// The main diagonal: [..., m, n] -> [..., min(m, n)].
Value diagonal(Function& fn, Value x);
// y[b, i, :] = x[b, idx[b, i], :] for x [B, m, k] and integer idx [B, r].
Value gatherRows(Function& fn, Value x, Value idx);
// Solves op(a) x = b (left) or x op(a) = b with batch dimensions broadcast
// between a and b; only the `lower` / upper triangle of a is read.
Value triSolve(Function& fn, Value a, Value b, bool left, bool lower, bool unitDiagonal,
               bool transposeA = false);
// Whether tensor argument `name` of the call is a row-major contiguous view.
bool isContiguous(const LowerCtx& c, std::string_view name);
// The _ex ops raise from their kernel when check_errors is set (reading
// `info` on the host): such calls are left to the CPU kernel (LoweringError).
void checkErrorsOnCpu(const LowerCtx& c);
// A value of result type `t` that is all zeros (for empty results).
Value zeros(Function& fn, const TensorType& t);

}  // namespace torchtpu::lower::linalg
