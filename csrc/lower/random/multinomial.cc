// aten::multinomial: num_samples category indices per row of (unnormalized)
// probabilities. With replacement: each sample inverts the cumulative
// distribution at a uniform number by a binary search (memory linear in the
// categories and the samples; the old [samples, categories] comparison and
// [categories, categories] triangle are gone). Without: the Gumbel-top-k trick (the k
// largest log p + Gumbel noise are a sample without replacement).
#include <cmath>
#include <vector>

#include "lower/core/common.h"
#include "lower/core/device_checks.h"
#include "lower/core/lowering.h"
#include "lower/random/random_bits.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::ComparisonDirection;

// For each row r and column s of u [rows, k]: the number of j with
// cdf[r, j] <= u[r, s], for cdf [rows, n] non-decreasing along its rows, by
// binary lifting over the answer (ceil(log2(n + 1)) gathers of [rows, k]).
Value countAtMost(Function& fn, Value cdf, Value u) {
  const int64_t rows = cdf.dims()[0], n = cdf.dims()[1], k = u.dims()[1];
  const std::vector<int64_t> rk = {rows, k};
  const ElementType s64 = ElementType::kS64;
  hlo::GatherDims g;
  g.collapsedSliceDims = {1};
  g.operandBatchingDims = {0};
  g.startIndicesBatchingDims = {0};
  g.startIndexMap = {1};
  g.indexVectorDim = 2;
  int64_t step = 1;
  while (step * 2 <= n) step *= 2;
  Value count = fn.constantInt(0, s64, rk);
  for (; step >= 1; step /= 2) {
    // Take `step` more when they fit and the last of them is still <= u.
    Value cand = fn.add(count, fn.constantInt(step, s64, rk));
    Value fits = fn.compare(cand, fn.constantInt(n, s64, rk), ComparisonDirection::kLe);
    Value at =
        fn.subtract(fn.minimum(cand, fn.constantInt(n, s64, rk)), fn.constantInt(1, s64, rk));
    Value probe = fn.gather(cdf, fn.reshape(at, {rows, k, 1}), g, {1, 1});
    Value take = fn.binary(BinaryOp::kAnd, fits, fn.compare(probe, u, ComparisonDirection::kLe));
    count = fn.select(take, cand, count);
  }
  return count;
}

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
  // PyTorch's checks of the distributions, in its order (launch_blocking).
  checkNone(
      c,
      [p](Function& f) {
        const TensorType& t = p.t();
        Value finite =
            f.compare(f.abs(p), f.constant(INFINITY, t.dtype, t.dims), ComparisonDirection::kLt);
        Value negative = f.compare(p, f.constant(0, t.dtype, t.dims), ComparisonDirection::kLt);
        return f.binary(BinaryOp::kOr, f.unary(hlo::UnaryOp::kNot, finite), negative);
      },
      DeviceCheck::Error::kRuntime,
      "probability tensor contains either `inf`, `nan` or element < 0");
  checkNone(
      c,
      [p](Function& f) {
        Value sums = f.reduce(p, f.constant(0, p.dtype()), {1}, BinaryOp::kAdd);
        return f.compare(sums, f.constant(0, p.dtype(), sums.dims()), ComparisonDirection::kLe);
      },
      DeviceCheck::Error::kRuntime, "invalid multinomial distribution (sum of probabilities <= 0)");
  Value idx;
  if (replacement) {
    // cdf[r, j] = p[r, 0] + ... + p[r, j] (a reduce_window scan).
    auto addBody = [](Function& r, const std::vector<Value>& v) {
      return std::vector<Value>{r.add(v[0], v[1])};
    };
    auto maxBody = [](Function& r, const std::vector<Value>& v) {
      return std::vector<Value>{r.maximum(v[0], v[1])};
    };
    const std::vector<int64_t> window = {1, n};
    const std::vector<hlo::PadPair> pad = {{0, 0}, {n - 1, 0}};
    const std::vector<int64_t> rn = {rows, n};
    Value cdf = fn.reduceWindow({p}, {fn.constant(0, ct)}, window, {}, {}, {}, pad, addBody)[0];
    Value total = fn.slice(cdf, {0, n - 1}, {rows, n});  // [rows, 1]
    // XLA may add a long scan in blocks, so a category of probability 0 need
    // not leave the sums exactly flat: the searched sums are the running
    // maximum of those at positive categories (-inf before the first), exact,
    // rising, and flat at every category of probability 0.
    Value positive = fn.compare(p, fn.constant(0, ct, rn), ComparisonDirection::kGt);
    Value rising = fn.select(positive, cdf, fn.constant(-INFINITY, ct, rn));
    rising = fn.reduceWindow({rising}, {fn.constant(-INFINITY, ct)}, window, {}, {}, {}, pad,
                             maxBody)[0];
    // One draw for all the probes (not recomputed inside each).
    Value u = fn.multiply(uniform01(c, ct, {rows, k}),
                          fn.broadcastInDim(fn.reshape(total, {rows}), {rows, k}, {0}));
    u = fn.optimizationBarrier({u})[0];
    // The sample is the number of categories whose cumulative mass is <= u,
    // at most the last category of positive probability (n - 1 if none).
    Value pos = fn.iota(TensorType(ElementType::kS64, rn), 1);
    Value lastPositive =
        fn.reduce(fn.select(positive, pos, fn.constantInt(-1, ElementType::kS64, rn)),
                  fn.constantInt(-1, ElementType::kS64), {1}, BinaryOp::kMaximum);
    lastPositive = fn.select(fn.compare(lastPositive, fn.constantInt(0, ElementType::kS64, {rows}),
                                        ComparisonDirection::kLt),
                             fn.constantInt(n - 1, ElementType::kS64, {rows}), lastPositive);
    idx = fn.minimum(countAtMost(fn, rising, u), fn.broadcastInDim(lastPositive, {rows, k}, {0}));
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
