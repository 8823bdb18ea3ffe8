#include "lower/linalg/lu_core.h"

namespace torchtpu::lower::linalg {

using Dir = hlo::ComparisonDirection;
using hlo::BinaryOp;

namespace {

constexpr ElementType kI32 = ElementType::kS32;

Value i32(Function& fn, int64_t v, const std::vector<int64_t>& dims = {}) {
  return fn.constantInt(v, kI32, dims);
}

Value bcast(Function& fn, Value x, const std::vector<int64_t>& dims,
            const std::vector<int64_t>& map) {
  return fn.broadcastInDim(x, dims, map);
}

Value andOp(Function& fn, Value a, Value b) { return fn.binary(BinaryOp::kAnd, a, b); }

// perm [B, m] with entries k (a scalar) and p[b] (pVec: p broadcast to [B, m])
// exchanged in each row b.
Value swapEntries(Function& r, Value perm, Value k, Value pVec) {
  const int64_t batch = perm.dims()[0];
  const std::vector<int64_t> vec = perm.dims();
  const Value zero = i32(r, 0);
  const Value rowsV = r.iota(TensorType(kI32, vec), 1);
  const Value kVec = bcast(r, k, vec, {});
  Value permK = bcast(r, r.reshape(r.dynamicSlice(perm, {zero, k}, {batch, 1}), {batch}), vec, {0});
  Value permP = r.reduce(r.select(r.compare(rowsV, pVec, Dir::kEq), perm, i32(r, 0, vec)),
                         i32(r, 0), {1}, BinaryOp::kAdd);
  permP = bcast(r, permP, vec, {0});
  return r.select(r.compare(rowsV, kVec, Dir::kEq), permP,
                  r.select(r.compare(rowsV, pVec, Dir::kEq), permK, perm));
}

}  // namespace

Lu luFactor(Function& fn, Value a) {
  const int64_t batch = a.dims()[0], m = a.dims()[1], n = a.dims()[2], kk = std::min(m, n);
  const ElementType t = a.dtype();
  const std::vector<int64_t> mat{batch, m, n}, vec{batch, m};
  const Value perm0 = fn.iota(TensorType(kI32, vec), 1);
  const Value piv0 = i32(fn, 0, {batch, kk});
  const Value info0 = i32(fn, 0, {batch});
  if (kk == 0) return {a, piv0, perm0, info0};
  std::vector<Value> out = fn.whileLoop(
      {i32(fn, 0), a, perm0, piv0, info0},
      [&](Function& r, const std::vector<Value>& v) {
        return std::vector<Value>{r.compare(v[0], i32(r, kk), Dir::kLt)};
      },
      [&](Function& r, const std::vector<Value>& v) {
        const Value k = v[0], zero = i32(r, 0);
        Value x = v[1], perm = v[2], piv = v[3], info = v[4];
        const Value rows = r.iota(TensorType(kI32, mat), 1);
        const Value cols = r.iota(TensorType(kI32, mat), 2);
        const Value rowsV = r.iota(TensorType(kI32, vec), 1);
        const Value kMat = bcast(r, k, mat, {}), kVec = bcast(r, k, vec, {});
        // The pivot: the first row i >= k with the largest |x[i, k]|.
        Value col = r.reshape(r.dynamicSlice(x, {zero, zero, k}, {batch, m, 1}), vec);
        Value mag = r.select(r.compare(rowsV, kVec, Dir::kGe), r.abs(col), r.constant(-1, t, vec));
        Value best = r.reduce(mag, r.constant(-2, t), {1}, BinaryOp::kMaximum);
        Value isBest = r.compare(mag, bcast(r, best, vec, {0}), Dir::kEq);
        Value p =
            r.reduce(r.select(isBest, rowsV, i32(r, m, vec)), i32(r, m), {1}, BinaryOp::kMinimum);
        p = r.select(r.compare(p, i32(r, m, {batch}), Dir::kGe), bcast(r, k, {batch}, {}), p);
        // Swap rows k and p (of the matrix and the permutation).
        const Value pMat = bcast(r, p, mat, {0}), pVec = bcast(r, p, vec, {0});
        Value rowK =
            bcast(r, r.reshape(r.dynamicSlice(x, {zero, k, zero}, {batch, 1, n}), {batch, n}), mat,
                  {0, 2});
        Value rowP = r.reduce(r.select(r.compare(rows, pMat, Dir::kEq), x, r.constant(0, t, mat)),
                              r.constant(0, t), {1}, BinaryOp::kAdd);
        rowP = bcast(r, rowP, mat, {0, 2});
        x = r.select(r.compare(rows, kMat, Dir::kEq), rowP,
                     r.select(r.compare(rows, pMat, Dir::kEq), rowK, x));
        perm = swapEntries(r, perm, k, pVec);
        piv = r.dynamicUpdateSlice(piv, r.reshape(r.add(p, i32(r, 1, {batch})), {batch, 1}),
                                   {zero, k});
        // Scale the column below the pivot, unless the pivot is zero (info).
        Value pv = r.reshape(r.dynamicSlice(x, {zero, k, k}, {batch, 1, 1}), {batch});
        Value nonzero = r.compare(pv, r.constant(0, t, {batch}), Dir::kNe);
        Value kp1 = r.add(k, i32(r, 1));
        info = r.select(andOp(r, r.compare(info, i32(r, 0, {batch}), Dir::kEq),
                              r.unary(hlo::UnaryOp::kNot, nonzero)),
                        bcast(r, kp1, {batch}, {}), info);
        Value colK = r.dynamicSlice(x, {zero, zero, k}, {batch, m, 1});
        Value below = r.compare(rows, kMat, Dir::kGt);
        Value scaleMask = andOp(r,
                                r.compare(r.slice(rows, {0, 0, 0}, {batch, m, 1}),
                                          bcast(r, k, {batch, m, 1}, {}), Dir::kGt),
                                bcast(r, nonzero, {batch, m, 1}, {0}));
        Value l = r.select(scaleMask, r.divide(colK, bcast(r, pv, {batch, m, 1}, {0})), colK);
        Value rowK2 = r.dynamicSlice(x, {zero, k, zero}, {batch, 1, n});
        // The product is rounded before the subtraction (no fused multiply-add),
        // as LAPACK computes it: exactly singular matrices keep exact zeros.
        Value update = r.optimizationBarrier(
            {r.multiply(bcast(r, r.reshape(l, vec), mat, {0, 1}),
                        bcast(r, r.reshape(rowK2, {batch, n}), mat, {0, 2}))})[0];
        Value right = r.compare(cols, kMat, Dir::kGt);
        Value onCol = r.compare(cols, kMat, Dir::kEq);
        x = r.select(andOp(r, below, right), r.subtract(x, update), x);
        x = r.select(andOp(r, below, onCol), bcast(r, r.reshape(l, vec), mat, {0, 1}), x);
        return std::vector<Value>{kp1, x, perm, piv, info};
      });
  return {out[1], out[3], out[2], out[4]};
}

Value permFromPivots(Function& fn, Value pivots, int64_t m) {
  const int64_t batch = pivots.dims()[0], kk = pivots.dims()[1];
  const std::vector<int64_t> vec{batch, m};
  pivots = castTo(fn, pivots, kI32);
  Value perm0 = fn.iota(TensorType(kI32, vec), 1);
  if (kk == 0 || m == 0) return perm0;
  std::vector<Value> out = fn.whileLoop(
      {i32(fn, 0), perm0},
      [&](Function& r, const std::vector<Value>& v) {
        return std::vector<Value>{r.compare(v[0], i32(r, kk), Dir::kLt)};
      },
      [&](Function& r, const std::vector<Value>& v) {
        const Value k = v[0], zero = i32(r, 0);
        Value p = r.reshape(r.dynamicSlice(pivots, {zero, k}, {batch, 1}), {batch});
        p = r.subtract(p, i32(r, 1, {batch}));
        Value perm = swapEntries(r, v[1], k, bcast(r, p, vec, {0}));
        return std::vector<Value>{r.add(k, i32(r, 1)), perm};
      });
  return out[1];
}

Value invertPerm(Function& fn, Value perm) {
  const int64_t batch = perm.dims()[0], m = perm.dims()[1];
  const std::vector<int64_t> sq{batch, m, m};
  // inv[b, r] = sum_i i * (perm[b, i] == r)
  Value hit =
      fn.compare(fn.broadcastInDim(perm, sq, {0, 2}), fn.iota(TensorType(kI32, sq), 1), Dir::kEq);
  Value idx = fn.select(hit, fn.iota(TensorType(kI32, sq), 2), i32(fn, 0, sq));
  return fn.reduce(idx, i32(fn, 0), {2}, BinaryOp::kAdd);
}

Value luSolve(Function& fn, Value lu, Value perm, Value b, bool adjoint) {
  if (lu.t().numElements() == 0 || b.t().numElements() == 0) return zeros(fn, b.t());
  if (!adjoint) {
    // A = P L U: x = U^-1 L^-1 P^T b, (P^T b)[i] = b[perm[i]].
    Value y = gatherRows(fn, b, perm);
    y = fn.triangularSolve(lu, y, true, true, true);
    return fn.triangularSolve(lu, y, true, false, false);
  }
  // A^T = U^T L^T P^T: x = P L^-T U^-T b.
  Value y = fn.triangularSolve(lu, b, true, false, false, Function::Transpose::kTranspose);
  y = fn.triangularSolve(lu, y, true, true, true, Function::Transpose::kTranspose);
  return gatherRows(fn, y, invertPerm(fn, perm));
}

Value pivotSign(Function& fn, Value pivots, ElementType t) {
  const int64_t batch = pivots.dims()[0], kk = pivots.dims()[1];
  if (kk == 0) return fn.constant(1, t, {batch});
  pivots = castTo(fn, pivots, kI32);
  Value moved = fn.compare(
      pivots, fn.add(fn.iota(TensorType(kI32, pivots.dims()), 1), i32(fn, 1, pivots.dims())),
      Dir::kNe);
  Value count = fn.reduce(fn.select(moved, i32(fn, 1, pivots.dims()), i32(fn, 0, pivots.dims())),
                          i32(fn, 0), {1}, BinaryOp::kAdd);
  Value odd = fn.compare(fn.binary(BinaryOp::kAnd, count, i32(fn, 1, {batch})), i32(fn, 1, {batch}),
                         Dir::kEq);
  return fn.select(odd, fn.constant(-1, t, {batch}), fn.constant(1, t, {batch}));
}

}  // namespace torchtpu::lower::linalg
