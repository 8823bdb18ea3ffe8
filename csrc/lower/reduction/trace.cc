// trace: the sum of a matrix's diagonal, in the result type.
#include "hlo/comparison.h"
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using Dir = hlo::ComparisonDirection;
using hlo::BinaryOp;

const Registrar kTrace({"aten::trace", "aten::trace.out"}, [](LowerCtx& c) -> std::vector<Value> {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (x.rank() != 2) c.fail("trace expects a matrix");
  const ElementType t = c.result().dtype;
  x = castTo(fn, x, t);
  TensorType it(ElementType::kS64, x.dims());
  Value diag = fn.compare(fn.iota(it, 0), fn.iota(it, 1), Dir::kEq);
  Value z = fn.select(diag, x, fn.constant(0, t, x.dims()));
  return {fn.reduce(z, fn.constant(0, t), {0, 1},
                    t == ElementType::kPred ? BinaryOp::kOr : BinaryOp::kAdd)};
});

}  // namespace
}  // namespace torchtpu::lower
