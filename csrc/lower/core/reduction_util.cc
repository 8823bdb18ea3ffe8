#include "lower/core/reduction_util.h"

#include <algorithm>
#include <limits>

namespace torchtpu::lower {

using hlo::BinaryOp;
using hlo::ComparisonDirection;

std::vector<int64_t> allDims(int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t k = 0; k < rank; ++k) out.push_back(k);
  return out;
}

std::vector<int64_t> otherDims(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t k = 0; k < rank; ++k) {
    if (std::find(dims.begin(), dims.end(), k) == dims.end()) out.push_back(k);
  }
  return out;
}

int64_t countOf(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[d];
  return n;
}

std::vector<int64_t> reductionDims(LowerCtx& c, const char* name, int64_t rank,
                                   bool emptyMeansAll) {
  if (!c.has(name) || c.isNone(name)) return allDims(rank);
  std::vector<int64_t> dims = normDims(c.ints(name), rank, emptyMeansAll);
  // A rank-0 tensor accepts dim 0 / -1, which reduces nothing.
  if (rank == 0) dims.clear();
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end()) {
    c.fail("a dimension appears more than once in the reduction dims");
  }
  return dims;
}

Value splatLike(Function& fn, double v, const Value& x) {
  return constantLike(fn, v, x.dtype(), x.dims());
}

Value isNan(Function& fn, Value x) {
  if (!runtime::isFloating(x.dtype()) && !runtime::isComplex(x.dtype())) {
    return fn.constantInt(0, ElementType::kPred, x.dims());
  }
  return fn.compare(x, x, ComparisonDirection::kNe);
}

namespace {

template <class T>
Value intLimit(Function& fn, ElementType t, bool high) {
  const T v = high ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  return fn.constantInt(static_cast<int64_t>(v), t);
}

Value limit(Function& fn, ElementType t, bool high) {
  switch (t) {
    case ElementType::kPred:
      return fn.constantInt(high ? 1 : 0, t);
    case ElementType::kS8:
      return intLimit<int8_t>(fn, t, high);
    case ElementType::kS16:
      return intLimit<int16_t>(fn, t, high);
    case ElementType::kS32:
      return intLimit<int32_t>(fn, t, high);
    case ElementType::kS64:
      return intLimit<int64_t>(fn, t, high);
    case ElementType::kU8:
      return intLimit<uint8_t>(fn, t, high);
    case ElementType::kU16:
      return intLimit<uint16_t>(fn, t, high);
    case ElementType::kU32:
      return intLimit<uint32_t>(fn, t, high);
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
      return fn.constant(
          high ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity(),
          t);
    default:
      throw LoweringError(std::string("no ordering limits for element type ") +
                          std::string(runtime::elementTypeName(t)));
  }
}

// The NaN-propagating max/min of two scalars (or same-shape values).
Value pickExtreme(Function& fn, Value a, Value b, bool isMax) {
  const ElementType t = a.dtype();
  if (!runtime::isFloating(t)) return isMax ? fn.maximum(a, b) : fn.minimum(a, b);
  const Value better =
      fn.compare(a, b, isMax ? ComparisonDirection::kGt : ComparisonDirection::kLt);
  const Value pickA = fn.binary(BinaryOp::kOr, better, fn.compare(a, a, ComparisonDirection::kNe));
  return fn.select(pickA, a, b);
}

Value reduceExtreme(Function& fn, Value x, const std::vector<int64_t>& dims, bool isMax) {
  if (runtime::isComplex(x.dtype())) throw LoweringError("max/min of complex values");
  const Value init = isMax ? lowest(fn, x.dtype()) : highest(fn, x.dtype());
  return fn.reduce({x}, {init}, dims,
                   [isMax](Function& r, const std::vector<Value>& a) -> std::vector<Value> {
                     return {pickExtreme(r, a[0], a[1], isMax)};
                   })[0];
}

}  // namespace

Value lowest(Function& fn, ElementType t) { return limit(fn, t, false); }
Value highest(Function& fn, ElementType t) { return limit(fn, t, true); }

Value expandReduced(Function& fn, Value reduced, const std::vector<int64_t>& shape,
                    const std::vector<int64_t>& dims) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> kept = otherDims(dims, rank);
  if (reduced.rank() == rank) {
    // Reduced dims were kept with size 1: drop them first.
    std::vector<int64_t> keptSizes;
    for (int64_t k : kept) keptSizes.push_back(shape[k]);
    reduced = fn.reshape(reduced, keptSizes);
  }
  return fn.broadcastInDim(reduced, shape, kept);
}

Value reduceSum(Function& fn, Value x, const std::vector<int64_t>& dims) {
  return fn.reduce(x, constantLike(fn, 0, x.dtype()), dims, BinaryOp::kAdd);
}

Value reduceProd(Function& fn, Value x, const std::vector<int64_t>& dims) {
  return fn.reduce(x, constantLike(fn, 1, x.dtype()), dims, BinaryOp::kMultiply);
}

Value reduceMax(Function& fn, Value x, const std::vector<int64_t>& dims) {
  return reduceExtreme(fn, x, dims, true);
}

Value reduceMin(Function& fn, Value x, const std::vector<int64_t>& dims) {
  return reduceExtreme(fn, x, dims, false);
}

Value reduceAny(Function& fn, Value pred, const std::vector<int64_t>& dims) {
  return fn.reduce(pred, fn.constantInt(0, ElementType::kPred), dims, BinaryOp::kOr);
}

Value reduceAll(Function& fn, Value pred, const std::vector<int64_t>& dims) {
  return fn.reduce(pred, fn.constantInt(1, ElementType::kPred), dims, BinaryOp::kAnd);
}

Value nanMaximum(Function& fn, Value a, Value b) { return pickExtreme(fn, a, b, true); }
Value nanMinimum(Function& fn, Value a, Value b) { return pickExtreme(fn, a, b, false); }

std::pair<Value, Value> reduceArgExtreme(Function& fn, Value x, int64_t dim, bool isMax) {
  if (runtime::isComplex(x.dtype())) throw LoweringError("max/min of complex values");
  if (x.rank() == 0) x = fn.reshape(x, {1});
  const ElementType orig = x.dtype();
  if (orig == ElementType::kPred) x = fn.convert(x, ElementType::kU8);
  const bool floating = runtime::isFloating(x.dtype());
  const Value idx = fn.iota(TensorType(ElementType::kS64, x.dims()), dim);
  const Value initV = isMax ? lowest(fn, x.dtype()) : highest(fn, x.dtype());
  const Value initI = fn.constantInt(std::numeric_limits<int64_t>::max(), ElementType::kS64);
  // (a, ia) wins over (b, ib) when a is more extreme, or a is NaN and b is
  // not, or they tie (both NaN counts as a tie) and ia < ib.
  auto body = [isMax, floating](Function& r, const std::vector<Value>& args) {
    const Value a = args[0], ia = args[1], b = args[2], ib = args[3];
    Value better = r.compare(a, b, isMax ? ComparisonDirection::kGt : ComparisonDirection::kLt);
    Value tie = r.compare(a, b, ComparisonDirection::kEq);
    if (floating) {
      const Value aNan = r.compare(a, a, ComparisonDirection::kNe);
      const Value bNan = r.compare(b, b, ComparisonDirection::kNe);
      const Value bNotNan = r.compare(b, b, ComparisonDirection::kEq);
      better = r.binary(BinaryOp::kOr, better, r.binary(BinaryOp::kAnd, aNan, bNotNan));
      tie = r.binary(BinaryOp::kOr, tie, r.binary(BinaryOp::kAnd, aNan, bNan));
    }
    const Value lower = r.compare(ia, ib, ComparisonDirection::kLt);
    const Value pickA = r.binary(BinaryOp::kOr, better, r.binary(BinaryOp::kAnd, tie, lower));
    return std::vector<Value>{r.select(pickA, a, b), r.select(pickA, ia, ib)};
  };
  std::vector<Value> out = fn.reduce({x, idx}, {initV, initI}, {dim}, body);
  Value values = out[0];
  if (orig == ElementType::kPred) values = fn.convert(values, orig);
  return {values, out[1]};
}

}  // namespace torchtpu::lower
