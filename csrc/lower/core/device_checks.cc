#include "lower/core/device_checks.h"

#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using Dir = hlo::ComparisonDirection;

Value anyOf(Function& fn, Value pred) {
  return fn.reduce(pred, fn.constantInt(0, ElementType::kPred), allDims(pred.rank()),
                   BinaryOp::kOr);
}

}  // namespace

void checkIndexRange(LowerCtx& c, Value index, int64_t lo, int64_t hi, DeviceCheck::Error error,
                     std::string message, std::optional<int64_t> also) {
  const int64_t n = index.t().numElements();
  if (n == 0) return;
  c.check([index, lo, hi, error, message = std::move(message), n, also](Function& fn) {
    const ElementType s64 = ElementType::kS64;
    Value flat = fn.reshape(castTo(fn, index, s64), {n});
    Value bad = fn.binary(BinaryOp::kOr, fn.compare(flat, fn.constantInt(lo, s64, {n}), Dir::kLt),
                          fn.compare(flat, fn.constantInt(hi, s64, {n}), Dir::kGe));
    if (also) {
      bad = fn.binary(BinaryOp::kAnd, bad,
                      fn.compare(flat, fn.constantInt(*also, s64, {n}), Dir::kNe));
    }
    // The first offending index: its position, then its value.
    Value pos = fn.iota(TensorType(s64, {n}), 0);
    Value first = fn.reduce(fn.select(bad, pos, fn.constantInt(n, s64, {n})),
                            fn.constantInt(n, s64), {0}, BinaryOp::kMinimum);
    Value at = fn.compare(pos, fn.broadcastInDim(first, {n}, {}), Dir::kEq);
    Value value = fn.reduce(fn.select(at, flat, fn.constantInt(0, s64, {n})),
                            fn.constantInt(0, s64), {0}, BinaryOp::kAdd);
    return DeviceCheck{error, message, anyOf(fn, bad), {value}};
  });
}

std::string outOfBoundsMessage(int64_t dim, int64_t size, const std::string& prefix) {
  return prefix + "index {} is out of bounds for dimension " + std::to_string(dim) + " with size " +
         std::to_string(size);
}

void checkNone(LowerCtx& c, std::function<Value(Function&)> bad, DeviceCheck::Error error,
               std::string message) {
  c.check([bad = std::move(bad), error, message = std::move(message)](Function& fn) {
    return DeviceCheck{error, message, anyOf(fn, bad(fn)), {}};
  });
}

}  // namespace torchtpu::lower
