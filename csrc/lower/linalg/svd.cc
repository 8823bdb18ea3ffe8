// Singular value decomposition: _linalg_svd, behind torch.svd, linalg.svd,
// svdvals, pinv, matrix_rank, matrix_norm / norm ("nuc", 2, -2), cond and the
// low-rank SVDs. Computed through the symmetric eigendecomposition of the
// Jordan-Wielandt matrix (decomp::svd). Singular vectors are unique up to sign.
#include "lower/linalg/decomp.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerLinalgSvd(LowerCtx& c) {
  Value a = c.tensor("A");
  decomp::checkRealFloat(a.dtype(), "linalg_svd");
  if (a.rank() < 2) c.fail("A must have at least 2 dimensions");
  const bool computeUv = c.b("compute_uv");
  const decomp::Svd f = decomp::svd(c.fn, a, computeUv && c.b("full_matrices"), computeUv);
  if (!computeUv) {
    return {decomp::zeros(c.fn, c.result(0)), f.s, decomp::zeros(c.fn, c.result(2))};
  }
  return {f.u, f.s, f.vh};
}

const Registrar kLinalgSvd({"aten::_linalg_svd", "aten::_linalg_svd.U"}, lowerLinalgSvd);

}  // namespace
}  // namespace torchtpu::lower
