// Matrix and vector products: mm, bmm, mv, dot and their beta/alpha forms
// addmm, baddbmm, addbmm, addmv; vdot of real vectors and linalg_cross.
// PyTorch semantics: out = beta * self + alpha * (a @ b), where beta == 0
// ignores self entirely (NaN/inf in self do not propagate). 16-bit float
// products accumulate in f32 and round once at the end, as the CPU kernels
// do; f32 products ask for full precision (TPUs default to bf16 passes
// otherwise).
#include "lower/elementwise/elementwise_math.h"

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

// vdot of real vectors: sum(a * b).
const Registrar kVdot({"aten::vdot", "aten::vdot.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  auto v = ew::prepareArgs(c, {"self", "other"}, ew::Promote::kNone);
  if (runtime::isComplex(v[0].dtype())) c.fail("vdot of complex vectors is not lowered");
  if (v[0].rank() != 1) c.fail("vdot expects 1-D tensors");
  Value p = fn.multiply(v[0], v[1]);
  return {fn.reduce(p, fn.constant(0, p.dtype()), {0}, hlo::BinaryOp::kAdd)};
});

// linalg_cross: the cross product of 3-vectors along dim.
const Registrar kCross({"aten::linalg_cross", "aten::linalg_cross.out"},
                       [](LowerCtx& c) -> std::vector<Value> {
                         Function& fn = c.fn;
                         auto v = ew::prepareArgs(c, {"self", "other"}, ew::Promote::kNone);
                         const int64_t dim = normDim(c.i("dim"), v[0].rank());
                         if (v[0].dims()[dim] != 3) c.fail("linalg_cross needs size 3 along dim");
                         auto part = [&](Value x, int64_t k) {
                           std::vector<int64_t> s(x.rank(), 0), e = x.dims();
                           s[dim] = k;
                           e[dim] = k + 1;
                           return fn.slice(x, s, e);
                         };
                         Value a[3] = {part(v[0], 0), part(v[0], 1), part(v[0], 2)};
                         Value b[3] = {part(v[1], 0), part(v[1], 1), part(v[1], 2)};
                         auto term = [&](int i, int j) {
                           return fn.subtract(fn.multiply(a[i], b[j]), fn.multiply(a[j], b[i]));
                         };
                         return {fn.concatenate({term(1, 2), term(2, 0), term(0, 1)}, dim)};
                       });

}  // namespace
}  // namespace torchtpu::lower
