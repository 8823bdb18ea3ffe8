// linalg_lstsq: the minimum-norm least-squares solution through the SVD,
// x = V diag(1 / sigma) U^T b over the singular values above rcond * sigma_max
// (all of them for gels, which assumes full rank), with the outputs each
// LAPACK driver fills: residuals (tall A, not gelsy), the numerical rank (not
// gels) and the singular values (gelsd, gelss). The default driver is the
// CPU's (gelsy), so results match the CPU's.
#include <algorithm>
#include <limits>

#include "lower/linalg/decomp.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerLinalgLstsq(LowerCtx& c) {
  Function& fn = c.fn;
  Value a = c.tensor("self");
  Value b = c.tensor("b");
  const ElementType t = a.dtype();
  decomp::checkRealFloat(t, "linalg_lstsq");
  if (a.rank() < 2) c.fail("input must have at least 2 dimensions");
  const std::string driver = c.isNone("driver") ? "gelsy" : c.str("driver");
  const bool vector = b.rank() == a.rank() - 1;
  if (vector) {
    std::vector<int64_t> dims = b.dims();
    dims.push_back(1);
    b = fn.reshape(b, dims);
  }
  const int64_t m = a.dims()[a.rank() - 2];
  const int64_t n = a.dims()[a.rank() - 1];
  const int64_t nrhs = b.dims().back();
  const std::vector<int64_t> batch = broadcastShapes({decomp::batchDims(a), decomp::batchDims(b)});
  std::vector<int64_t> aDims = batch, bDims = batch;
  aDims.insert(aDims.end(), {m, n});
  bDims.insert(bDims.end(), {m, nrhs});
  a = broadcastTo(fn, a, aDims);
  b = broadcastTo(fn, castTo(fn, b, t), bDims);
  const int64_t r = a.rank();
  const int64_t k = std::min(m, n);
  std::vector<int64_t> sDims = batch;
  sDims.push_back(k);

  const decomp::Svd f = decomp::svd(fn, a, false);
  // The singular values kept: above rcond * sigma_max (LAPACK: a negative
  // rcond means machine precision; PyTorch's default is eps * max(m, n)).
  const double eps = t == ElementType::kF64 ? std::numeric_limits<double>::epsilon()
                                            : std::numeric_limits<float>::epsilon();
  double rcond = eps * static_cast<double>(std::max(m, n));
  if (std::optional<double> given = c.optDouble("rcond")) rcond = *given < 0 ? eps : *given;
  std::vector<int64_t> batchMap;
  for (int64_t d = 0; d < r - 2; ++d) batchMap.push_back(d);
  Value keep = fn.constantInt(driver == "gels" ? 1 : 0, ElementType::kPred, sDims);
  if (k > 0 && driver != "gels") {
    Value sMax = fn.reduce(f.s, constantLike(fn, 0, t), {r - 2}, hlo::BinaryOp::kMaximum);
    Value cutoff =
        fn.multiply(fn.broadcastInDim(sMax, sDims, batchMap), constantLike(fn, rcond, t, sDims));
    keep = fn.compare(f.s, cutoff, hlo::ComparisonDirection::kGt);
  }
  Value inv =
      fn.select(keep, fn.divide(constantLike(fn, 1, t, sDims), f.s), constantLike(fn, 0, t, sDims));
  // x = V diag(inv) U^T b
  std::vector<int64_t> rowMap = batchMap;
  rowMap.push_back(r - 2);
  Value utb = decomp::matmul(fn, decomp::mT(fn, f.u), b);  // [..., k, nrhs]
  utb = fn.multiply(utb, fn.broadcastInDim(inv, utb.dims(), rowMap));
  Value x = decomp::matmul(fn, decomp::mT(fn, f.vh), utb);  // [..., n, nrhs]

  Value solution = x;
  if (vector) {
    std::vector<int64_t> dims = batch;
    dims.push_back(n);
    solution = fn.reshape(x, dims);
  }
  Value residuals = decomp::zeros(fn, c.result(1));
  if (m > n && driver != "gelsy") {
    Value diff = fn.subtract(decomp::matmul(fn, a, x), b);
    residuals =
        fn.reduce(fn.multiply(diff, diff), constantLike(fn, 0, t), {r - 2}, hlo::BinaryOp::kAdd);
  }
  Value rankOut = decomp::zeros(fn, c.result(2));
  if (driver != "gels") {
    rankOut = fn.reduce(fn.convert(keep, ElementType::kS64), constantLike(fn, 0, ElementType::kS64),
                        {r - 2}, hlo::BinaryOp::kAdd);
  }
  Value sOut = (driver == "gelsd" || driver == "gelss") ? f.s : decomp::zeros(fn, c.result(3));
  return {solution, residuals, rankOut, sOut};
}

const Registrar kLinalgLstsq({"aten::linalg_lstsq", "aten::linalg_lstsq.out"}, lowerLinalgLstsq);

}  // namespace
}  // namespace torchtpu::lower
