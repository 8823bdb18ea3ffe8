// Complex-only elementwise ops: conj_physical (the materialized conjugate;
// x.conj() itself is a lazy view the bridge resolves when an op reads it).
#include "lower/common.h"

namespace torchtpu::lower {
namespace {

// conj_physical: (re, -im) for complex values, the values themselves otherwise.
std::vector<Value> lowerConjPhysical(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isComplex(x.dtype())) return {x};
  Value re = fn.unary(hlo::UnaryOp::kReal, x);
  Value im = fn.unary(hlo::UnaryOp::kImag, x);
  return {fn.binary(hlo::BinaryOp::kComplex, re, fn.negate(im))};
}
const Registrar kConjPhysical({"aten::conj_physical", "aten::conj_physical.out",
                               "aten::conj_physical_"},
                              lowerConjPhysical);

}  // namespace
}  // namespace torchtpu::lower
