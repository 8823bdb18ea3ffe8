// linalg_matrix_exp: scaling and squaring around a degree-18 Taylor
// polynomial. Each matrix is scaled by 2^-s so that its 1-norm is at most 1
// (the truncation error is then below 1/19!, far under float rounding),
// exponentiated by Horner's rule, and squared s times (s per batch element).
#include <cmath>

#include "lower/linalg/util.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)
using Dir = hlo::ComparisonDirection;
using hlo::BinaryOp;

constexpr int kDegree = 18;
constexpr double kMaxSquarings = 64;

std::vector<Value> lowerMatrixExp(LowerCtx& c) {
  Function& fn = c.fn;
  Value a = c.tensor("self");
  if (!runtime::isFloating(a.dtype()) || runtime::isComplex(a.dtype())) {
    c.fail("matrix_exp of " + std::string(runtime::elementTypeName(a.dtype())) + " is not lowered");
  }
  if (a.dtype() == ElementType::kBF16 || a.dtype() == ElementType::kF16) {
    // PyTorch's CPU kernel evaluates these in the 16-bit type and returns NaN
    // for many inputs; the CPU fallback keeps results identical to it.
    c.fail("matrix_exp of 16-bit floats is left to the CPU kernel");
  }
  if (a.t().numElements() == 0) return {a};
  const ElementType t = accType(a.dtype());
  const std::vector<int64_t> batch = batchDims(a);
  a = flattenBatch(fn, castTo(fn, a, t));
  const int64_t nb = a.dims()[0], n = a.dims()[1];
  const std::vector<int64_t> mat{nb, n, n};
  // s = clamp(ceil(log2(||a||_1)), 0, 64); 0 for a non-finite norm.
  Value colSums = fn.reduce(fn.abs(a), fn.constant(0, t), {1}, BinaryOp::kAdd);
  Value norm = fn.reduce(colSums, fn.constant(0, t), {1}, BinaryOp::kMaximum);
  Value lg =
      fn.unary(hlo::UnaryOp::kCeil, fn.divide(fn.log(norm), fn.constant(std::log(2.0), t, {nb})));
  Value s = fn.clamp(fn.constant(0, t), lg, fn.constant(kMaxSquarings, t));
  s = fn.select(fn.unary(hlo::UnaryOp::kIsFinite, norm), s, fn.constant(0, t, {nb}));
  Value scale = fn.binary(BinaryOp::kPower, fn.constant(0.5, t, {nb}), s);
  Value x = fn.multiply(a, fn.broadcastInDim(scale, mat, {0}));
  const Value id = eye(fn, t, {nb}, n);
  Value p = id;
  for (int k = kDegree; k >= 1; --k) {
    p = fn.add(id, fn.multiply(matmul(fn, x, p), fn.constant(1.0 / k, t, mat)));
  }
  Value steps = fn.convert(s, ElementType::kS32);
  Value maxSteps = fn.reduce(steps, fn.constantInt(0, ElementType::kS32), {0}, BinaryOp::kMaximum);
  std::vector<Value> out = fn.whileLoop(
      {fn.constantInt(0, ElementType::kS32), p},
      [&](Function& r, const std::vector<Value>& v) {
        return std::vector<Value>{r.compare(v[0], maxSteps, Dir::kLt)};
      },
      [&](Function& r, const std::vector<Value>& v) {
        Value more = r.compare(r.broadcastInDim(v[0], {nb}, {}), steps, Dir::kLt);
        Value sq = matmul(r, v[1], v[1]);
        Value next = r.select(r.broadcastInDim(more, mat, {0}), sq, v[1]);
        return std::vector<Value>{r.add(v[0], r.constantInt(1, ElementType::kS32)), next};
      });
  return {unflattenBatch(fn, out[1], batch)};
}

const Registrar kMatrixExp({"aten::linalg_matrix_exp", "aten::linalg_matrix_exp.out"},
                           lowerMatrixExp);

}  // namespace
}  // namespace torchtpu::lower
