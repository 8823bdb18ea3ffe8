// Triangular solves: linalg_solve_triangular (left / right, upper / lower,
// unitriangular, broadcast batches) and the older triangular_solve, on
// stablehlo.triangular_solve.
#include "lower/linalg/util.h"

namespace torchtpu::lower {
namespace {

using namespace linalg;  // NOLINT(google-build-using-namespace)

Value floatInput(LowerCtx& c, std::string_view name) {
  Value x = c.tensor(name);
  if (!runtime::isFloating(x.dtype()) || runtime::isComplex(x.dtype())) {
    c.fail("triangular solve of " + std::string(runtime::elementTypeName(x.dtype())) +
           " is not lowered");
  }
  return castTo(c.fn, x, accType(x.dtype()));
}

std::vector<Value> lowerSolveTriangular(LowerCtx& c) {
  Value a = floatInput(c, "self");
  Value b = floatInput(c, "B");
  return {triSolve(c.fn, a, b, c.b("left"), !c.b("upper"), c.b("unitriangular"))};
}

std::vector<Value> lowerTriangularSolve(LowerCtx& c) {
  Value b = floatInput(c, "self");
  Value a = floatInput(c, "A");
  Value x = triSolve(c.fn, a, b, true, !c.b("upper"), c.b("unitriangular"), c.b("transpose"));
  return {x, broadcastTo(c.fn, a, c.result(1).dims)};
}

const Registrar kSolveTriangular({"aten::linalg_solve_triangular",
                                  "aten::linalg_solve_triangular.out"},
                                 lowerSolveTriangular);
const Registrar kTriangularSolve({"aten::triangular_solve", "aten::triangular_solve.X"},
                                 lowerTriangularSolve);

}  // namespace
}  // namespace torchtpu::lower
