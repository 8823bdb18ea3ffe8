#include "lower/linalg/decomp.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace torchtpu::lower::decomp {

void checkRealFloat(ElementType t, const char* op) {
  if (t != ElementType::kF32 && t != ElementType::kF64) {
    throw LoweringError(std::string(op) + " of " + std::string(runtime::elementTypeName(t)) +
                        " is not lowered (float32 and float64 only)");
  }
}

Value eye(Function& fn, ElementType t, const std::vector<int64_t>& batch, int64_t m, int64_t n) {
  std::vector<int64_t> dims = batch;
  dims.push_back(m);
  dims.push_back(n);
  const int64_t r = static_cast<int64_t>(dims.size());
  const TensorType idx(ElementType::kS64, dims);
  Value onDiag =
      fn.compare(fn.iota(idx, r - 2), fn.iota(idx, r - 1), hlo::ComparisonDirection::kEq);
  return fn.select(onDiag, constantLike(fn, 1, t, dims), constantLike(fn, 0, t, dims));
}

Value triangle(Function& fn, Value a, bool upper, int64_t diagonal) {
  const int64_t r = a.rank();
  const TensorType idx(ElementType::kS64, a.dims());
  Value diff = fn.subtract(fn.iota(idx, r - 1), fn.iota(idx, r - 2));
  Value keep = fn.compare(diff, fn.constantInt(diagonal, ElementType::kS64, a.dims()),
                          upper ? hlo::ComparisonDirection::kGe : hlo::ComparisonDirection::kLe);
  return fn.select(keep, a, constantLike(fn, 0, a.dtype(), a.dims()));
}

Value block(Function& fn, Value a, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  std::vector<int64_t> start(a.rank(), 0);
  std::vector<int64_t> limit = a.dims();
  start[a.rank() - 2] = r0;
  start[a.rank() - 1] = c0;
  limit[a.rank() - 2] = r1;
  limit[a.rank() - 1] = c1;
  if (start == std::vector<int64_t>(a.rank(), 0) && limit == a.dims()) return a;
  return fn.slice(a, start, limit);
}

namespace {

// Pads or crops the trailing `dims.size()` dims to `dims`.
Value resizeTrailing(Function& fn, Value a, const std::vector<int64_t>& dims) {
  const size_t lead = a.dims().size() - dims.size();
  std::vector<int64_t> limit = a.dims();
  std::vector<int64_t> hi(a.rank(), 0);
  bool crop = false;
  bool pad = false;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t have = a.dims()[lead + k];
    if (have > dims[k]) {
      limit[lead + k] = dims[k];
      crop = true;
    } else if (have < dims[k]) {
      hi[lead + k] = dims[k] - have;
      pad = true;
    }
  }
  if (crop) a = fn.slice(a, std::vector<int64_t>(a.rank(), 0), limit);
  if (pad) a = fn.pad(a, constantLike(fn, 0, a.dtype()), std::vector<int64_t>(a.rank(), 0), hi);
  return a;
}

}  // namespace

Value resizeLast(Function& fn, Value a, int64_t n) { return resizeTrailing(fn, a, {n}); }

Value resizeMatrix(Function& fn, Value a, int64_t m, int64_t n) {
  return resizeTrailing(fn, a, {m, n});
}

Value signNonNegative(Function& fn, Value x) {
  Value nonNeg =
      fn.compare(x, constantLike(fn, 0, x.dtype(), x.dims()), hlo::ComparisonDirection::kGe);
  return fn.select(nonNeg, constantLike(fn, 1, x.dtype(), x.dims()),
                   constantLike(fn, -1, x.dtype(), x.dims()));
}

namespace {

std::vector<int64_t> leadingDims(int64_t count) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < count; ++d) dims.push_back(d);
  return dims;
}

// Per column of x [..., m, k]: +1 or -1, the sign of its entry of largest
// magnitude (+1 for a zero column or a tie of opposite signs).
Value columnSigns(Function& fn, Value x) {
  const int64_t r = x.rank();
  const ElementType t = x.dtype();
  Value mag = fn.abs(x);
  Value colMax = fn.reduce(mag, constantLike(fn, 0, t), {r - 2}, hlo::BinaryOp::kMaximum);
  std::vector<int64_t> map = leadingDims(r - 2);
  map.push_back(r - 1);
  Value isMax =
      fn.compare(mag, fn.broadcastInDim(colMax, x.dims(), map), hlo::ComparisonDirection::kEq);
  Value picked = fn.select(isMax, x, zeros(fn, x.type));
  return signNonNegative(fn,
                         fn.reduce(picked, constantLike(fn, 0, t), {r - 2}, hlo::BinaryOp::kAdd));
}

// x [..., m, n] with column j (or row j, `rows`) multiplied by s[..., j] for
// j < s's length; the rest unchanged.
Value scaleLines(Function& fn, Value x, Value s, bool rows) {
  const int64_t r = x.rank();
  const int64_t n = x.dims()[rows ? r - 2 : r - 1];
  const int64_t k = s.dims().back();
  if (k < n) {
    // pad with 1: (s - 1) padded with 0, plus 1
    Value one = constantLike(fn, 1, s.dtype(), s.dims());
    s = resizeLast(fn, fn.subtract(s, one), n);
    s = fn.add(s, constantLike(fn, 1, s.dtype(), s.dims()));
  }
  std::vector<int64_t> map = leadingDims(r - 2);
  map.push_back(rows ? r - 2 : r - 1);
  return fn.multiply(x, fn.broadcastInDim(s, x.dims(), map));
}

}  // namespace

Householder geqrf(Function& fn, Value a) {
  const int64_t r = a.rank();
  const int64_t k = std::min(a.dims()[r - 2], a.dims()[r - 1]);
  std::vector<int64_t> tauDims = batchDims(a);
  tauDims.push_back(k);
  const TensorType tauType(a.dtype(), tauDims);
  if (a.type.numElements() == 0) return {a, zeros(fn, tauType)};
  const std::vector<Value> out = fn.customCall("Qr", {a}, {a.type, tauType});
  return {out[0], out[1]};
}

Value householderProduct(Function& fn, Value a, Value taus) {
  const int64_t r = a.rank();
  const int64_t m = a.dims()[r - 2];
  const int64_t n = a.dims()[r - 1];
  if (a.type.numElements() == 0) return a;
  // Reflectors past tau's length are the identity (tau = 0).
  taus = resizeLast(fn, taus, n);
  if (m == 0 || n == 0) return eye(fn, a.dtype(), batchDims(a), m, n);
  return fn.customCall("ProductOfElementaryHouseholderReflectors", {a, taus}, {a.type})[0];
}

Qr qr(Function& fn, Value a, bool complete) {
  const int64_t r = a.rank();
  const int64_t m = a.dims()[r - 2];
  const int64_t n = a.dims()[r - 1];
  const int64_t k = std::min(m, n);
  const std::vector<int64_t> batch = batchDims(a);
  const Householder h = geqrf(fn, a);
  const int64_t qCols = complete ? m : k;
  const int64_t rRows = complete ? m : k;
  Value rFactor = triangle(fn, block(fn, h.a, 0, rRows, 0, n), true);
  Value q;
  if (k == 0) {
    q = eye(fn, a.dtype(), batch, m, qCols);
  } else {
    q = householderProduct(fn, resizeMatrix(fn, h.a, m, qCols), h.taus);
  }
  return {q, rFactor};
}

namespace {

std::string eighConfig(bool lower, ElementType t) {
  // lower, sort_eigenvalues, max_iter, tol (of the Jacobi sweeps).
  const char* tol = t == ElementType::kF64 ? "1e-15" : "1e-7";
  return std::string(lower ? "1" : "0") + ",1,100," + tol;
}

}  // namespace

Eigh eigh(Function& fn, Value a, bool lower) {
  const int64_t r = a.rank();
  const int64_t n = a.dims()[r - 1];
  std::vector<int64_t> valueDims = batchDims(a);
  valueDims.push_back(n);
  const TensorType valueType(a.dtype(), valueDims);
  if (a.type.numElements() == 0) return {zeros(fn, valueType), a};
  // The symmetric matrix the chosen triangle describes.
  Value tri = triangle(fn, a, !lower);
  Value strict = triangle(fn, a, !lower, lower ? -1 : 1);
  Value sym = fn.add(tri, mT(fn, strict));
  const std::vector<Value> out =
      fn.customCall("Eigh", {sym}, {a.type, valueType}, eighConfig(true, a.dtype()));
  // A matrix with a NaN or infinity (where LAPACK reports an error) gives NaNs
  // rather than the expander's arbitrary answer: x * 0 sums to NaN.
  const ElementType t = a.dtype();
  Value poisoned = fn.reduce(fn.multiply(sym, zeros(fn, sym.type)), constantLike(fn, 0, t),
                             {r - 2, r - 1}, hlo::BinaryOp::kAdd);
  Value bad = fn.compare(poisoned, zeros(fn, poisoned.type), hlo::ComparisonDirection::kNe);
  std::vector<int64_t> batchMap;
  for (int64_t d = 0; d < r - 2; ++d) batchMap.push_back(d);
  const double nan = std::nan("");
  Value values = fn.select(fn.broadcastInDim(bad, valueDims, batchMap),
                           constantLike(fn, nan, t, valueDims), out[1]);
  // Signs by a fixed convention: each eigenvector's largest entry is positive.
  Value normalized = scaleLines(fn, out[0], columnSigns(fn, out[0]), false);
  Value vectors = fn.select(fn.broadcastInDim(bad, a.dims(), batchMap),
                            constantLike(fn, nan, t, a.dims()), normalized);
  return {values, vectors};
}

namespace {

// The orthonormal basis QR finds for the columns of x (complete: m columns),
// with the signs that keep the columns of an orthonormal x as they are.
Value orthonormalize(Function& fn, Value x, bool complete) {
  const int64_t r = x.rank();
  const int64_t m = x.dims()[r - 2];
  const int64_t k = x.dims()[r - 1];
  const Qr f = qr(fn, x, complete);
  if (k == 0 || m == 0) return f.q;
  return scaleLines(fn, f.q, signNonNegative(fn, diagonal(fn, f.r)), false);
}

}  // namespace

// Through the symmetric eigendecomposition of the Jordan-Wielandt matrix
// [[0, A], [A^T, 0]]: its eigenvalues are +-sigma (and |m - n| zeros), the
// eigenvector of +sigma_i is [u_i; v_i] / sqrt(2). No squaring of the
// condition number, unlike the Gram matrix A^T A. U and V are then
// re-orthonormalized (and completed) by QR, which leaves orthonormal columns
// as they are and repairs those of (numerically) zero singular values.
Svd svd(Function& fn, Value a, bool fullMatrices, bool computeUv) {
  const int64_t r = a.rank();
  const int64_t m = a.dims()[r - 2];
  const int64_t n = a.dims()[r - 1];
  const int64_t k = std::min(m, n);
  const ElementType t = a.dtype();
  const std::vector<int64_t> batch = batchDims(a);
  std::vector<int64_t> sDims = batch;
  sDims.push_back(k);
  const int64_t uCols = fullMatrices ? m : k;
  const int64_t vRows = fullMatrices ? n : k;
  bool emptyBatch = false;
  for (int64_t d : batch) emptyBatch = emptyBatch || d == 0;
  if (emptyBatch || k == 0) {
    return {eye(fn, t, batch, m, uCols), zeros(fn, TensorType(t, sDims)),
            eye(fn, t, batch, vRows, n)};
  }
  std::vector<int64_t> zm = batch, zn = batch;
  zm.insert(zm.end(), {m, m});
  zn.insert(zn.end(), {n, n});
  Value top = fn.concatenate({zeros(fn, TensorType(t, zm)), a}, r - 1);
  Value bottom = fn.concatenate({mT(fn, a), zeros(fn, TensorType(t, zn))}, r - 1);
  Value jw = fn.concatenate({top, bottom}, r - 2);
  const Eigh e = eigh(fn, jw, true);
  const int64_t size = m + n;
  // The k largest eigenvalues, descending.
  std::vector<int64_t> start(r - 1, 0), limit = e.values.dims();
  start[r - 2] = size - k;
  Value s = fn.reverse(fn.slice(e.values, start, limit), {r - 2});
  s = fn.abs(s);
  if (!computeUv) return {Value{}, s, Value{}};
  Value x = fn.reverse(block(fn, e.vectors, 0, size, size - k, size), {r - 1});
  const double root2 = std::sqrt(2.0);
  Value u0 = block(fn, x, 0, m, 0, k);
  Value v0 = block(fn, x, m, size, 0, k);
  u0 = fn.multiply(u0, constantLike(fn, root2, t, u0.dims()));
  v0 = fn.multiply(v0, constantLike(fn, root2, t, v0.dims()));
  Value uOut = orthonormalize(fn, u0, fullMatrices);
  Value vOut = orthonormalize(fn, v0, fullMatrices);
  // Signs by a fixed convention: the largest entry of each u_i is positive
  // (v_i follows).
  Value signs = columnSigns(fn, block(fn, uOut, 0, m, 0, k));
  uOut = scaleLines(fn, uOut, signs, false);
  Value vhOut = scaleLines(fn, mT(fn, vOut), signs, true);
  // A zero matrix: the identities, as LAPACK returns (the subgradients of the
  // norms at zero follow from them).
  Value absMax =
      fn.reduce(fn.abs(a), constantLike(fn, 0, t), {r - 2, r - 1}, hlo::BinaryOp::kMaximum);
  Value isZero =
      fn.compare(absMax, constantLike(fn, 0, t, absMax.dims()), hlo::ComparisonDirection::kEq);
  std::vector<int64_t> batchMap;
  for (int64_t d = 0; d < r - 2; ++d) batchMap.push_back(d);
  uOut = fn.select(fn.broadcastInDim(isZero, uOut.dims(), batchMap), eye(fn, t, batch, m, uCols),
                   uOut);
  vhOut = fn.select(fn.broadcastInDim(isZero, vhOut.dims(), batchMap), eye(fn, t, batch, vRows, n),
                    vhOut);
  return {uOut, s, vhOut};
}

}  // namespace torchtpu::lower::decomp
