#include "lower/core/views.h"

#include <algorithm>
#include <optional>

#include "lower/core/lowering.h"

namespace torchtpu::lower {
namespace {

using hlo::TensorType;
using hlo::Value;
using runtime::ElementType;

ElementType componentType(ElementType t) {
  return t == ElementType::kC128 ? ElementType::kF64 : ElementType::kF32;
}

// Reinterprets flat `x` (of a non-complex, non-pred type) as flat `to` (also
// neither): same bytes, little-endian.
Value bitcastFlat(hlo::Function& fn, Value x, ElementType to) {
  const ElementType from = x.dtype();
  if (from == to) return x;
  const int64_t n = x.t().numElements();
  const int64_t wf = static_cast<int64_t>(runtime::elementByteSize(from));
  const int64_t wt = static_cast<int64_t>(runtime::elementByteSize(to));
  if (wf == wt) return fn.bitcastConvert(x, to);
  if (wf > wt) return fn.reshape(fn.bitcastConvert(x, to), {n * (wf / wt)});
  return fn.bitcastConvert(fn.reshape(x, {n * wf / wt, wt / wf}), to);
}

// Whether the view is a contiguous run of the flattened array.
bool isContiguousRun(const ir::TensorRef& ref) {
  int64_t expected = 1;
  for (size_t k = ref.sizes.size(); k-- > 0;) {
    if (ref.sizes[k] != 1 && ref.strides[k] != expected) return false;
    expected *= ref.sizes[k];
  }
  return true;
}

Value flatten(hlo::Function& fn, Value array) {
  return array.rank() == 1 ? array : fn.reshape(array, {array.t().numElements()});
}

// Flat element index of every element of the view, shaped sizes + [1].
Value viewIndices(hlo::Function& fn, const ir::TensorRef& ref) {
  const TensorType idxType(ElementType::kS64, ref.sizes);
  Value idx = fn.constantInt(ref.offset, ElementType::kS64, ref.sizes);
  for (size_t k = 0; k < ref.sizes.size(); ++k) {
    if (ref.sizes[k] == 1 || ref.strides[k] == 0) continue;
    Value term = fn.iota(idxType, static_cast<int64_t>(k));
    if (ref.strides[k] != 1) {
      term = fn.multiply(term, fn.constantInt(ref.strides[k], ElementType::kS64, ref.sizes));
    }
    idx = fn.add(idx, term);
  }
  std::vector<int64_t> withVec = ref.sizes;
  withVec.push_back(1);
  return fn.reshape(idx, withVec);
}

// A strided view as a box: the flat array from the view's offset, reshaped to
// `region` ([size_0, s_0/s_1, ..., s_{m-2}/s_{m-1}, s_{m-1}] for the view's
// dims with size > 1 and stride > 0, sorted by decreasing stride s_i), holds
// the view's elements as the box [0, size_i) x ... x [0, 1). Views whose
// strides nest this way (transposes, slices, splits, selects, diagonals of
// nothing) then read with slice/reshape/transpose instead of a gather.
struct Box {
  std::vector<int64_t> order;   // view dims in region order
  std::vector<int64_t> region;  // region dims (order.size() + 1 of them)
  std::vector<int64_t> box;     // the view's extent in region dims
  int64_t span = 0;             // region elements (from the offset)
  int64_t padding = 0;          // elements past the array's end the region covers
};

std::optional<Box> boxOf(const ir::TensorRef& ref, int64_t arrayNumel) {
  Box b;
  for (size_t k = 0; k < ref.sizes.size(); ++k) {
    if (ref.sizes[k] > 1 && ref.strides[k] > 0) b.order.push_back(static_cast<int64_t>(k));
    if (ref.sizes[k] > 1 && ref.strides[k] < 0) return std::nullopt;
  }
  std::stable_sort(b.order.begin(), b.order.end(),
                   [&](int64_t a, int64_t c) { return ref.strides[a] > ref.strides[c]; });
  const size_t m = b.order.size();
  if (m == 0) {
    b.region = {1};
    b.box = {1};
    b.span = 1;
  } else {
    b.region.push_back(ref.sizes[b.order[0]]);
    b.box.push_back(ref.sizes[b.order[0]]);
    for (size_t i = 0; i + 1 < m; ++i) {
      const int64_t outer = ref.strides[b.order[i]];
      const int64_t inner = ref.strides[b.order[i + 1]];
      if (outer % inner != 0 || outer / inner < ref.sizes[b.order[i + 1]]) return std::nullopt;
      b.region.push_back(outer / inner);
      b.box.push_back(ref.sizes[b.order[i + 1]]);
    }
    b.region.push_back(ref.strides[b.order[m - 1]]);
    b.box.push_back(1);
    b.span = ref.sizes[b.order[0]] * ref.strides[b.order[0]];
  }
  b.padding = std::max<int64_t>(0, ref.offset + b.span - arrayNumel);
  return b;
}

Value zeroScalar(hlo::Function& fn, ElementType t) {
  return t == ElementType::kPred || runtime::isInteger(t) ? fn.constantInt(0, t)
                                                          : fn.constant(0, t);
}

// The flat array's elements [offset, offset + span), padded past its end.
Value regionOf(hlo::Function& fn, Value flat, int64_t offset, const Box& b) {
  if (b.padding > 0) flat = fn.pad(flat, zeroScalar(fn, flat.dtype()), {0}, {b.padding});
  Value run = fn.slice(flat, {offset}, {offset + b.span}, {1});
  return fn.reshape(run, b.region);
}

Value readBox(hlo::Function& fn, Value flat, const ir::TensorRef& ref, const Box& b) {
  Value region = regionOf(fn, flat, ref.offset, b);
  std::vector<int64_t> zeros(b.region.size(), 0);
  Value box = fn.slice(region, zeros, b.box);
  // Drop the trailing unit dim; view dims in increasing order.
  std::vector<int64_t> sorted(b.box.begin(), b.box.end() - 1);
  Value v = fn.reshape(box, sorted);
  std::vector<int64_t> byDim = b.order;
  std::sort(byDim.begin(), byDim.end());
  std::vector<int64_t> perm;
  for (int64_t d : byDim) {
    perm.push_back(std::find(b.order.begin(), b.order.end(), d) - b.order.begin());
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (!identity) v = fn.transpose(v, perm);
  // Size-1 and broadcast (stride 0) dims.
  std::vector<int64_t> kept;
  for (int64_t d : byDim) kept.push_back(d);
  std::vector<int64_t> keptSizes;
  for (int64_t d : kept) keptSizes.push_back(ref.sizes[d]);
  if (v.dims() != keptSizes) v = fn.reshape(v, keptSizes);
  if (kept.size() == ref.sizes.size()) return v;
  return fn.broadcastInDim(v, ref.sizes, kept);
}

// Writes `value` (the view's logical shape) into the view's box of `flat`.
Value writeBox(hlo::Function& fn, Value flat, const ir::TensorRef& ref, const Box& b, Value value) {
  const int64_t n = flat.t().numElements();
  Value padded =
      b.padding > 0 ? fn.pad(flat, zeroScalar(fn, flat.dtype()), {0}, {b.padding}) : flat;
  Value region = fn.reshape(fn.slice(padded, {ref.offset}, {ref.offset + b.span}, {1}), b.region);
  std::vector<int64_t> byDim = b.order;
  std::sort(byDim.begin(), byDim.end());
  std::vector<int64_t> byDimSizes;
  for (int64_t d : byDim) byDimSizes.push_back(ref.sizes[d]);
  Value v = fn.reshape(value, byDimSizes);
  std::vector<int64_t> perm;  // region order from increasing-dim order
  bool identity = true;
  for (size_t i = 0; i < b.order.size(); ++i) {
    perm.push_back(std::find(byDim.begin(), byDim.end(), b.order[i]) - byDim.begin());
    identity = identity && perm.back() == static_cast<int64_t>(i);
  }
  if (!identity) v = fn.transpose(v, perm);
  v = fn.reshape(v, b.box);
  std::vector<Value> at(b.region.size(), fn.constantInt(0, ElementType::kS64));
  region = fn.dynamicUpdateSlice(region, v, at);
  padded = fn.dynamicUpdateSlice(padded, fn.reshape(region, {b.span}),
                                 {fn.constantInt(ref.offset, ElementType::kS64)});
  return b.padding > 0 ? fn.slice(padded, {0}, {n}, {1}) : padded;
}

}  // namespace

Value reinterpret(hlo::Function& fn, Value array, ElementType to) {
  const ElementType from = array.dtype();
  if (from == to) return array;
  const int64_t n = array.t().numElements();
  const int64_t bytes = n * static_cast<int64_t>(runtime::elementByteSize(from));
  if (bytes % static_cast<int64_t>(runtime::elementByteSize(to)) != 0) {
    throw LoweringError("a " + std::string(runtime::elementTypeName(to)) + " view of " +
                        std::to_string(bytes) + " bytes of " +
                        std::string(runtime::elementTypeName(from)) +
                        " is not a whole number of elements");
  }
  Value x = flatten(fn, array);
  // To plain bits: complex -> (re, im) pairs of its component type, bool -> u8.
  if (runtime::isComplex(from)) {
    Value re = fn.reshape(fn.unary(hlo::UnaryOp::kReal, x), {n, 1});
    Value im = fn.reshape(fn.unary(hlo::UnaryOp::kImag, x), {n, 1});
    x = fn.reshape(fn.concatenate({re, im}, 1), {2 * n});
  } else if (from == ElementType::kPred) {
    x = fn.convert(x, ElementType::kU8);
  }
  // From plain bits to the new type.
  if (runtime::isComplex(to)) {
    x = bitcastFlat(fn, x, componentType(to));
    const int64_t m = x.t().numElements() / 2;
    x = fn.reshape(x, {m, 2});
    Value re = fn.reshape(fn.slice(x, {0, 0}, {m, 1}), {m});
    Value im = fn.reshape(fn.slice(x, {0, 1}, {m, 2}), {m});
    return fn.binary(hlo::BinaryOp::kComplex, re, im);
  }
  if (to == ElementType::kPred) {
    x = bitcastFlat(fn, x, ElementType::kU8);
    return fn.compare(x, fn.constantInt(0, ElementType::kU8, x.dims()),
                      hlo::ComparisonDirection::kNe);
  }
  return bitcastFlat(fn, x, to);
}

Value readView(hlo::Function& fn, Value array, const ir::TensorRef& ref) {
  array = reinterpret(fn, array, ref.dtype);
  if (ref.numel() == 0) {
    return ref.dtype == ElementType::kPred || runtime::isInteger(ref.dtype)
               ? fn.constantInt(0, ref.dtype, ref.sizes)
               : fn.constant(0, ref.dtype, ref.sizes);
  }
  if (ref.isWholeArray(array.t())) {
    return array.dims() == ref.sizes ? array : fn.reshape(array, ref.sizes);
  }
  const int64_t numel = ref.numel();
  Value flat = flatten(fn, array);
  if (isContiguousRun(ref)) {
    Value run = fn.slice(flat, {ref.offset}, {ref.offset + numel}, {1});
    return fn.reshape(run, ref.sizes);
  }
  if (auto b = boxOf(ref, flat.t().numElements())) return readBox(fn, flat, ref, *b);
  hlo::GatherDims dims;
  dims.collapsedSliceDims = {0};
  dims.startIndexMap = {0};
  dims.indexVectorDim = static_cast<int64_t>(ref.sizes.size());
  return fn.gather(flat, viewIndices(fn, ref), dims, {1});
}

Value writeView(hlo::Function& fn, Value array, const ir::TensorRef& ref, Value value) {
  if (ref.numel() == 0) return array;
  if (array.dtype() != ref.dtype) {
    const TensorType type = array.t();
    Value bytes =
        reinterpret(fn, writeView(fn, reinterpret(fn, array, ref.dtype), ref, value), type.dtype);
    return fn.reshape(bytes, type.dims);
  }
  if (ref.isWholeArray(array.t())) {
    return value.dims() == array.dims() ? value : fn.reshape(value, array.dims());
  }
  const int64_t numel = ref.numel();
  Value flat = flatten(fn, array);
  Value flatValue = fn.reshape(value, {numel});
  Value updated;
  bool overlapping = false;  // a broadcast view: PyTorch's writes are ill-defined
  for (size_t k = 0; k < ref.sizes.size(); ++k) {
    overlapping = overlapping || (ref.sizes[k] > 1 && ref.strides[k] == 0);
  }
  std::optional<Box> box;
  if (!overlapping && !isContiguousRun(ref)) box = boxOf(ref, flat.t().numElements());
  if (isContiguousRun(ref)) {
    Value start = fn.constantInt(ref.offset, ElementType::kS64);
    updated = fn.dynamicUpdateSlice(flat, flatValue, {start});
  } else if (box) {
    updated = writeBox(fn, flat, ref, *box, value);
  } else {
    hlo::ScatterDims dims;
    dims.insertedWindowDims = {0};
    dims.scatterDimsToOperandDims = {0};
    dims.indexVectorDim = 1;
    Value idx = fn.reshape(viewIndices(fn, ref), {numel, 1});
    updated = fn.scatter({flat}, idx, {flatValue}, dims,
                         [](hlo::Function&, const std::vector<Value>& args) {
                           return std::vector<Value>{args[1]};
                         })[0];
  }
  return updated.dims() == array.dims() ? updated : fn.reshape(updated, array.dims());
}

}  // namespace torchtpu::lower
