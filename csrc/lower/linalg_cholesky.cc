// Cholesky ops: linalg_cholesky_ex (with LAPACK's `info`), cholesky,
// cholesky_inverse and the solve behind cholesky_solve, on stablehlo.cholesky
// and stablehlo.triangular_solve.
#include "lower/linalg_util.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)
using Dir = hlo::ComparisonDirection;

Value floatInput(LowerCtx& c, std::string_view name) {
  Value x = c.tensor(name);
  if (!runtime::isFloating(x.dtype()) || runtime::isComplex(x.dtype())) {
    c.fail("Cholesky of " + std::string(runtime::elementTypeName(x.dtype())) + " is not lowered");
  }
  return castTo(c.fn, x, computeType(x.dtype()));
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

std::vector<Value> lowerCholeskyEx(LowerCtx& c) {
  Value l = factor(c.fn, floatInput(c, "self"), c.b("upper"));
  return {l, info(c.fn, l)};
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
const Registrar kCholeskySolve({"aten::_cholesky_solve_helper",
                                "aten::_cholesky_solve_helper.out"},
                               lowerCholeskySolve);
}  // namespace
}  // namespace torchtpu::lower
