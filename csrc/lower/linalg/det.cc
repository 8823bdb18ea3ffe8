// Determinants through LU: _linalg_det (det, LU, pivots) and _linalg_slogdet
// (sign, log|det|, LU, pivots). As PyTorch's CPU kernels do, a contiguous real
// A is factored as A^T (same determinant): the LU its backward formula expects.
#include "lower/elementwise/elementwise_math.h"
#include "lower/linalg/lu_core.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)
using hlo::BinaryOp;

struct Factored {
  Value diag;  // [B, n] diagonal of U
  Value sign;  // [B] sign of the permutation
  Value lu, pivots;
};

Factored factorFor(LowerCtx& c) {
  Function& fn = c.fn;
  Value a = c.tensor("A");
  if (!runtime::isFloating(a.dtype()) || runtime::isComplex(a.dtype())) {
    c.fail("determinant of " + std::string(runtime::elementTypeName(a.dtype())) +
           " is not lowered");
  }
  const ElementType t = accType(a.dtype());
  a = castTo(fn, a, t);
  const std::vector<int64_t> batch = batchDims(a);
  if (isContiguous(c, "A")) a = mT(fn, a);
  Lu f = luFactor(fn, flattenBatch(fn, a));
  return {diagonal(fn, f.lu), pivotSign(fn, f.pivots, t), unflattenBatch(fn, f.lu, batch),
          unflattenBatch(fn, f.pivots, batch)};
}

bool empty(const LowerCtx& c) {
  for (const TensorType& t : c.results()) {
    if (t.numElements() == 0) return true;
  }
  return c.tensor("A").t().numElements() == 0;
}

std::vector<Value> lowerDet(LowerCtx& c) {
  Function& fn = c.fn;
  if (empty(c)) {
    return {fn.constant(1, c.result(0).dtype, c.result(0).dims), zeros(fn, c.result(1)),
            zeros(fn, c.result(2))};
  }
  Factored f = factorFor(c);
  Value prod = fn.reduce(f.diag, fn.constant(1, f.diag.dtype()), {1}, BinaryOp::kMultiply);
  Value det = fn.multiply(prod, f.sign);
  return {fn.reshape(det, c.result(0).dims), f.lu, f.pivots};
}

std::vector<Value> lowerSlogdet(LowerCtx& c) {
  Function& fn = c.fn;
  if (empty(c)) {
    return {fn.constant(1, c.result(0).dtype, c.result(0).dims), zeros(fn, c.result(1)),
            zeros(fn, c.result(2)), zeros(fn, c.result(3))};
  }
  Factored f = factorFor(c);
  const ElementType t = f.diag.dtype();
  // torch.sign: 0 for NaN, so a NaN in U gives sign 0 (logabsdet NaN), as on the CPU.
  Value signs = ew::sign(fn, f.diag);
  Value sign = fn.multiply(fn.reduce(signs, fn.constant(1, t), {1}, BinaryOp::kMultiply), f.sign);
  Value logabs = fn.reduce(fn.log(fn.abs(f.diag)), fn.constant(0, t), {1}, BinaryOp::kAdd);
  return {fn.reshape(sign, c.result(0).dims), fn.reshape(logabs, c.result(1).dims), f.lu, f.pivots};
}

const Registrar kDet({"aten::_linalg_det", "aten::_linalg_det.result"}, lowerDet);
const Registrar kSlogdet({"aten::_linalg_slogdet", "aten::_linalg_slogdet.sign"}, lowerSlogdet);

}  // namespace
}  // namespace torchtpu::lower
