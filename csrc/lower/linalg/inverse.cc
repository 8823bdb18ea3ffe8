// Solves and inverses through LU: _linalg_solve_ex (behind linalg.solve and
// tensorsolve) and linalg_inv_ex (behind inv, matrix_power, tensorinv). The
// LU and pivots returned are A's, as PyTorch 2.13's CPU kernel returns (its
// backward formula solves with them and adjoint = true).
#include "lower/linalg/lu_core.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)

struct Solved {
  Value x, lu, pivots, info;  // x with the broadcast batch; the rest with A's batch
};

// Solves A x = b (left) or x A = b; b has batch dims (broadcast against A's).
Solved solve(LowerCtx& c, Value a, Value b, bool left) {
  Function& fn = c.fn;
  if (!runtime::isFloating(a.dtype()) || runtime::isComplex(a.dtype())) {
    c.fail("solve of " + std::string(runtime::elementTypeName(a.dtype())) + " is not lowered");
  }
  const ElementType t = accType(a.dtype());
  a = castTo(fn, a, t);
  b = castTo(fn, b, t);
  const std::vector<int64_t> batchA = batchDims(a);
  const int64_t n = a.dims()[a.rank() - 1];
  Lu f = luFactor(fn, flattenBatch(fn, a));
  Solved s;
  s.lu = unflattenBatch(fn, f.lu, batchA);
  s.pivots = unflattenBatch(fn, f.pivots, batchA);
  s.info = fn.reshape(f.info, batchA);
  const std::vector<int64_t> batch = broadcastShapes({batchA, batchDims(b)});
  Value lu = flattenBatch(fn, broadcastBatch(fn, s.lu, batch));
  Value perm = broadcastTo(fn, unflattenBatch(fn, f.perm, batchA), concatDims(batch, {n}));
  perm = fn.reshape(perm, {lu.dims()[0], n});
  Value bf = flattenBatch(fn, broadcastBatch(fn, b, batch));
  // Right: x A = b is A^T x^T = b^T.
  Value x =
      left ? luSolve(fn, lu, perm, bf, false) : mT(fn, luSolve(fn, lu, perm, mT(fn, bf), true));
  s.x = unflattenBatch(fn, x, batch);
  return s;
}

std::vector<Value> lowerSolveEx(LowerCtx& c) {
  checkErrorsOnCpu(c);
  Function& fn = c.fn;
  Value a = c.tensor("A");
  Value b = c.tensor("B");
  const bool left = c.b("left");
  const bool vectorCase = c.result(0).rank() == a.rank() - 1;
  if (vectorCase) {
    std::vector<int64_t> d = b.dims();
    d.push_back(1);
    b = fn.reshape(b, d);
  }
  if (c.result(0).numElements() == 0 || a.t().numElements() == 0) {
    std::vector<Value> out;
    for (const TensorType& t : c.results()) out.push_back(zeros(fn, t));
    return out;
  }
  Solved s = solve(c, a, b, left);
  return {fn.reshape(s.x, c.result(0).dims), s.lu, s.pivots, s.info};
}

std::vector<Value> lowerInvEx(LowerCtx& c) {
  checkErrorsOnCpu(c);
  Function& fn = c.fn;
  Value a = c.tensor("A");
  if (a.t().numElements() == 0) return {zeros(fn, c.result(0)), zeros(fn, c.result(1))};
  const int64_t n = a.dims()[a.rank() - 1];
  Solved s = solve(c, a, eye(fn, accType(a.dtype()), {}, n), true);
  return {s.x, s.info};
}

const Registrar kSolveEx({"aten::_linalg_solve_ex", "aten::_linalg_solve_ex.result"}, lowerSolveEx);
const Registrar kInvEx({"aten::linalg_inv_ex", "aten::linalg_inv_ex.inverse"}, lowerInvEx);

}  // namespace
}  // namespace torchtpu::lower
