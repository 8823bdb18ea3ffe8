// aten::multinomial: num_samples category indices per row of (unnormalized)
// probabilities. With replacement: each sample inverts the cumulative
// distribution at a uniform number. Without: the Gumbel-top-k trick (the k
// largest log p + Gumbel noise are a sample without replacement).
#include <cmath>
#include <vector>

#include "lower/common.h"
#include "lower/lowering.h"
#include "lower/random_bits.h"
#include "lower/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::ComparisonDirection;

std::vector<Value> lowerMultinomial(LowerCtx& c) {
  Function& fn = c.fn;
  Value p = c.tensor("self");
  if (p.rank() != 1 && p.rank() != 2) c.fail("prob_dist must be 1 or 2 dim");
  if (!runtime::isFloating(p.dtype())) c.fail("multinomial only supports floating-point dtypes");
  const bool one = p.rank() == 1;
  const ElementType ct = p.dtype() == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32;
  p = castTo(fn, one ? fn.reshape(p, {1, p.dims()[0]}) : p, ct);
  const int64_t rows = p.dims()[0], n = p.dims()[1];
  const int64_t k = c.i("num_samples");
  const bool replacement = c.b("replacement");
  if (k <= 0) c.fail("cannot sample n_sample <= 0 samples");
  if (!replacement && k > n) {
    c.fail("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  if (n == 0 || rows == 0) c.fail("empty distributions");
  Value idx;
  if (replacement) {
    // cdf[r, j] = sum_{i <= j} p[r, i], through an upper-triangular ones matrix.
    Value i = fn.iota(TensorType(ElementType::kS64, {n, n}), 0);
    Value j = fn.iota(TensorType(ElementType::kS64, {n, n}), 1);
    Value tri = castTo(fn, fn.compare(i, j, ComparisonDirection::kLe), ct);
    hlo::DotDims d;
    d.lhsContracting = {1};
    d.rhsContracting = {0};
    Value cdf = fn.dotGeneral(p, tri, d, std::nullopt, hlo::Precision::kHighest);  // [rows, n]
    Value total = fn.slice(cdf, {0, n - 1}, {rows, n});                            // [rows, 1]
    Value u = fn.multiply(uniform01(c, ct, {rows, k}),
                          fn.broadcastInDim(fn.reshape(total, {rows}), {rows, k}, {0}));
    // The sample is the number of categories whose cumulative mass is <= u.
    const std::vector<int64_t> rkn = {rows, k, n};
    Value le = fn.compare(fn.broadcastInDim(cdf, rkn, {0, 2}), fn.broadcastInDim(u, rkn, {0, 1}),
                          ComparisonDirection::kLe);
    idx = reduceSum(fn, castTo(fn, le, ElementType::kS64), {2});
    idx = fn.minimum(idx, fn.constantInt(n - 1, ElementType::kS64, {rows, k}));
  } else {
    Value u = uniform01(c, ct, {rows, n});
    // Gumbel noise -log(-log(u)), with u kept away from 0.
    Value tiny = fn.constant(1e-20, ct, {rows, n});
    Value g = fn.negate(fn.log(fn.negate(fn.log(fn.maximum(u, tiny)))));
    Value keys = fn.add(fn.log(p), g);
    Value pos = fn.iota(TensorType(ElementType::kS64, {rows, n}), 1);
    auto greater = [](Function& r, const std::vector<Value>& a) {
      return std::vector<Value>{r.compare(a[0], a[1], ComparisonDirection::kGt)};
    };
    std::vector<Value> sorted = fn.sort({keys, pos}, 1, true, greater);
    idx = fn.slice(sorted[1], {0, 0}, {rows, k});
  }
  return {one ? fn.reshape(idx, {k}) : idx};
}

const Registrar kMultinomial({"aten::multinomial", "aten::multinomial.out"}, lowerMultinomial);

}  // namespace
}  // namespace torchtpu::lower
