// Symmetric (Hermitian) eigendecomposition: _linalg_eigh, behind
// torch.linalg.eigh / eigvalsh (and matrix_rank / pinv with hermitian=True).
// Eigenvalues ascending as LAPACK's syevd returns them; each eigenvector is
// unique up to its sign.
#include "lower/linalg/decomp.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerLinalgEigh(LowerCtx& c) {
  Value a = c.tensor("A");
  decomp::checkRealFloat(a.dtype(), "linalg_eigh");
  if (a.rank() < 2 || a.dims()[a.rank() - 1] != a.dims()[a.rank() - 2]) {
    c.fail("expects a batch of square matrices");
  }
  const std::string uplo = c.str("UPLO");
  if (uplo != "L" && uplo != "U") c.fail("UPLO must be 'L' or 'U'");
  const decomp::Eigh e = decomp::eigh(c.fn, a, uplo == "L");
  Value vectors = c.b("compute_v") ? e.vectors : decomp::zeros(c.fn, c.result(1));
  return {e.values, vectors};
}

const Registrar kLinalgEigh({"aten::_linalg_eigh", "aten::_linalg_eigh.eigenvalues"},
                            lowerLinalgEigh);

}  // namespace
}  // namespace torchtpu::lower
