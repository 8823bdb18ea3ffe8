// LDL^T of symmetric matrices with Bunch-Kaufman pivoting (linalg_ldl_factor_ex)
// and its solve (linalg_ldl_solve), as LAPACK's sytf2 / sytrs (lower) compute
// them: same 1x1 / 2x2 pivot choices, pivots (negative for 2x2 blocks), info,
// and the factor in sytrf's compact form (L below the diagonal, D's blocks on
// and beside it, earlier columns not permuted). Each matrix of the batch
// advances by its own step (1 or 2) in one while loop, so every access at the
// current column is a masked reduction instead of a dynamic slice.
#include <cmath>

#include "lower/linalg/util.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)
using Dir = hlo::ComparisonDirection;
using hlo::BinaryOp;
constexpr ElementType kI32 = ElementType::kS32;

// Region-local helpers over a batch of n x n matrices with per-matrix indices.
struct Ops {
  Function& r;
  int64_t b, n;
  ElementType t;

  std::vector<int64_t> mat() const { return {b, n, n}; }
  std::vector<int64_t> vec() const { return {b, n}; }
  Value i32(int64_t v, const std::vector<int64_t>& d) { return r.constantInt(v, kI32, d); }
  Value k(double v, const std::vector<int64_t>& d) { return r.constant(v, t, d); }
  Value iota(const std::vector<int64_t>& d, int64_t dim) {
    return r.iota(TensorType(kI32, d), dim);
  }
  Value onM(Value idx) { return r.broadcastInDim(idx, mat(), {0}); }
  Value onV(Value x) { return r.broadcastInDim(x, vec(), {0}); }
  Value and_(Value a, Value c) { return r.binary(BinaryOp::kAnd, a, c); }
  Value or_(Value a, Value c) { return r.binary(BinaryOp::kOr, a, c); }
  Value not_(Value a) { return r.unary(hlo::UnaryOp::kNot, a); }
  // Entry idx[b] of dimension `dim` of each x[b] (x [B, ...] of any element
  // type, idx [B]), that dimension summed out: a row (dim 1) or column (dim 2)
  // of a matrix, an element (dim 1) of a vector.
  Value pick(Value x, Value idx, int64_t dim) {
    const std::vector<int64_t> d = x.dims();
    Value hit = r.compare(iota(d, dim), r.broadcastInDim(idx, d, {0}), Dir::kEq);
    Value zeros = constantLike(r, 0, x.dtype(), d);
    return r.reduce(r.select(hit, x, zeros), constantLike(r, 0, x.dtype()), {dim}, BinaryOp::kAdd);
  }
  // Column idx[b] of each matrix w [B, n, k]: [B, n].
  Value col(Value w, Value idx) { return pick(w, idx, 2); }
  // Row idx[b] of each matrix w [B, n, k]: [B, k].
  Value row(Value w, Value idx) { return pick(w, idx, 1); }
  // Element idx[b] of each vector: [B].
  Value at(Value v, Value idx) { return pick(v, idx, 1); }
  // A rounded product (kept out of a fused multiply-add, as LAPACK rounds it).
  Value mulR(Value a, Value c) { return r.optimizationBarrier({r.multiply(a, c)})[0]; }
  // x [B, m, k] with rows a[b] and c[b] exchanged.
  Value swapRows(Value x, Value a, Value c) {
    const int64_t m = x.dims()[1];
    Value rows = iota({b, m}, 1);
    Value ab = r.broadcastInDim(a, {b, m}, {0}), cb = r.broadcastInDim(c, {b, m}, {0});
    Value sigma = r.select(r.compare(rows, ab, Dir::kEq), cb,
                           r.select(r.compare(rows, cb, Dir::kEq), ab, rows));
    return gatherRows(r, x, sigma);
  }
};

// Bunch-Kaufman's pivot choice at column kb of each matrix w (sytf2's).
struct Pivot {
  Value active;    // kb < n
  Value idx, kV;   // row indices [B, n], and kb on them
  Value below;     // idx > kb
  Value zeroCase;  // the column is zero: nothing to eliminate
  Value kp;        // the row and column interchanged with kk
  Value two;       // a 2x2 pivot
  Value kk;        // kb, or kb + 1 for a 2x2 pivot
};

Pivot choosePivot(Ops& o, Value kb, Value w, double alpha) {
  Function& r = o.r;
  const std::vector<int64_t> one{o.b};
  const int64_t n = o.n;
  const ElementType t = o.t;
  Pivot p;
  p.active = r.compare(kb, o.i32(n, one), Dir::kLt);
  p.idx = o.iota(o.vec(), 1);
  p.kV = o.onV(kb);
  Value colk = o.col(w, kb);
  Value absakk = r.abs(o.at(colk, kb));
  p.below = r.compare(p.idx, p.kV, Dir::kGt);
  Value mag = r.select(p.below, r.abs(colk), o.k(-1, o.vec()));
  Value colmax0 = r.reduce(mag, r.constant(-1, t), {1}, BinaryOp::kMaximum);
  Value colmax = r.maximum(colmax0, o.k(0, one));
  Value imax = r.reduce(
      r.select(o.and_(p.below, r.compare(mag, o.onV(colmax0), Dir::kEq)), p.idx, o.i32(n, o.vec())),
      r.constantInt(n, kI32), {1}, BinaryOp::kMinimum);
  imax = r.select(r.compare(imax, o.i32(n, one), Dir::kGe), kb, imax);
  p.zeroCase = o.not_(r.compare(r.maximum(absakk, colmax), o.k(0, one), Dir::kGt));
  Value rowI = o.col(w, imax);
  Value inRow = o.and_(r.compare(p.idx, p.kV, Dir::kGe), r.compare(p.idx, o.onV(imax), Dir::kNe));
  Value rowmax = r.reduce(r.select(inRow, r.abs(rowI), o.k(0, o.vec())), r.constant(0, t), {1},
                          BinaryOp::kMaximum);
  Value aii = r.abs(o.at(rowI, imax));
  Value c1 = r.compare(absakk, r.multiply(o.k(alpha, one), colmax), Dir::kGe);
  Value c2 = r.compare(
      absakk, r.multiply(r.multiply(o.k(alpha, one), colmax), r.divide(colmax, rowmax)), Dir::kGe);
  Value c3 = r.compare(aii, r.multiply(o.k(alpha, one), rowmax), Dir::kGe);
  Value noSwap = o.or_(p.zeroCase, o.or_(c1, c2));
  p.kp = r.select(noSwap, kb, imax);
  p.two = o.and_(o.not_(noSwap), o.not_(c3));
  p.kk = r.select(p.two, r.add(kb, o.i32(1, one)), kb);
  return p;
}

// Row and column indices of [B, n, n], and kb on them.
struct Grid {
  Value kM, rowsM, colsM;
};

// 1x1 pivot at column kb: A(i, j) += x(i) * (-d11 * x(j)) for i, j > k; x(i) *= d11
// (c0: column kb, below: rows after kb).
Value update1x1(Ops& o, Value w, Value kb, Value c0, Value below, const Grid& g) {
  Function& r = o.r;
  const std::vector<int64_t> one{o.b};
  Value d11 = r.divide(o.k(1, one), o.at(c0, kb));
  Value x = r.select(below, c0, o.k(0, o.vec()));
  Value temp = r.multiply(r.negate(o.onV(d11)), x);
  Value upd1 = r.add(
      w, o.mulR(r.broadcastInDim(x, o.mat(), {0, 1}), r.broadcastInDim(temp, o.mat(), {0, 2})));
  Value afterK = o.and_(r.compare(g.rowsM, g.kM, Dir::kGt), r.compare(g.colsM, g.kM, Dir::kGt));
  Value w1 = r.select(afterK, upd1, w);
  Value colKMask = o.and_(r.compare(g.colsM, g.kM, Dir::kEq), r.compare(g.rowsM, g.kM, Dir::kGt));
  return r.select(colKMask, r.broadcastInDim(r.multiply(x, o.onV(d11)), o.mat(), {0, 1}), w1);
}

// 2x2 pivot on columns kb, k1 = kb + 1 (c0, c1v).
Value update2x2(Ops& o, Value w, Value kb, Value k1, Value c0, Value c1v, const Grid& g) {
  Function& r = o.r;
  const std::vector<int64_t> one{o.b};
  Value d21 = o.at(c0, k1);
  Value e11 = r.divide(o.at(c1v, k1), d21);
  Value e22 = r.divide(o.at(c0, kb), d21);
  Value tt = r.divide(o.k(1, one), r.subtract(r.multiply(e11, e22), o.k(1, one)));
  Value f21 = r.divide(tt, d21);
  Value wk = r.multiply(o.onV(f21), r.subtract(o.mulR(o.onV(e11), c0), c1v));
  Value wkp1 = r.multiply(o.onV(f21), r.subtract(o.mulR(o.onV(e22), c1v), c0));
  Value k1M = o.onM(k1);
  Value afterK1 = o.and_(r.compare(g.rowsM, k1M, Dir::kGt), r.compare(g.colsM, k1M, Dir::kGt));
  Value upd2 = r.subtract(
      r.subtract(
          w, o.mulR(r.broadcastInDim(c0, o.mat(), {0, 1}), r.broadcastInDim(wk, o.mat(), {0, 2}))),
      o.mulR(r.broadcastInDim(c1v, o.mat(), {0, 1}), r.broadcastInDim(wkp1, o.mat(), {0, 2})));
  Value w2 = r.select(afterK1, upd2, w);
  Value belowK1 = r.compare(g.rowsM, k1M, Dir::kGt);
  w2 = r.select(o.and_(belowK1, r.compare(g.colsM, g.kM, Dir::kEq)),
                r.broadcastInDim(wk, o.mat(), {0, 1}), w2);
  return r.select(o.and_(belowK1, r.compare(g.colsM, k1M, Dir::kEq)),
                  r.broadcastInDim(wkp1, o.mat(), {0, 1}), w2);
}

// One step of the factorization: a 1x1 or 2x2 pivot at column kb of each
// matrix. v: {step, kb, w, pivots, info}, the loop's state.
std::vector<Value> factorStep(Ops& o, double alpha, const std::vector<Value>& v) {
  Function& r = o.r;
  Value kb = v[1], w = v[2], piv = v[3], info = v[4];
  const std::vector<int64_t> one{o.b};
  const Pivot p = choosePivot(o, kb, w, alpha);
  // Symmetric interchange of kk and kp inside the trailing block.
  Value wp = mT(r, o.swapRows(mT(r, o.swapRows(w, p.kk, p.kp)), p.kk, p.kp));
  Grid g;
  g.kM = o.onM(kb);
  g.rowsM = o.iota(o.mat(), 1);
  g.colsM = o.iota(o.mat(), 2);
  Value trail = o.and_(r.compare(g.rowsM, g.kM, Dir::kGe), r.compare(g.colsM, g.kM, Dir::kGe));
  w = r.select(o.and_(trail, o.onM(p.active)), wp, w);
  // Elimination.
  Value elim = o.and_(p.active, o.not_(p.zeroCase));
  Value c0 = o.col(w, kb);
  Value k1 = r.add(kb, o.i32(1, one));
  Value c1v = o.col(w, k1);
  Value w1 = update1x1(o, w, kb, c0, p.below, g);
  Value w2 = update2x2(o, w, kb, k1, c0, c1v, g);
  Value wNew = r.select(o.onM(p.two), w2, w1);
  w = r.select(o.onM(elim), wNew, w);
  Value lower = r.compare(g.rowsM, g.colsM, Dir::kGe);
  w = r.select(lower, w, mT(r, w));
  // Pivots, info, next column.
  Value kp1 = r.add(p.kp, o.i32(1, one));
  Value pval = r.select(p.two, r.negate(kp1), kp1);
  Value setK = o.and_(r.compare(p.idx, p.kV, Dir::kEq), o.onV(p.active));
  Value setK1 =
      o.and_(o.and_(r.compare(p.idx, o.onV(k1), Dir::kEq), o.onV(p.active)), o.onV(p.two));
  piv = r.select(o.or_(setK, setK1), o.onV(pval), piv);
  Value fresh = o.and_(o.and_(p.active, p.zeroCase), r.compare(info, o.i32(0, one), Dir::kEq));
  info = r.select(fresh, k1, info);
  Value step = r.select(p.two, o.i32(2, one), o.i32(1, one));
  kb = r.select(p.active, r.add(kb, step), kb);
  return std::vector<Value>{r.add(v[0], r.constantInt(1, kI32)), kb, w, piv, info};
}

std::vector<Value> factorLoop(Function& fn, Value a) {
  const int64_t nb = a.dims()[0], n = a.dims()[1];
  const ElementType t = a.dtype();
  const double alpha = (1 + std::sqrt(17.0)) / 8;
  // Full symmetric storage from the lower triangle.
  Ops o0{fn, nb, n, t};
  Value lowerMask = fn.compare(o0.iota(o0.mat(), 1), o0.iota(o0.mat(), 2), Dir::kGe);
  a = fn.select(lowerMask, a, mT(fn, a));
  std::vector<Value> out = fn.whileLoop(
      {fn.constantInt(0, kI32), o0.i32(0, {nb}), a, o0.i32(0, {nb, n}), o0.i32(0, {nb})},
      [&](Function& r, const std::vector<Value>& v) {
        return std::vector<Value>{r.compare(v[0], r.constantInt(n, kI32), Dir::kLt)};
      },
      [&](Function& r, const std::vector<Value>& v) {
        Ops o{r, nb, n, t};
        return factorStep(o, alpha, v);
      });
  return {triangle(fn, out[2], true), out[3], out[4]};
}

// Row operations on the right-hand sides x [B, n, m] (dims xd) of a solve.
struct RowOps {
  Ops& o;
  std::vector<int64_t> xd;

  // Updates of x's rows by a per-row factor.
  Value setRow(Value xv, Value idx, Value rowv, Value when) {
    Value hit = o.r.compare(o.iota(xd, 1), o.r.broadcastInDim(idx, xd, {0}), Dir::kEq);
    hit = o.and_(hit, o.r.broadcastInDim(when, xd, {0}));
    return o.r.select(hit, o.r.broadcastInDim(rowv, xd, {0, 2}), xv);
  }
  // x[i, :] -= l[i] * row for the rows where mask[i] (l, mask: [B, n]).
  Value ger(Value xv, Value l, Value rowv, Value mask) {
    Value u = o.mulR(o.r.broadcastInDim(l, xd, {0, 1}), o.r.broadcastInDim(rowv, xd, {0, 2}));
    return o.r.select(o.r.broadcastInDim(mask, xd, {0, 1}), o.r.subtract(xv, u), xv);
  }
  // sum_i mask[i] l[i] x[i, :]: [B, m].
  Value gemvT(Value xv, Value l, Value mask) {
    Value lm = o.r.select(mask, l, o.k(0, {o.b, o.n}));
    Value p = o.r.multiply(o.r.broadcastInDim(lm, xd, {0, 1}), xv);
    return o.r.reduce(p, o.r.constant(0, o.t), {1}, BinaryOp::kAdd);
  }
};

// One step of L D x' = b at column kb (a 1x1 or 2x2 block). v: {step, kb, x}.
std::vector<Value> forwardStep(RowOps& x, Value ld, Value piv, const std::vector<Value>& v) {
  Ops& o = x.o;
  Function& r = o.r;
  const int64_t nb = o.b, m = x.xd[2];
  const std::vector<int64_t> one{nb};
  Value kb = v[1], xv = v[2];
  Value active = r.compare(kb, o.i32(o.n, one), Dir::kLt);
  Value p = o.at(piv, kb);
  Value two = r.compare(p, o.i32(0, one), Dir::kLt);
  Value k1 = r.add(kb, o.i32(1, one));
  Value idx = o.iota(o.vec(), 1);
  // 1x1
  Value kp = r.subtract(p, o.i32(1, one));
  Value x1 = o.swapRows(xv, kb, kp);
  Value ck = o.col(ld, kb);
  Value rk = o.row(x1, kb);
  x1 = x.ger(x1, ck, rk, r.compare(idx, o.onV(kb), Dir::kGt));
  Value inv = r.divide(o.k(1, one), o.at(ck, kb));
  x1 = x.setRow(x1, kb, r.multiply(rk, r.broadcastInDim(inv, {nb, m}, {0})), active);
  // 2x2
  Value kp2 = r.subtract(r.negate(p), o.i32(1, one));
  Value x2 = o.swapRows(xv, k1, kp2);
  Value ck1 = o.col(ld, k1);
  Value after = r.compare(idx, o.onV(k1), Dir::kGt);
  Value r0 = o.row(x2, kb);
  x2 = x.ger(x2, ck, r0, after);
  Value r1 = o.row(x2, k1);
  x2 = x.ger(x2, ck1, r1, after);
  Value akm1k = o.at(ck, k1);
  Value akm1 = r.divide(o.at(ck, kb), akm1k);
  Value ak = r.divide(o.at(ck1, k1), akm1k);
  Value denom = r.subtract(r.multiply(akm1, ak), o.k(1, one));
  auto bm = [&](Value s) { return r.broadcastInDim(s, {nb, m}, {0}); };
  Value bkm1 = r.divide(r0, bm(akm1k));
  Value bk = r.divide(r1, bm(akm1k));
  Value n0 = r.divide(r.subtract(r.multiply(bm(ak), bkm1), bk), bm(denom));
  Value n1 = r.divide(r.subtract(r.multiply(bm(akm1), bk), bkm1), bm(denom));
  x2 = x.setRow(x2, kb, n0, active);
  x2 = x.setRow(x2, k1, n1, active);
  Value next = r.select(r.broadcastInDim(two, x.xd, {0}), x2, x1);
  xv = r.select(r.broadcastInDim(active, x.xd, {0}), next, xv);
  Value step = r.select(two, o.i32(2, one), o.i32(1, one));
  kb = r.select(active, r.add(kb, step), kb);
  return std::vector<Value>{r.add(v[0], r.constantInt(1, kI32)), kb, xv};
}

// One step of L^T x = x' at column kb (a 1x1 or 2x2 block). v: {step, kb, x}.
std::vector<Value> backwardStep(RowOps& x, Value ld, Value piv, const std::vector<Value>& v) {
  Ops& o = x.o;
  Function& r = o.r;
  const std::vector<int64_t> one{o.b};
  Value kb = v[1], xv = v[2];
  Value active = r.compare(kb, o.i32(0, one), Dir::kGe);
  Value kc = r.maximum(kb, o.i32(0, one));
  Value p = o.at(piv, kc);
  Value two = r.compare(p, o.i32(0, one), Dir::kLt);
  Value km1 = r.maximum(r.subtract(kc, o.i32(1, one)), o.i32(0, one));
  Value idx = o.iota(o.vec(), 1);
  Value after = r.compare(idx, o.onV(kc), Dir::kGt);
  Value ck = o.col(ld, kc);
  Value rk = r.subtract(o.row(xv, kc), x.gemvT(xv, ck, after));
  Value x1 = x.setRow(xv, kc, rk, active);
  Value x2 = x1;
  Value ckm1 = o.col(ld, km1);
  Value rkm1 = r.subtract(o.row(xv, km1), x.gemvT(xv, ckm1, after));
  x2 = x.setRow(x2, km1, rkm1, o.and_(active, two));
  Value kp = r.select(two, r.subtract(r.negate(p), o.i32(1, one)), r.subtract(p, o.i32(1, one)));
  Value swapped = o.swapRows(x2, kc, kp);
  xv = r.select(r.broadcastInDim(active, x.xd, {0}), swapped, xv);
  Value step = r.select(two, o.i32(2, one), o.i32(1, one));
  kb = r.select(active, r.subtract(kb, step), kb);
  return std::vector<Value>{r.add(v[0], r.constantInt(1, kI32)), kb, xv};
}

Value solveLoops(Function& fn, Value ld, Value piv, Value x) {
  const int64_t nb = ld.dims()[0], n = ld.dims()[1], m = x.dims()[2];
  const ElementType t = ld.dtype();
  const std::vector<int64_t> xd{nb, n, m};
  auto cond = [&](Function& r, const std::vector<Value>& v) {
    return std::vector<Value>{r.compare(v[0], r.constantInt(n, kI32), Dir::kLt)};
  };
  Ops o0{fn, nb, n, t};
  // L D x' = b, columns k = 0, 1, ...
  std::vector<Value> fwd = fn.whileLoop({fn.constantInt(0, kI32), o0.i32(0, {nb}), x}, cond,
                                        [&](Function& r, const std::vector<Value>& v) {
                                          Ops o{r, nb, n, t};
                                          RowOps rows{o, xd};
                                          return forwardStep(rows, ld, piv, v);
                                        });
  // L^T x = x', columns k = n - 1, n - 2, ...
  std::vector<Value> bwd = fn.whileLoop({fn.constantInt(0, kI32), o0.i32(n - 1, {nb}), fwd[2]},
                                        cond, [&](Function& r, const std::vector<Value>& v) {
                                          Ops o{r, nb, n, t};
                                          RowOps rows{o, xd};
                                          return backwardStep(rows, ld, piv, v);
                                        });
  return bwd[2];
}

Value floatInput(LowerCtx& c, std::string_view name) {
  Value x = c.tensor(name);
  if (!runtime::isFloating(x.dtype()) || runtime::isComplex(x.dtype())) {
    c.fail("LDL of " + std::string(runtime::elementTypeName(x.dtype())) + " is not lowered");
  }
  return castTo(c.fn, x, accType(x.dtype()));
}

std::vector<Value> lowerLdlFactorEx(LowerCtx& c) {
  Function& fn = c.fn;
  checkErrorsOnCpu(c);
  Value a = floatInput(c, "self");
  if (a.t().numElements() == 0) {
    return {zeros(fn, c.result(0)), zeros(fn, c.result(1)), zeros(fn, c.result(2))};
  }
  const std::vector<int64_t> batch = batchDims(a);
  std::vector<Value> r = factorLoop(fn, flattenBatch(fn, a));
  return {unflattenBatch(fn, r[0], batch), fn.reshape(r[1], c.result(1).dims),
          fn.reshape(r[2], c.result(2).dims)};
}

std::vector<Value> lowerLdlSolve(LowerCtx& c) {
  Function& fn = c.fn;
  Value ld = floatInput(c, "LD");
  Value b = floatInput(c, "B");
  if (c.result().numElements() == 0 || ld.t().numElements() == 0) return {zeros(fn, c.result())};
  const int64_t n = ld.dims()[ld.rank() - 1];
  const std::vector<int64_t> batch = broadcastShapes({batchDims(ld), batchDims(b)});
  ld = flattenBatch(fn, broadcastBatch(fn, ld, batch));
  Value piv = broadcastTo(fn, castTo(fn, c.tensor("pivots"), kI32), concatDims(batch, {n}));
  piv = fn.reshape(piv, {ld.dims()[0], n});
  b = flattenBatch(fn, broadcastBatch(fn, b, batch));
  return {unflattenBatch(fn, solveLoops(fn, ld, piv, b), batch)};
}

const Registrar kLdlFactorEx({"aten::linalg_ldl_factor_ex", "aten::linalg_ldl_factor_ex.out"},
                             lowerLdlFactorEx);
const Registrar kLdlSolve({"aten::linalg_ldl_solve", "aten::linalg_ldl_solve.out"}, lowerLdlSolve);

}  // namespace
}  // namespace torchtpu::lower
