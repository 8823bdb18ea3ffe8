// searchsorted (Tensor and Scalar values): the insertion index of each value
// in the last dim of a sorted sequence, computed as a count rather than a
// binary search. The left index counts the elements for which !(s >= v), the
// right index those for which !(s > v): both predicates are monotone along a
// sorted sequence, so the count is the binary search's answer (a NaN value
// goes last), and it does not depend on the order, so a `sorter` changes
// nothing. (A NaN inside the sequence breaks monotonicity; PyTorch's answer
// then depends on its search path, which the count does not follow.)
#include "lower/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;

std::vector<Value> searchsorted(LowerCtx& c) {
  Function& fn = c.fn;
  Value seq = c.tensor("sorted_sequence");
  const bool scalar = c.op().find(".Scalar") != std::string::npos;
  Value v = scalar ? c.scalar("self") : c.tensor("self");
  bool right = c.b("right");
  if (c.has("side") && !c.isNone("side")) right = right || c.str("side") == "right";
  if (seq.rank() < 1) c.fail("sorted_sequence must have at least one dim");
  const ElementType t = promoteTypes(seq.dtype(), v.dtype());
  if (runtime::isComplex(t)) c.fail("searchsorted of complex values");
  seq = castTo(fn, seq, t);
  v = castTo(fn, v, t);
  const int64_t k = seq.dims().back();
  const int64_t r = v.rank();
  std::vector<int64_t> full = v.dims();
  full.push_back(k);
  std::vector<int64_t> vAt, sAt;
  for (int64_t d = 0; d < r; ++d) vAt.push_back(d);
  if (seq.rank() == 1) {
    sAt = {r};
  } else {
    if (seq.rank() != r) c.fail("sorted_sequence and input must have the same number of dims");
    for (int64_t d = 0; d + 1 < r; ++d) {
      if (seq.dims()[d] != v.dims()[d]) c.fail("sorted_sequence and input leading dims differ");
      sAt.push_back(d);
    }
    sAt.push_back(r);
  }
  Value sb = fn.broadcastInDim(seq, full, sAt);
  Value vb = fn.broadcastInDim(v, full, vAt);
  Value before = fn.unary(hlo::UnaryOp::kNot, fn.compare(sb, vb, right ? D::kGt : D::kGe));
  Value ones = fn.select(before, fn.constantInt(1, ElementType::kS64, full),
                         fn.constantInt(0, ElementType::kS64, full));
  return {fn.reduce(ones, fn.constantInt(0, ElementType::kS64), {r}, hlo::BinaryOp::kAdd)};
}

const Registrar kSearchsorted({"aten::searchsorted.Tensor", "aten::searchsorted.Tensor_out",
                               "aten::searchsorted.Scalar", "aten::searchsorted.Scalar_out"},
                              searchsorted);

}  // namespace
}  // namespace torchtpu::lower
