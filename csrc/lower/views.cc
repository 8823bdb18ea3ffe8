#include "lower/views.h"

#include "lower/lowering.h"

namespace torchtpu::lower {
namespace {

using hlo::TensorType;
using hlo::Value;
using runtime::ElementType;

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

void checkDtype(const Value& array, const ir::TensorRef& ref) {
  if (array.dtype() != ref.dtype) {
    throw LoweringError("a " + std::string(runtime::elementTypeName(ref.dtype)) + " view of a " +
                        std::string(runtime::elementTypeName(array.dtype())) +
                        " storage is not supported");
  }
}

}  // namespace

Value readView(hlo::Function& fn, Value array, const ir::TensorRef& ref) {
  checkDtype(array, ref);
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
  hlo::GatherDims dims;
  dims.collapsedSliceDims = {0};
  dims.startIndexMap = {0};
  dims.indexVectorDim = static_cast<int64_t>(ref.sizes.size());
  return fn.gather(flat, viewIndices(fn, ref), dims, {1});
}

Value writeView(hlo::Function& fn, Value array, const ir::TensorRef& ref, Value value) {
  checkDtype(array, ref);
  if (ref.numel() == 0) return array;
  if (ref.isWholeArray(array.t())) {
    return value.dims() == array.dims() ? value : fn.reshape(value, array.dims());
  }
  const int64_t numel = ref.numel();
  Value flat = flatten(fn, array);
  Value flatValue = fn.reshape(value, {numel});
  Value updated;
  if (isContiguousRun(ref)) {
    Value start = fn.constantInt(ref.offset, ElementType::kS64);
    updated = fn.dynamicUpdateSlice(flat, flatValue, {start});
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
