// Matrix products: mm, bmm, mv, dot and their beta/alpha forms addmm,
// baddbmm, addbmm, addmv. PyTorch semantics: out = beta * self + alpha * (a @ b),
// where beta == 0 ignores self entirely (NaN/inf in self do not propagate).
// 16-bit float products accumulate in f32 and round once at the end, as the
// CPU kernels do; f32 products ask for full precision (TPUs default to bf16
// passes otherwise).
#include "lower/common.h"

namespace torchtpu::lower {
namespace {

hlo::Precision precisionFor(ElementType t) {
  return runtime::isFloating(t) || runtime::isComplex(t) ? hlo::Precision::kHighest
                                                         : hlo::Precision::kDefault;
}

void checkSupported(const LowerCtx& c, ElementType t) {
  if (t == ElementType::kPred) {
    c.fail(std::string("matrix products of ") + std::string(runtime::elementTypeName(t)) +
           " are not lowered");
  }
}

// a @ b contracted over the given dims, in the accumulation type of `out`.
Value product(LowerCtx& c, Value a, Value b, const hlo::DotDims& dims, ElementType out) {
  checkSupported(c, out);
  a = castTo(c.fn, a, out);
  b = castTo(c.fn, b, out);
  return c.fn.dotGeneral(a, b, dims, accType(out), precisionFor(out));
}

hlo::DotDims matmulDims() {
  hlo::DotDims d;
  d.lhsContracting = {1};
  d.rhsContracting = {0};
  return d;
}

hlo::DotDims batchedDims() {
  hlo::DotDims d;
  d.lhsBatch = {0};
  d.rhsBatch = {0};
  d.lhsContracting = {2};
  d.rhsContracting = {1};
  return d;
}

// beta * self + alpha * prod, with self ignored when beta == 0.
Value addScaled(LowerCtx& c, Value prod) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const ElementType t = prod.dtype();
  const Value beta = c.scalar("beta");
  const Value alpha = c.scalar("alpha");
  Value self = fit(fn, c.tensor("self"), t, out.dims);
  Value scaledSelf = fn.multiply(self, fit(fn, beta, t, out.dims));
  Value betaIsZero =
      fn.compare(beta, constantLike(fn, 0, beta.dtype()), hlo::ComparisonDirection::kEq);
  scaledSelf = fn.select(betaIsZero, constantLike(fn, 0, t, out.dims), scaledSelf);
  Value scaledProd = fn.multiply(prod, fit(fn, alpha, t, out.dims));
  return fn.add(scaledSelf, scaledProd);
}

std::vector<Value> lowerMm(LowerCtx& c) {
  return {product(c, c.tensor("self"), c.tensor("mat2"), matmulDims(), c.result().dtype)};
}

std::vector<Value> lowerBmm(LowerCtx& c) {
  return {product(c, c.tensor("self"), c.tensor("mat2"), batchedDims(), c.result().dtype)};
}

std::vector<Value> lowerMv(LowerCtx& c) {
  return {product(c, c.tensor("self"), c.tensor("vec"), matmulDims(), c.result().dtype)};
}

std::vector<Value> lowerDot(LowerCtx& c) {
  hlo::DotDims d;
  d.lhsContracting = {0};
  d.rhsContracting = {0};
  return {product(c, c.tensor("self"), c.tensor("tensor"), d, c.result().dtype)};
}

std::vector<Value> lowerAddmm(LowerCtx& c) {
  return {
      addScaled(c, product(c, c.tensor("mat1"), c.tensor("mat2"), matmulDims(), c.result().dtype))};
}

std::vector<Value> lowerBaddbmm(LowerCtx& c) {
  return {addScaled(
      c, product(c, c.tensor("batch1"), c.tensor("batch2"), batchedDims(), c.result().dtype))};
}

// addbmm sums the batch of products: contract over the batch and inner dims.
std::vector<Value> lowerAddbmm(LowerCtx& c) {
  hlo::DotDims d;
  d.lhsContracting = {0, 2};
  d.rhsContracting = {0, 1};
  return {addScaled(c, product(c, c.tensor("batch1"), c.tensor("batch2"), d, c.result().dtype))};
}

std::vector<Value> lowerAddmv(LowerCtx& c) {
  return {
      addScaled(c, product(c, c.tensor("mat"), c.tensor("vec"), matmulDims(), c.result().dtype))};
}

const Registrar kMm({"aten::mm", "aten::mm.out"}, lowerMm);
const Registrar kBmm({"aten::bmm", "aten::bmm.out"}, lowerBmm);
const Registrar kMv({"aten::mv", "aten::mv.out"}, lowerMv);
const Registrar kDot({"aten::dot", "aten::dot.out"}, lowerDot);
const Registrar kAddmm({"aten::addmm", "aten::addmm.out", "aten::addmm_"}, lowerAddmm);
const Registrar kBaddbmm({"aten::baddbmm", "aten::baddbmm.out", "aten::baddbmm_"}, lowerBaddbmm);
const Registrar kAddbmm({"aten::addbmm", "aten::addbmm.out", "aten::addbmm_"}, lowerAddbmm);
const Registrar kAddmv({"aten::addmv", "aten::addmv.out", "aten::addmv_"}, lowerAddmv);

}  // namespace
}  // namespace torchtpu::lower
