// embedding_renorm_ (nn.functional.embedding / embedding_bag with max_norm):
// the weight rows named by `indices` whose p-norm exceeds max_norm are scaled
// by max_norm / (norm + 1e-7), in place (the bridge writes the result back).
// The norm is rounded to the weight's type before the comparison, as
// PyTorch's CPU kernel reads it from a tensor of that type.
#include <cmath>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;

std::vector<Value> embeddingRenorm(LowerCtx& c) {
  Function& fn = c.fn;
  Value w = c.tensor("self");
  if (w.rank() != 2 || !runtime::isFloating(w.dtype())) c.fail("expected a 2-d floating weight");
  Value idx = castTo(fn, c.tensor("indices"), ElementType::kS64);
  const double maxNorm = c.d("max_norm"), p = c.d("norm_type");
  const int64_t n = w.dims()[0];
  int64_t m = 1;
  for (int64_t d : idx.dims()) m *= d;
  idx = fn.reshape(idx, {m});
  const ElementType t = w.dtype() == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32;
  Value x = castTo(fn, w, t);
  const std::vector<int64_t>& dims = x.dims();
  Value zero = fn.constant(0, t);
  Value a = fn.abs(x);
  Value norm;
  if (std::isinf(p)) {
    norm = fn.reduce(a, zero, {1}, p > 0 ? B::kMaximum : B::kMinimum);
  } else if (p == 2) {
    norm = fn.sqrt(fn.reduce(fn.multiply(x, x), zero, {1}, B::kAdd));
  } else if (p == 1) {
    norm = fn.reduce(a, zero, {1}, B::kAdd);
  } else if (p == 0) {
    Value nz = fn.select(fn.compare(x, fn.constant(0, t, dims), D::kNe), fn.constant(1, t, dims),
                         fn.constant(0, t, dims));
    norm = fn.reduce(nz, zero, {1}, B::kAdd);
  } else {
    Value s = fn.reduce(fn.binary(B::kPower, a, fn.constant(p, t, dims)), zero, {1}, B::kAdd);
    norm = fn.binary(B::kPower, s, fn.constant(1.0 / p, t, {n}));
  }
  norm = castTo(fn, castTo(fn, norm, w.dtype()), t);
  const std::vector<int64_t> nm = {n, m};
  Value named = fn.compare(fn.iota(TensorType(ElementType::kS64, nm), 0),
                           fn.broadcastInDim(idx, nm, {1}), D::kEq);
  Value anyNamed = fn.reduce(fn.convert(named, ElementType::kS32),
                             fn.constantInt(0, ElementType::kS32), {1}, B::kMaximum);
  Value over =
      fn.binary(B::kAnd, fn.compare(anyNamed, fn.constantInt(0, ElementType::kS32, {n}), D::kNe),
                fn.compare(norm, fn.constant(maxNorm, t, {n}), D::kGt));
  Value scale = fn.divide(fn.constant(maxNorm, t, {n}), fn.add(norm, fn.constant(1e-7, t, {n})));
  scale = fn.select(over, scale, fn.constant(1, t, {n}));
  return {fn.multiply(x, fn.broadcastInDim(scale, dims, {0}))};
}

const Registrar kEmbeddingRenorm({"aten::embedding_renorm_", "aten::embedding_renorm",
                                  "aten::embedding_renorm.out"},
                                 embeddingRenorm);

}  // namespace
}  // namespace torchtpu::lower
