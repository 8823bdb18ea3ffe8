// Pairwise p-norm distances: _cdist_forward / _cdist_backward (torch.cdist on
// its direct path; the matrix-product path for p = 2 on large inputs is
// composite) and _pdist_forward / _pdist_backward (the upper triangle of the
// distances between the rows of one matrix, row-major). Distances are computed
// from the broadcast differences; the backward ops use PyTorch's per-element
// gradient of each p-norm case (0, 1, (0, 2), 2, (2, inf), inf).
#include <cmath>
#include <limits>

#include "lower/core/common.h"
#include "lower/indexing/take_along.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;
using U = hlo::UnaryOp;

double checkedP(const LowerCtx& c) {
  const double p = c.d("p");
  if (std::isnan(p) || p < 0) c.fail("p must be a non-negative number");
  return p;
}

// The p-norm of diff over its last dim.
Value pnorm(Function& fn, Value diff, double p) {
  const ElementType t = diff.dtype();
  const std::vector<int64_t>& dims = diff.dims();
  const int64_t last = diff.rank() - 1;
  Value zero = fn.constant(0, t);
  if (p == 0) {
    Value nz = fn.select(fn.compare(diff, fn.constant(0, t, dims), D::kNe), fn.constant(1, t, dims),
                         fn.constant(0, t, dims));
    return fn.reduce(nz, zero, {last}, B::kAdd);
  }
  Value a = fn.abs(diff);
  if (std::isinf(p)) return fn.reduce(a, zero, {last}, B::kMaximum);
  if (p == 1) return fn.reduce(a, zero, {last}, B::kAdd);
  if (p == 2) return fn.sqrt(fn.reduce(fn.multiply(diff, diff), zero, {last}, B::kAdd));
  Value s = fn.reduce(fn.binary(B::kPower, a, fn.constant(p, t, dims)), zero, {last}, B::kAdd);
  return fn.binary(B::kPower, s, fn.constant(1.0 / p, t, s.dims()));
}

// d dist / d x1 times grad, per element of diff = x1 - x2 (dist and grad
// broadcast to diff's shape).
Value distGrad(Function& fn, Value diff, Value dist, Value grad, double p) {
  const ElementType t = diff.dtype();
  const std::vector<int64_t>& dims = diff.dims();
  Value zeros = fn.constant(0, t, dims);
  if (p == 0) return zeros;
  Value sign = fn.unary(U::kSign, diff);
  Value a = fn.abs(diff);
  if (p == 1) return fn.multiply(grad, sign);
  if (std::isinf(p)) {
    Value hit = fn.compare(a, dist, D::kEq);
    return fn.select(hit, fn.multiply(grad, sign), zeros);
  }
  Value distZero = fn.compare(dist, zeros, D::kEq);
  if (p == 2) return fn.select(distZero, zeros, fn.divide(fn.multiply(grad, diff), dist));
  Value denom = fn.binary(B::kPower, dist, fn.constant(p - 1, t, dims));
  if (p < 2) {
    Value r = fn.divide(
        fn.multiply(fn.multiply(sign, fn.binary(B::kPower, a, fn.constant(p - 1, t, dims))), grad),
        denom);
    Value zero = distZero;
    if (p < 1) zero = fn.binary(B::kOr, zero, fn.compare(diff, zeros, D::kEq));
    return fn.select(zero, zeros, r);
  }
  Value r = fn.divide(
      fn.multiply(fn.multiply(diff, fn.binary(B::kPower, a, fn.constant(p - 2, t, dims))), grad),
      denom);
  return fn.select(distZero, zeros, r);
}

// Sums x down to `dims` (leading dims dropped, size-1 dims kept), as autograd
// reduces a broadcast gradient.
Value sumTo(Function& fn, Value x, const std::vector<int64_t>& dims) {
  if (x.dims() == dims) return x;
  const int64_t extra = x.rank() - static_cast<int64_t>(dims.size());
  std::vector<int64_t> red;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d < extra || (dims[d - extra] == 1 && x.dims()[d] != 1)) red.push_back(d);
  }
  Value s = fn.reduce(x, fn.constant(0, x.dtype()), red, B::kAdd);
  return fn.reshape(s, dims);
}

// x1 [B..., P, M] and x2 [B..., R, M] broadcast to [B..., P, R, M] and
// subtracted.
Value pairDiff(LowerCtx& c, Value x1, Value x2, const std::vector<int64_t>& batch) {
  Function& fn = c.fn;
  if (x1.rank() < 2 || x2.rank() < 2) c.fail("cdist needs inputs of at least 2 dims");
  const int64_t p = x1.dims()[x1.rank() - 2], r = x2.dims()[x2.rank() - 2];
  const int64_t m = x1.dims().back();
  if (x2.dims().back() != m) c.fail("cdist inputs must have the same number of columns");
  const ElementType t = accType(promoteTypes(x1.dtype(), x2.dtype()));
  std::vector<int64_t> d1 = batch, d2 = batch, full = batch;
  d1.insert(d1.end(), {p, m});
  d2.insert(d2.end(), {r, m});
  full.insert(full.end(), {p, r, m});
  x1 = fit(fn, x1, t, d1);
  x2 = fit(fn, x2, t, d2);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> a1, a2;
  for (int64_t d = 0; d < nb; ++d) {
    a1.push_back(d);
    a2.push_back(d);
  }
  a1.insert(a1.end(), {nb, nb + 2});
  a2.insert(a2.end(), {nb + 1, nb + 2});
  return fn.subtract(fn.broadcastInDim(x1, full, a1), fn.broadcastInDim(x2, full, a2));
}

std::vector<Value> cdistForward(LowerCtx& c) {
  const std::vector<int64_t>& out = c.result().dims;
  if (out.size() < 2) c.fail("unexpected cdist result");
  const std::vector<int64_t> batch(out.begin(), out.end() - 2);
  Value diff = pairDiff(c, c.tensor("x1"), c.tensor("x2"), batch);
  return {pnorm(c.fn, diff, checkedP(c))};
}

std::vector<Value> cdistBackward(LowerCtx& c) {
  Function& fn = c.fn;
  const double p = checkedP(c);
  Value dist = c.tensor("cdist");
  const std::vector<int64_t> batch(dist.dims().begin(), dist.dims().end() - 2);
  Value diff = pairDiff(c, c.tensor("x1"), c.tensor("x2"), batch);
  const ElementType t = diff.dtype();
  const std::vector<int64_t>& full = diff.dims();
  std::vector<int64_t> at;
  for (int64_t d = 0; d + 1 < diff.rank(); ++d) at.push_back(d);
  Value distB = fn.broadcastInDim(castTo(fn, dist, t), full, at);
  Value gradB = fn.broadcastInDim(castTo(fn, c.tensor("grad"), t), full, at);
  Value g = distGrad(fn, diff, distB, gradB, p);
  // Sum over the x2 rows: [B..., P, R, M] -> [B..., P, M].
  g = fn.reduce(g, fn.constant(0, t), {diff.rank() - 2}, B::kAdd);
  return {sumTo(fn, g, c.result().dims)};
}

// pdist's operands: self [n, m] in the computation type t, p, the row pairs
// (i < j) in pdist's order and, when there is a pair, x[i] - x[j] of each.
struct RowPairs {
  Value x, diff;
  double p = 0;
  ElementType t = ElementType::kF32;
  std::vector<int64_t> is, js;
};

RowPairs rowPairs(LowerCtx& c) {
  Function& fn = c.fn;
  RowPairs r;
  r.x = c.tensor("self");
  if (r.x.rank() != 2) c.fail("pdist needs a 2-d input");
  r.p = checkedP(c);
  r.t = accType(r.x.dtype());
  r.x = castTo(fn, r.x, r.t);
  const int64_t n = r.x.dims()[0];
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      r.is.push_back(i);
      r.js.push_back(j);
    }
  }
  if (!r.is.empty()) r.diff = fn.subtract(takeAlong(fn, r.x, 0, r.is), takeAlong(fn, r.x, 0, r.js));
  return r;
}

std::vector<Value> pdistForward(LowerCtx& c) {
  const RowPairs r = rowPairs(c);
  if (r.is.empty()) return {c.fn.constant(0, r.t, {0})};
  return {pnorm(c.fn, r.diff, r.p)};
}

std::vector<Value> pdistBackward(LowerCtx& c) {
  Function& fn = c.fn;
  const RowPairs r = rowPairs(c);
  const ElementType t = r.t;
  if (r.is.empty()) return {fn.constant(0, t, r.x.dims())};
  const int64_t n = r.x.dims()[0];
  const std::vector<int64_t>& full = r.diff.dims();
  Value distB = fn.broadcastInDim(castTo(fn, c.tensor("pdist"), t), full, {0});
  Value gradB = fn.broadcastInDim(castTo(fn, c.tensor("grad"), t), full, {0});
  Value g = distGrad(fn, r.diff, distB, gradB, r.p);
  return {fn.subtract(addAlong(fn, g, 0, r.is, n), addAlong(fn, g, 0, r.js, n))};
}

const Registrar kCdist({"aten::_cdist_forward", "aten::_cdist_forward.out"}, cdistForward);
const Registrar kCdistBackward({"aten::_cdist_backward", "aten::_cdist_backward.out"},
                               cdistBackward);
const Registrar kPdist({"aten::_pdist_forward", "aten::_pdist_forward.out"}, pdistForward);
const Registrar kPdistBackward({"aten::_pdist_backward", "aten::_pdist_backward.out"},
                               pdistBackward);

}  // namespace
}  // namespace torchtpu::lower
