// LU factorization ops: linalg_lu_factor_ex, linalg_lu, lu_unpack and
// linalg_lu_solve, on the while-loop LU of linalg_lu_core (LAPACK pivots).
#include "lower/linalg/lu_core.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)

ElementType floatType(LowerCtx& c, const Value& x) {
  if (!runtime::isFloating(x.dtype()) || runtime::isComplex(x.dtype())) {
    c.fail("LU of " + std::string(runtime::elementTypeName(x.dtype())) + " is not lowered");
  }
  return accType(x.dtype());
}

// P [.., m, m] with P[r, i] = (perm[i] == r), so that A = P L U.
Value permMatrix(Function& fn, Value perm, ElementType t) {
  const int64_t batch = perm.dims()[0], m = perm.dims()[1];
  const std::vector<int64_t> sq{batch, m, m};
  Value hit =
      fn.compare(fn.broadcastInDim(perm, sq, {0, 2}), fn.iota(TensorType(ElementType::kS32, sq), 1),
                 hlo::ComparisonDirection::kEq);
  return fn.select(hit, fn.constant(1, t, sq), fn.constant(0, t, sq));
}

// L (unit lower, [.., m, k]) and U (upper, [.., k, n]) of a packed LU.
std::pair<Value, Value> unpackLu(Function& fn, Value lu) {
  const int64_t r = lu.rank(), m = lu.dims()[r - 2], n = lu.dims()[r - 1], k = std::min(m, n);
  std::vector<int64_t> start(r, 0), lLimit = lu.dims(), uLimit = lu.dims();
  lLimit[r - 1] = k;
  uLimit[r - 2] = k;
  Value l = triangle(fn, fn.slice(lu, start, lLimit), true, -1);
  const TensorType it(ElementType::kS32, l.dims());
  Value diag = fn.compare(fn.iota(it, r - 2), fn.iota(it, r - 1), hlo::ComparisonDirection::kEq);
  l = fn.select(diag, fn.constant(1, l.dtype(), l.dims()), l);
  Value u = triangle(fn, fn.slice(lu, start, uLimit), false, 0);
  return {l, u};
}

std::vector<Value> lowerLuFactorEx(LowerCtx& c) {
  checkErrorsOnCpu(c);
  Function& fn = c.fn;
  if (c.has("pivot") && !c.b("pivot")) c.fail("LU without pivoting is not supported");
  Value a = c.tensor("A");
  const ElementType t = floatType(c, a);
  const std::vector<int64_t> batch = batchDims(a);
  Lu f = luFactor(fn, flattenBatch(fn, castTo(fn, a, t)));
  return {unflattenBatch(fn, f.lu, batch), fn.reshape(f.pivots, c.result(1).dims),
          fn.reshape(f.info, c.result(2).dims)};
}

std::vector<Value> lowerLu(LowerCtx& c) {
  Function& fn = c.fn;
  if (!c.b("pivot")) c.fail("LU without pivoting is not supported");
  Value a = c.tensor("A");
  const ElementType t = floatType(c, a);
  const std::vector<int64_t> batch = batchDims(a);
  Lu f = luFactor(fn, flattenBatch(fn, castTo(fn, a, t)));
  auto [l, u] = unpackLu(fn, unflattenBatch(fn, f.lu, batch));
  Value p = unflattenBatch(fn, permMatrix(fn, f.perm, t), batch);
  return {p, l, u};
}

std::vector<Value> lowerLuUnpack(LowerCtx& c) {
  Function& fn = c.fn;
  Value lu = c.tensor("LU_data");
  const ElementType t = floatType(c, lu);
  lu = castTo(fn, lu, t);
  std::vector<Value> out;
  if (c.result(0).numElements() == 0) {
    out.push_back(zeros(fn, c.result(0)));
  } else {
    const std::vector<int64_t> batch = batchDims(lu);
    const int64_t m = lu.dims()[lu.rank() - 2], k = std::min(m, lu.dims()[lu.rank() - 1]);
    Value piv = broadcastTo(fn, c.tensor("LU_pivots"), concatDims(batch, {k}));
    piv = fn.reshape(piv, {c.result(0).numElements() / (m * m), k});
    Value perm = permFromPivots(fn, piv, m);
    out.push_back(fn.reshape(permMatrix(fn, perm, t), c.result(0).dims));
  }
  if (c.result(1).numElements() == 0 || c.result(2).numElements() == 0) {
    out.push_back(zeros(fn, c.result(1)));
    out.push_back(zeros(fn, c.result(2)));
  } else {
    auto [l, u] = unpackLu(fn, lu);
    out.push_back(l);
    out.push_back(u);
  }
  return out;
}

std::vector<Value> lowerLuSolve(LowerCtx& c) {
  Function& fn = c.fn;
  Value lu = c.tensor("LU");
  Value b = c.tensor("B");
  const ElementType t = floatType(c, lu);
  const bool left = c.b("left"), adjoint = c.b("adjoint");
  const int64_t n = lu.dims()[lu.rank() - 1];
  const std::vector<int64_t> batch = broadcastShapes({batchDims(lu), batchDims(b)});
  lu = flattenBatch(fn, broadcastBatch(fn, castTo(fn, lu, t), batch));
  Value piv = broadcastTo(fn, c.tensor("pivots"), concatDims(batch, {n}));
  piv = fn.reshape(castTo(fn, piv, ElementType::kS32), {lu.dims()[0], n});
  b = flattenBatch(fn, broadcastBatch(fn, castTo(fn, b, t), batch));
  if (b.t().numElements() == 0) return {zeros(fn, c.result())};
  Value perm = permFromPivots(fn, piv, n);
  Value x =
      left ? luSolve(fn, lu, perm, b, adjoint) : mT(fn, luSolve(fn, lu, perm, mT(fn, b), !adjoint));
  return {unflattenBatch(fn, x, batch)};
}

const Registrar kLuFactorEx({"aten::linalg_lu_factor_ex", "aten::linalg_lu_factor_ex.out"},
                            lowerLuFactorEx);
const Registrar kLu({"aten::linalg_lu", "aten::linalg_lu.out"}, lowerLu);
const Registrar kLuUnpack({"aten::lu_unpack", "aten::lu_unpack.out"}, lowerLuUnpack);
const Registrar kLuSolve({"aten::linalg_lu_solve", "aten::linalg_lu_solve.out"}, lowerLuSolve);

}  // namespace
}  // namespace torchtpu::lower
