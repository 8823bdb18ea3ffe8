#include "lower/indexing/index_util.h"

#include "hlo/comparison.h"
#include "lower/core/common.h"

namespace torchtpu::lower::indexing {

using Dir = hlo::ComparisonDirection;
using hlo::BinaryOp;

Value wrapIndex(Function& fn, Value idx, int64_t size) {
  idx = castTo(fn, idx, ElementType::kS64);
  Value zero = fn.constantInt(0, ElementType::kS64, idx.dims());
  Value wrapped = fn.add(idx, fn.constantInt(size, ElementType::kS64, idx.dims()));
  return fn.select(fn.compare(idx, zero, Dir::kLt), wrapped, idx);
}

hlo::RegionFn combiner(bool add) {
  return [add](Function& r, const std::vector<Value>& a) {
    if (!add) return std::vector<Value>{a[1]};
    if (a[0].dtype() == ElementType::kPred) {
      return std::vector<Value>{r.binary(BinaryOp::kOr, a[0], a[1])};
    }
    return std::vector<Value>{r.add(a[0], a[1])};
  };
}

}  // namespace torchtpu::lower::indexing
