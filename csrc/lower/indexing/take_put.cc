// take and put_: a gather from / scatter into the flattened tensor.
// Negative indices wrap; out-of-range ones are clamped by the device, and
// raise in launch_blocking mode (device-side checks).
#include <string>

#include "lower/core/common.h"
#include "lower/core/device_checks.h"
#include "lower/indexing/index_util.h"

namespace torchtpu::lower {
namespace {

using Dir = hlo::ComparisonDirection;
using Error = DeviceCheck::Error;
using hlo::BinaryOp;
using indexing::combiner;
using indexing::wrapIndex;

// take / put_'s check: flat indices in [-total, total).
void checkFlat(LowerCtx& c, const Value& index, int64_t total) {
  checkIndexRange(c, index, -total, total, Error::kIndex,
                  "out of range: tried to access index {} on a tensor of " + std::to_string(total) +
                      " elements.");
}

std::vector<Value> lowerTake(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const int64_t total = self.t().numElements();
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  if (n == 0) return {fn.constant(0, self.dtype(), index.dims())};
  if (total == 0) c.fail("take from an empty tensor");
  checkFlat(c, index, total);
  Value flat = fn.reshape(self, {total});
  Value idx = fn.reshape(wrapIndex(fn, index, total), {n, 1});
  hlo::GatherDims g;
  g.collapsedSliceDims = {0};
  g.startIndexMap = {0};
  g.indexVectorDim = 1;
  return {fn.reshape(fn.gather(flat, idx, g, {1}), index.dims())};
}
const Registrar kTake({"aten::take", "aten::take.out"}, lowerTake);

std::vector<Value> lowerPut(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const int64_t total = self.t().numElements();
  Value index = c.tensor("index");
  const int64_t n = index.t().numElements();
  if (n == 0) return {self};
  Value source = castTo(fn, c.tensor("source"), self.dtype());
  if (source.t().numElements() != n) c.fail("put_: source and index need the same size");
  checkFlat(c, index, total);
  Value flat = fn.reshape(self, {total});
  Value idx = fn.reshape(wrapIndex(fn, index, total), {n, 1});
  hlo::ScatterDims s;
  s.insertedWindowDims = {0};
  s.scatterDimsToOperandDims = {0};
  s.indexVectorDim = 1;
  Value out = fn.scatter({flat}, idx, {fn.reshape(source, {n})}, s, combiner(c.b("accumulate")))[0];
  return {fn.reshape(out, self.dims())};
}
const Registrar kPut({"aten::put_", "aten::put", "aten::put.out"}, lowerPut);

}  // namespace
}  // namespace torchtpu::lower
