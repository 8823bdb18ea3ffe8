// LU factorization with partial pivoting as a StableHLO while loop (XLA has no
// LU op on every backend), with LAPACK's conventions so the results equal
// getrf's: the first largest |a[i, k]| (i >= k) is the pivot, rows are swapped
// across the whole matrix, 1-based int32 pivots, info = first zero pivot.
#pragma once

#include "lower/linalg/util.h"

namespace torchtpu::lower::linalg {

struct Lu {
  Value lu;      // [B, m, n]: unit lower L below the diagonal, U on and above
  Value pivots;  // s32 [B, min(m, n)], 1-based row interchanges
  Value perm;    // s32 [B, m]: row i of L U is row perm[i] of A
  Value info;    // s32 [B]: 0, or the 1-based index of the first zero pivot
};

// a: [B, m, n] of a floating type.
Lu luFactor(Function& fn, Value a);
// The row permutation (perm above, [B, m]) of 1-based pivots [B, k].
Value permFromPivots(Function& fn, Value pivots, int64_t m);
// The inverse of a permutation [B, m].
Value invertPerm(Function& fn, Value perm);
// Solves A x = b (or A^T x = b when `adjoint`) given A's LU [B, n, n] and
// perm [B, n], for b [B, n, k].
Value luSolve(Function& fn, Value lu, Value perm, Value b, bool adjoint);
// The sign (+1 / -1) of the permutation given by pivots [B, k], as `t` [B].
Value pivotSign(Function& fn, Value pivots, ElementType t);

}  // namespace torchtpu::lower::linalg
