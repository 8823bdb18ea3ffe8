// QR through Householder reflections, as LAPACK computes it: geqrf (R above
// the diagonal, reflectors below, their scales tau), linalg_householder_product
// (orgqr), ormqr (multiplication by the implicit Q) and linalg_qr (reduced,
// complete and r modes), so Q and R match the CPU's signs.
#include <algorithm>

#include "lower/linalg/decomp.h"

namespace torchtpu::lower {
namespace {

using decomp::block;

void checkMatrix(const LowerCtx& c, const Value& a, const char* what) {
  decomp::checkRealFloat(a.dtype(), c.op().c_str());
  if (a.rank() < 2) c.fail(std::string(what) + " must have at least 2 dimensions");
}

std::vector<Value> lowerGeqrf(LowerCtx& c) {
  Value a = c.tensor("self");
  checkMatrix(c, a, "input");
  const decomp::Householder h = decomp::geqrf(c.fn, a);
  return {h.a, h.taus};
}

std::vector<Value> lowerHouseholderProduct(LowerCtx& c) {
  Value a = c.tensor("input");
  Value tau = c.tensor("tau");
  checkMatrix(c, a, "input");
  const int64_t r = a.rank();
  if (a.dims()[r - 2] < a.dims()[r - 1] || tau.dims().back() > a.dims()[r - 1]) {
    c.fail("expects input.shape[-2] >= input.shape[-1] >= tau.shape[-1]");
  }
  return {decomp::householderProduct(c.fn, a, castTo(c.fn, tau, a.dtype()))};
}

// ormqr(reflectors, tau, other, left, transpose): op(Q) @ other or other @ op(Q)
// with Q the full square product of the reflectors.
std::vector<Value> lowerOrmqr(LowerCtx& c) {
  Function& fn = c.fn;
  Value a = c.tensor("self");
  Value tau = c.tensor("input2");
  Value other = c.tensor("input3");
  checkMatrix(c, a, "input");
  const bool left = c.b("left");
  const bool transpose = c.b("transpose");
  const int64_t r = other.rank();
  if (a.rank() != r || tau.rank() != r - 1) c.fail("batch dimensions must match");
  const int64_t size = left ? other.dims()[r - 2] : other.dims()[r - 1];
  if (a.dims()[r - 2] != size) c.fail("input and other shapes do not match");
  tau = castTo(fn, tau, a.dtype());
  other = castTo(fn, other, a.dtype());
  Value q = decomp::householderProduct(fn, decomp::resizeMatrix(fn, a, size, size), tau);
  if (transpose) q = decomp::mT(fn, q);
  return {left ? decomp::matmul(fn, q, other) : decomp::matmul(fn, other, q)};
}

std::vector<Value> lowerLinalgQr(LowerCtx& c) {
  Value a = c.tensor("A");
  checkMatrix(c, a, "A");
  const std::string mode = c.str("mode");
  if (mode != "reduced" && mode != "complete" && mode != "r") {
    c.fail("mode must be 'reduced', 'complete' or 'r'");
  }
  if (mode == "r") {
    const int64_t r = a.rank();
    const int64_t k = std::min(a.dims()[r - 2], a.dims()[r - 1]);
    const decomp::Householder h = decomp::geqrf(c.fn, a);
    Value rFactor = decomp::triangle(c.fn, block(c.fn, h.a, 0, k, 0, a.dims()[r - 1]), true);
    return {decomp::zeros(c.fn, c.result(0)), rFactor};
  }
  const decomp::Qr f = decomp::qr(c.fn, a, mode == "complete");
  return {f.q, f.r};
}

const Registrar kGeqrf({"aten::geqrf", "aten::geqrf.a"}, lowerGeqrf);
const Registrar kHouseholderProduct({"aten::linalg_householder_product",
                                     "aten::linalg_householder_product.out"},
                                    lowerHouseholderProduct);
const Registrar kOrmqr({"aten::ormqr", "aten::ormqr.out"}, lowerOrmqr);
const Registrar kLinalgQr({"aten::linalg_qr", "aten::linalg_qr.out"}, lowerLinalgQr);

}  // namespace
}  // namespace torchtpu::lower
