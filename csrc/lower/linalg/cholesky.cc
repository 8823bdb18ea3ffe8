// Cholesky ops: linalg_cholesky_ex (with LAPACK's `info`), cholesky,
// cholesky_inverse and the solve behind cholesky_solve, on stablehlo.cholesky
// and stablehlo.triangular_solve.
#include "lower/linalg/util.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)
using Dir = hlo::ComparisonDirection;

Value floatInput(LowerCtx& c, std::string_view name) {
  Value x = c.tensor(name);
  if (!runtime::isFloating(x.dtype()) || runtime::isComplex(x.dtype())) {
    c.fail("Cholesky of " + std::string(runtime::elementTypeName(x.dtype())) + " is not lowered");
  }
  return castTo(c.fn, x, accType(x.dtype()));
}

// The lower (or upper) factor, zeros in the other triangle.
Value factor(Function& fn, Value a, bool upper) {
  if (a.t().numElements() == 0) return a;
  return triangle(fn, fn.cholesky(a, !upper), !upper);
}

// 0, or the 1-based index of the first diagonal element of the factor that is
// not positive (a NaN included): the order of the first minor that is not
// positive definite.
Value info(Function& fn, Value l) {
  const std::vector<int64_t> batch = batchDims(l);
  const int64_t n = l.dims()[l.rank() - 1];
  if (n == 0) return fn.constantInt(0, ElementType::kS32, batch);
  Value d = diagonal(fn, l);
  Value good = fn.compare(d, fn.constant(0, d.dtype(), d.dims()), Dir::kGt);
  const TensorType it(ElementType::kS32, d.dims());
  Value pos = fn.add(fn.iota(it, d.rank() - 1), fn.constantInt(1, it.dtype, it.dims));
  Value idx = fn.select(good, fn.constantInt(n + 1, it.dtype, it.dims), pos);
  idx = fn.reduce(idx, fn.constantInt(n + 1, it.dtype), {d.rank() - 1}, hlo::BinaryOp::kMinimum);
  Value none = fn.compare(idx, fn.constantInt(n + 1, it.dtype, batch), Dir::kEq);
  return fn.select(none, fn.constantInt(0, it.dtype, batch), idx);
}

Value i32(Function& fn, int64_t v, const std::vector<int64_t>& dims = {}) {
  return fn.constantInt(v, ElementType::kS32, dims);
}

// LAPACK's unblocked potf2 (lower) column by column, for a [B, n, n]: the
// columns before the first failing one are final, the failing diagonal element
// holds its non-positive value, the rest keep the input (what LAPACK leaves).
// Returns the factor and info.
std::pair<Value, Value> choleskyLoop(Function& fn, Value a) {
  const int64_t batch = a.dims()[0], n = a.dims()[1];
  const ElementType t = a.dtype();
  const std::vector<int64_t> mat{batch, n, n}, vec{batch, n}, one{batch};
  std::vector<Value> out = fn.whileLoop(
      {i32(fn, 0), a, i32(fn, 0, one)},
      [&](Function& r, const std::vector<Value>& v) {
        return std::vector<Value>{r.compare(v[0], i32(r, n), Dir::kLt)};
      },
      [&](Function& r, const std::vector<Value>& v) {
        const Value j = v[0], zero = i32(r, 0);
        Value x = v[1], inf = v[2];
        const Value rows = r.iota(TensorType(ElementType::kS32, mat), 1);
        const Value cols = r.iota(TensorType(ElementType::kS32, mat), 2);
        const Value colsV = r.iota(TensorType(ElementType::kS32, vec), 1);
        const Value jMat = r.broadcastInDim(j, mat, {}), jVec = r.broadcastInDim(j, vec, {});
        const Value zMat = r.constant(0, t, mat);
        // prev = L[j, :j]; ajj = a[j, j] - prev . prev
        Value rowJ = r.reshape(r.dynamicSlice(x, {zero, j, zero}, {batch, 1, n}), vec);
        Value prev = r.select(r.compare(colsV, jVec, Dir::kLt), rowJ, r.constant(0, t, vec));
        Value dd = r.reduce(r.multiply(prev, prev), r.constant(0, t), {1}, hlo::BinaryOp::kAdd);
        Value ajj = r.subtract(r.reshape(r.dynamicSlice(x, {zero, j, j}, {batch, 1, 1}), one), dd);
        Value active = r.compare(inf, i32(r, 0, one), Dir::kEq);
        Value ok = r.compare(ajj, r.constant(0, t, one), Dir::kGt);
        Value good = r.binary(hlo::BinaryOp::kAnd, active, ok);
        Value bad = r.binary(hlo::BinaryOp::kAnd, active, r.unary(hlo::UnaryOp::kNot, ok));
        inf = r.select(bad, r.broadcastInDim(r.add(j, i32(r, 1)), one, {}), inf);
        // Column j below the diagonal: (a[i, j] - L[i, :j] . prev) / ljj.
        Value ljj = r.sqrt(ajj);
        Value left = r.select(r.compare(cols, jMat, Dir::kLt), x, zMat);
        Value dots = r.reduce(r.multiply(left, r.broadcastInDim(prev, mat, {0, 2})),
                              r.constant(0, t), {2}, hlo::BinaryOp::kAdd);
        Value colJ = r.reshape(r.dynamicSlice(x, {zero, zero, j}, {batch, n, 1}), vec);
        Value recip = r.divide(r.constant(1, t, one), ljj);
        Value col = r.multiply(r.subtract(colJ, dots), r.broadcastInDim(recip, vec, {0}));
        Value onCol = r.compare(cols, jMat, Dir::kEq);
        Value below = r.binary(hlo::BinaryOp::kAnd, onCol, r.compare(rows, jMat, Dir::kGt));
        Value onDiag = r.binary(hlo::BinaryOp::kAnd, onCol, r.compare(rows, jMat, Dir::kEq));
        Value goodM = r.broadcastInDim(good, mat, {0}), badM = r.broadcastInDim(bad, mat, {0});
        Value newX = r.select(r.binary(hlo::BinaryOp::kAnd, goodM, below),
                              r.broadcastInDim(col, mat, {0, 1}), x);
        newX = r.select(r.binary(hlo::BinaryOp::kAnd, goodM, onDiag),
                        r.broadcastInDim(ljj, mat, {0}), newX);
        newX = r.select(r.binary(hlo::BinaryOp::kAnd, badM, onDiag),
                        r.broadcastInDim(ajj, mat, {0}), newX);
        return std::vector<Value>{r.add(j, i32(r, 1)), newX, inf};
      });
  return {out[1], out[2]};
}

// The factor with LAPACK's info: XLA's Cholesky, and where some matrix is
// not positive definite (XLA then gives NaNs), the column loop above.
std::vector<Value> lowerCholeskyEx(LowerCtx& c) {
  checkErrorsOnCpu(c);
  Function& fn = c.fn;
  Value a = floatInput(c, "self");
  const bool upper = c.b("upper");
  if (a.t().numElements() == 0) return {a, zeros(fn, c.result(1))};
  const std::vector<int64_t> batch = batchDims(a);
  if (upper) a = mT(fn, a);  // the upper factor of A is the transposed lower factor of A^T
  a = flattenBatch(fn, a);
  Value l = factor(fn, a, false);
  Value fast = info(fn, l);
  Value anyBad =
      fn.compare(fn.reduce(fast, i32(fn, 0), {0}, hlo::BinaryOp::kMaximum), i32(fn, 0), Dir::kNe);
  std::vector<Value> res = fn.ifElse(
      anyBad,
      [&](Function& r, const std::vector<Value>&) {
        auto [x, inf] = choleskyLoop(r, a);
        return std::vector<Value>{triangle(r, x, true), inf};
      },
      [&](Function&, const std::vector<Value>&) { return std::vector<Value>{l, fast}; });
  Value out = unflattenBatch(fn, res[0], batch);
  return {upper ? mT(fn, out) : out, fn.reshape(res[1], c.result(1).dims)};
}

std::vector<Value> lowerCholesky(LowerCtx& c) {
  return {factor(c.fn, floatInput(c, "self"), c.b("upper"))};
}

std::vector<Value> lowerCholeskyInverse(LowerCtx& c) {
  Function& fn = c.fn;
  Value f = floatInput(c, "self");
  const bool upper = c.b("upper");
  if (f.t().numElements() == 0) return {f};
  const int64_t n = f.dims()[f.rank() - 1];
  Value inv = triSolve(fn, f, eye(fn, f.dtype(), batchDims(f), n), true, !upper, false);
  // lower: (L L^T)^-1 = L^-T L^-1; upper: (U^T U)^-1 = U^-1 U^-T.
  return {upper ? matmul(fn, inv, mT(fn, inv)) : matmul(fn, mT(fn, inv), inv)};
}

std::vector<Value> lowerCholeskySolve(LowerCtx& c) {
  Function& fn = c.fn;
  Value b = floatInput(c, "self");
  Value f = floatInput(c, "A");
  const bool upper = c.b("upper");
  // lower: L L^T x = b; upper: U^T U x = b.
  Value y = triSolve(fn, f, b, true, !upper, false, upper);
  return {triSolve(fn, f, y, true, !upper, false, !upper)};
}

const Registrar kCholeskyEx({"aten::linalg_cholesky_ex", "aten::linalg_cholesky_ex.L"},
                            lowerCholeskyEx);
const Registrar kCholesky({"aten::cholesky", "aten::cholesky.out"}, lowerCholesky);
const Registrar kCholeskyInverse({"aten::cholesky_inverse", "aten::cholesky_inverse.out"},
                                 lowerCholeskyInverse);
const Registrar kCholeskySolve({"aten::_cholesky_solve_helper", "aten::_cholesky_solve_helper.out"},
                               lowerCholeskySolve);
}  // namespace
}  // namespace torchtpu::lower
