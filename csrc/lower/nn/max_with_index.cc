#include "lower/nn/max_with_index.h"

namespace torchtpu::lower {

std::vector<Value> maxWithIndex(Function& r, const std::vector<Value>& a) {
  using D = hlo::ComparisonDirection;
  using B = hlo::BinaryOp;
  const Value &av = a[0], &ai = a[1], &bv = a[2], &bi = a[3];
  Value aNan = r.compare(av, av, D::kNe);
  Value bNan = r.compare(bv, bv, D::kNe);
  // (b NaN, a not) or (both NaN, b later) or b greater or (equal, b earlier);
  // the comparisons with a NaN operand are false.
  Value takeB = r.binary(B::kAnd, bNan, r.unary(hlo::UnaryOp::kNot, aNan));
  Value bothNan = r.binary(B::kAnd, aNan, bNan);
  takeB = r.binary(B::kOr, takeB, r.binary(B::kAnd, bothNan, r.compare(bi, ai, D::kGt)));
  takeB = r.binary(B::kOr, takeB, r.compare(bv, av, D::kGt));
  Value equal = r.compare(bv, av, D::kEq);
  takeB = r.binary(B::kOr, takeB, r.binary(B::kAnd, equal, r.compare(bi, ai, D::kLt)));
  return {r.select(takeB, bv, av), r.select(takeB, bi, ai)};
}

}  // namespace torchtpu::lower
