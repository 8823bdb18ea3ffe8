// renorm: each slice along dim whose p-norm exceeds maxnorm is scaled down to
// maxnorm.
#include <cmath>

#include "hlo/comparison.h"
#include "lower/elementwise/elementwise_math.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using Dir = hlo::ComparisonDirection;

// Each slice along dim whose p-norm exceeds maxnorm is scaled to maxnorm
// (p and maxnorm are run-time scalars; p = inf takes the largest magnitude).
std::vector<Value> lowerRenorm(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = ew::prepare(fn, {ew::operand(c, "self")}).values[0];
  if (!ew::isFloat(x.dtype())) c.fail("renorm expects a floating-point tensor");
  const int64_t dim = normDim(c.i("dim"), x.rank());
  std::vector<int64_t> others;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != dim) others.push_back(d);
  }
  Value a = fn.abs(x);
  Value pa = ew::like(fn, c.scalar("p"), a);
  Value sum = fn.reduce(ew::pow(fn, a, pa), fn.constant(0, x.dtype()), others, BinaryOp::kAdd);
  Value p = ew::like(fn, c.scalar("p"), sum);
  Value norm = ew::pow(fn, sum, fn.divide(ew::splat(fn, 1, p), p));
  Value maxAbs = fn.reduce(a, fn.constant(0, x.dtype()), others, BinaryOp::kMaximum);
  Value isInf = fn.compare(p, ew::splat(fn, INFINITY, p), Dir::kEq);
  norm = fn.select(isInf, maxAbs, norm);
  Value maxnorm = ew::like(fn, c.scalar("maxnorm"), norm);
  Value big = fn.compare(norm, maxnorm, Dir::kGt);
  Value factor = fn.select(big, fn.divide(maxnorm, fn.add(norm, ew::splat(fn, 1e-7, norm))),
                           ew::splat(fn, 1, norm));
  return {fn.multiply(x, fn.broadcastInDim(factor, x.dims(), {dim}))};
}
const Registrar kRenorm({"aten::renorm", "aten::renorm.out", "aten::renorm_"}, lowerRenorm);

}  // namespace
}  // namespace torchtpu::lower
