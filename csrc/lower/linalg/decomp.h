// Building blocks of the matrix decompositions (QR, symmetric
// eigendecomposition, SVD) shared by qr.cc, eigh.cc, svd.cc and
// lstsq.cc. Matrices are the last two dims of a value; the leading dims
// are batch dims. The factorizations go through XLA's expander custom calls
// ("Qr", "ProductOfElementaryHouseholderReflectors", "Eigh"), which every XLA
// PJRT plugin implements.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/core/common.h"
#include "lower/linalg/util.h"

namespace torchtpu::lower::decomp {

// The batched matrix helpers of lower/linalg/util.h (batch dims, transpose, matmul,
// diagonal, zeros) serve here too.
using linalg::batchDims;
using linalg::diagonal;
using linalg::matmul;
using linalg::mT;
using linalg::zeros;

// Throws LoweringError (the call falls back) unless t is f32 or f64.
void checkRealFloat(ElementType t, const char* op);

// eye(m, n) of type t, broadcast over `batch`.
Value eye(Function& fn, ElementType t, const std::vector<int64_t>& batch, int64_t m, int64_t n);
// Keeps the elements with col - row >= diagonal (upper) or <= diagonal (lower).
Value triangle(Function& fn, Value a, bool upper, int64_t diagonal = 0);
// a[..., r0:r1, c0:c1].
Value block(Function& fn, Value a, int64_t r0, int64_t r1, int64_t c0, int64_t c1);
// Pads (with zeros) or crops the last dim to n.
Value resizeLast(Function& fn, Value a, int64_t n);
// Pads (with zeros) or crops the last two dims to m x n.
Value resizeMatrix(Function& fn, Value a, int64_t m, int64_t n);
// 1 where x >= 0 and -1 elsewhere.
Value signNonNegative(Function& fn, Value x);

// LAPACK geqrf: R in the upper triangle, the Householder vectors below the
// diagonal, and their scales tau [..., min(m, n)].
struct Householder {
  Value a;
  Value taus;
};
Householder geqrf(Function& fn, Value a);

// LAPACK orgqr: the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T,
// for a [..., m, n] (m >= n) and taus [..., k] (k <= n).
Value householderProduct(Function& fn, Value a, Value taus);

// QR as LAPACK computes it (geqrf + orgqr): Q [..., m, k] and R [..., k, n]
// (k = min(m, n)), or Q [..., m, m] and R [..., m, n] when complete.
struct Qr {
  Value q;
  Value r;
};
Qr qr(Function& fn, Value a, bool complete);

// Symmetric eigendecomposition of the matrix whose lower (or upper) triangle
// is given: eigenvalues ascending [..., n], eigenvectors in the columns.
struct Eigh {
  Value values;
  Value vectors;
};
Eigh eigh(Function& fn, Value a, bool lower);

// Singular value decomposition A = U diag(S) Vh, S descending. U is [..., m, k]
// and Vh [..., k, n] (k = min(m, n)), or square when fullMatrices. Without
// computeUv only S is set (U and Vh are invalid values).
struct Svd {
  Value u;
  Value s;
  Value vh;
};
Svd svd(Function& fn, Value a, bool fullMatrices, bool computeUv = true);

}  // namespace torchtpu::lower::decomp
