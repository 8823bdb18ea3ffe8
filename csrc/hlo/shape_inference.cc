#include "hlo/shape_inference.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace torchtpu::hlo::infer {

namespace {

std::string typeName(ElementType t) { return std::string(runtime::elementTypeName(t)); }

// Throws "OP: WHAT; operand types (A, B)".
[[noreturn]] void fail(const std::string& op, const std::string& what, const Types& operands) {
  throw std::invalid_argument(op + ": " + what + "; operand types " + typesStr(operands));
}

std::string list(const std::vector<int64_t>& v) { return dimsStr(v); }

// Each entry in [0, bound) and no repeats.
bool uniqueInRange(const std::vector<int64_t>& v, int64_t bound) {
  std::set<int64_t> seen;
  for (int64_t x : v) {
    if (x < 0 || x >= bound || !seen.insert(x).second) return false;
  }
  return true;
}

bool sortedUniqueInRange(const std::vector<int64_t>& v, int64_t bound) {
  return uniqueInRange(v, bound) && std::is_sorted(v.begin(), v.end());
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool disjoint(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (int64_t x : a) {
    if (contains(b, x)) return false;
  }
  return true;
}

// Output size of a windowed dimension: input dilated by `baseDilation` and
// padded, window dilated by `windowDilation`, then strided.
int64_t windowedSize(int64_t size, int64_t window, int64_t stride, int64_t baseDilation,
                     int64_t windowDilation, PadPair pad) {
  const int64_t dilated = size == 0 ? 0 : (size - 1) * baseDilation + 1;
  const int64_t padded = dilated + pad.first + pad.second;
  const int64_t dilatedWindow = (window - 1) * windowDilation + 1;
  if (padded < dilatedWindow) return 0;
  return (padded - dilatedWindow) / stride + 1;
}

bool allPositive(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x >= 1; });
}

void checkScalarIndices(const std::string& op, const Types& indices, const Types& operands) {
  for (const TensorType& t : indices) {
    if (t.rank() != 0 || !runtime::isInteger(t.dtype)) {
      fail(op, "start indices must be integer scalars, got " + t.str(), operands);
    }
    if (t.dtype != indices[0].dtype) {
      fail(op, "start indices must all have the same type", operands);
    }
  }
}

void checkNoComplex(const std::string& op, const TensorType& t, const Types& operands) {
  if (runtime::isComplex(t.dtype)) fail(op, "complex operands are not supported", operands);
}

}  // namespace

TensorType unary(UnaryOp op, const TensorType& x) {
  const std::string name(opName(op));
  if (!accepts(op, x.dtype)) {
    fail(name, "expects " + std::string(acceptedTypesText(op)) + " elements", {x});
  }
  return x.withDtype(resultElementType(op, x.dtype));
}

TensorType binary(BinaryOp op, const TensorType& a, const TensorType& b) {
  const std::string name(opName(op));
  if (a != b) fail(name, "operand types must be equal (no implicit broadcasting)", {a, b});
  if (!accepts(op, a.dtype)) {
    fail(name, "expects " + std::string(acceptedTypesText(op)) + " elements", {a, b});
  }
  return a.withDtype(resultElementType(op, a.dtype));
}

TensorType compare(const TensorType& a, const TensorType& b, ComparisonDirection dir,
                   ComparisonType type) {
  const std::string name = "stablehlo.compare";
  if (a != b) fail(name, "operand types must be equal", {a, b});
  if (!comparisonTypeFits(type, a.dtype)) {
    fail(name,
         "comparison type " + std::string(comparisonTypeName(type)) + " does not fit " +
             typeName(a.dtype),
         {a, b});
  }
  if (runtime::isComplex(a.dtype) && dir != ComparisonDirection::kEq &&
      dir != ComparisonDirection::kNe) {
    fail(name, "complex values only compare with EQ or NE", {a, b});
  }
  return a.withDtype(ElementType::kPred);
}

TensorType select(const TensorType& pred, const TensorType& onTrue, const TensorType& onFalse) {
  const std::string name = "stablehlo.select";
  const Types ops{pred, onTrue, onFalse};
  if (pred.dtype != ElementType::kPred) fail(name, "predicate must be i1", ops);
  if (onTrue != onFalse) fail(name, "on_true and on_false types must be equal", ops);
  if (pred.rank() != 0 && pred.dims != onTrue.dims) {
    fail(name, "predicate must be a scalar or have the operands' shape", ops);
  }
  return onTrue;
}

TensorType clamp(const TensorType& min, const TensorType& x, const TensorType& max) {
  const std::string name = "stablehlo.clamp";
  const Types ops{min, x, max};
  if (min.dtype != x.dtype || max.dtype != x.dtype) {
    fail(name, "element types must be equal", ops);
  }
  checkNoComplex(name, x, ops);
  if ((min.rank() != 0 && min.dims != x.dims) || (max.rank() != 0 && max.dims != x.dims)) {
    fail(name, "min and max must be scalars or have the operand's shape", ops);
  }
  return x;
}

TensorType convert(const TensorType& x, ElementType to) {
  if (runtime::isComplex(x.dtype) && !runtime::isComplex(to)) {
    fail("stablehlo.convert",
         "complex to " + typeName(to) + " is not supported; take stablehlo.real first", {x});
  }
  return x.withDtype(to);
}

TensorType bitcastConvert(const TensorType& x, ElementType to) {
  const std::string name = "stablehlo.bitcast_convert";
  auto unsupported = [](ElementType t) { return t == ElementType::kPred || runtime::isComplex(t); };
  if (unsupported(x.dtype) || unsupported(to)) {
    fail(name, "i1 and complex types cannot be bitcast (to " + typeName(to) + ")", {x});
  }
  const int64_t from = static_cast<int64_t>(runtime::elementByteSize(x.dtype));
  const int64_t width = static_cast<int64_t>(runtime::elementByteSize(to));
  std::vector<int64_t> dims = x.dims;
  if (from > width) {
    dims.push_back(from / width);  // each element becomes from/width narrower ones
  } else if (from < width) {
    if (x.rank() == 0 || x.dims.back() != width / from) {
      fail(name,
           "to a wider type the last dimension must be " + std::to_string(width / from) + " (to " +
               typeName(to) + ")",
           {x});
    }
    dims.pop_back();
  }
  return {to, dims};
}

TensorType reducePrecision(const TensorType& x, int32_t exponentBits, int32_t mantissaBits) {
  const std::string name = "stablehlo.reduce_precision";
  if (!runtime::isFloating(x.dtype)) fail(name, "expects floating-point elements", {x});
  if (exponentBits < 1 || mantissaBits < 0) {
    fail(name,
         "needs exponent_bits >= 1 and mantissa_bits >= 0, got " + std::to_string(exponentBits) +
             " and " + std::to_string(mantissaBits),
         {x});
  }
  return x;
}

TensorType fft(const TensorType& x, FftType type, const std::vector<int64_t>& fftLength) {
  const std::string name = "stablehlo.fft";
  const auto n = static_cast<int64_t>(fftLength.size());
  if (n < 1 || n > 3 || n > x.rank()) fail(name, "needs 1 to 3 fft dims within the rank", {x});
  for (int64_t l : fftLength) {
    if (l < 0) fail(name, "fft lengths must be >= 0", {x});
  }
  TensorType out = x;
  const bool complexIn = runtime::isComplex(x.dtype);
  auto tail = [&](int64_t i) -> int64_t& { return out.dims[x.rank() - n + i]; };
  switch (type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!complexIn) fail(name, "FFT/IFFT need complex elements", {x});
      for (int64_t i = 0; i < n; ++i) {
        if (tail(i) != fftLength[i]) fail(name, "trailing dims must equal fft_length", {x});
      }
      return out;
    case FftType::kRfft:
      if (x.dtype != ElementType::kF32 && x.dtype != ElementType::kF64) {
        fail(name, "RFFT needs f32 or f64 elements", {x});
      }
      for (int64_t i = 0; i < n; ++i) {
        if (tail(i) != fftLength[i]) fail(name, "trailing dims must equal fft_length", {x});
      }
      tail(n - 1) = fftLength[n - 1] / 2 + 1;
      out.dtype = x.dtype == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
      return out;
    case FftType::kIrfft:
      if (!complexIn) fail(name, "IRFFT needs complex elements", {x});
      for (int64_t i = 0; i + 1 < n; ++i) {
        if (tail(i) != fftLength[i]) fail(name, "trailing dims must equal fft_length", {x});
      }
      if (tail(n - 1) != fftLength[n - 1] / 2 + 1) {
        fail(name, "IRFFT's last dim must be fft_length/2+1", {x});
      }
      tail(n - 1) = fftLength[n - 1];
      out.dtype = x.dtype == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
      return out;
  }
  return out;
}

TensorType cholesky(const TensorType& a) {
  const std::string name = "stablehlo.cholesky";
  if (!runtime::isFloating(a.dtype) && !runtime::isComplex(a.dtype)) {
    fail(name, "needs floating-point or complex elements", {a});
  }
  if (a.rank() < 2 || a.dims[a.rank() - 1] != a.dims[a.rank() - 2]) {
    fail(name, "needs square matrices [..., n, n]", {a});
  }
  return a;
}

TensorType triangularSolve(const TensorType& a, const TensorType& b, bool leftSide) {
  const std::string name = "stablehlo.triangular_solve";
  if (a.dtype != b.dtype) fail(name, "a and b must have one element type", {a, b});
  if (!runtime::isFloating(a.dtype) && !runtime::isComplex(a.dtype)) {
    fail(name, "needs floating-point or complex elements", {a, b});
  }
  if (a.rank() < 2 || a.rank() != b.rank() || a.dims[a.rank() - 1] != a.dims[a.rank() - 2]) {
    fail(name, "needs square a [..., n, n] and b of the same rank", {a, b});
  }
  for (int64_t i = 0; i + 2 < a.rank(); ++i) {
    if (a.dims[i] != b.dims[i]) fail(name, "batch dims must match", {a, b});
  }
  const int64_t n = a.dims[a.rank() - 1];
  const int64_t bn = leftSide ? b.dims[b.rank() - 2] : b.dims[b.rank() - 1];
  if (bn != n) fail(name, "b's solved dim must equal a's size", {a, b});
  return b;
}

TensorType iota(const TensorType& t, int64_t dim) {
  const std::string name = "stablehlo.iota";
  if (t.rank() == 0 || dim < 0 || dim >= t.rank()) {
    fail(name, "iota dimension " + std::to_string(dim) + " out of range for " + t.str(), {});
  }
  if (t.dtype == ElementType::kPred) fail(name, "i1 iota is not supported", {t});
  for (int64_t d : t.dims) {
    if (d < 0) fail(name, "negative dimension in " + t.str(), {});
  }
  return t;
}

TensorType broadcastInDim(const TensorType& x, const std::vector<int64_t>& outDims,
                          const std::vector<int64_t>& broadcastDims) {
  const std::string name = "stablehlo.broadcast_in_dim";
  for (int64_t d : outDims) {
    if (d < 0) fail(name, "negative result dimension in " + list(outDims), {x});
  }
  if (static_cast<int64_t>(broadcastDims.size()) != x.rank()) {
    fail(name,
         "broadcast_dimensions " + list(broadcastDims) + " must have one entry per operand dim",
         {x});
  }
  if (!uniqueInRange(broadcastDims, static_cast<int64_t>(outDims.size()))) {
    fail(name,
         "broadcast_dimensions " + list(broadcastDims) + " must be unique and index into " +
             list(outDims),
         {x});
  }
  for (size_t i = 0; i < broadcastDims.size(); ++i) {
    if (x.dims[i] != 1 && x.dims[i] != outDims[broadcastDims[i]]) {
      fail(name,
           "operand dim " + std::to_string(i) + " (size " + std::to_string(x.dims[i]) +
               ") must be 1 or equal result dim " + std::to_string(broadcastDims[i]) + " of " +
               list(outDims),
           {x});
    }
  }
  return x.withDims(outDims);
}

TensorType reshape(const TensorType& x, const std::vector<int64_t>& dims) {
  TensorType out = x.withDims(dims);
  for (int64_t d : dims) {
    if (d < 0) fail("stablehlo.reshape", "negative dimension in " + list(dims), {x});
  }
  if (out.numElements() != x.numElements()) {
    fail("stablehlo.reshape",
         "cannot reshape " + std::to_string(x.numElements()) + " elements to " + list(dims), {x});
  }
  return out;
}

TensorType transpose(const TensorType& x, const std::vector<int64_t>& perm) {
  if (static_cast<int64_t>(perm.size()) != x.rank() || !uniqueInRange(perm, x.rank())) {
    fail("stablehlo.transpose", "permutation " + list(perm) + " is not a permutation of the dims",
         {x});
  }
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.dims[p]);
  return x.withDims(dims);
}

TensorType reverse(const TensorType& x, const std::vector<int64_t>& dims) {
  if (!uniqueInRange(dims, x.rank())) {
    fail("stablehlo.reverse", "dimensions " + list(dims) + " must be unique and in range", {x});
  }
  return x;
}

TensorType slice(const TensorType& x, const std::vector<int64_t>& start,
                 const std::vector<int64_t>& limit, const std::vector<int64_t>& strides) {
  const std::string name = "stablehlo.slice";
  const size_t r = static_cast<size_t>(x.rank());
  if (start.size() != r || limit.size() != r || strides.size() != r) {
    fail(name, "start, limit and strides need one entry per dim", {x});
  }
  std::vector<int64_t> dims(r);
  for (size_t i = 0; i < r; ++i) {
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > x.dims[i] || strides[i] < 1) {
      fail(name,
           "bad bounds for dim " + std::to_string(i) + ": start " + list(start) + ", limit " +
               list(limit) + ", strides " + list(strides),
           {x});
    }
    dims[i] = (limit[i] - start[i] + strides[i] - 1) / strides[i];
  }
  return x.withDims(dims);
}

TensorType dynamicSlice(const TensorType& x, const Types& startIndices,
                        const std::vector<int64_t>& sizes) {
  const std::string name = "stablehlo.dynamic_slice";
  Types ops{x};
  ops.insert(ops.end(), startIndices.begin(), startIndices.end());
  if (static_cast<int64_t>(startIndices.size()) != x.rank()) {
    fail(name, "needs one start index per operand dim", ops);
  }
  checkScalarIndices(name, startIndices, ops);
  if (static_cast<int64_t>(sizes.size()) != x.rank()) {
    fail(name, "slice_sizes " + list(sizes) + " needs one entry per operand dim", ops);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || sizes[i] > x.dims[i]) {
      fail(name, "slice_sizes " + list(sizes) + " exceed the operand", ops);
    }
  }
  return x.withDims(sizes);
}

TensorType dynamicUpdateSlice(const TensorType& x, const TensorType& update,
                              const Types& startIndices) {
  const std::string name = "stablehlo.dynamic_update_slice";
  Types ops{x, update};
  ops.insert(ops.end(), startIndices.begin(), startIndices.end());
  if (update.dtype != x.dtype || update.rank() != x.rank()) {
    fail(name, "update must have the operand's element type and rank", ops);
  }
  for (size_t i = 0; i < x.dims.size(); ++i) {
    if (update.dims[i] > x.dims[i]) fail(name, "update is larger than the operand", ops);
  }
  if (static_cast<int64_t>(startIndices.size()) != x.rank()) {
    fail(name, "needs one start index per operand dim", ops);
  }
  checkScalarIndices(name, startIndices, ops);
  return x;
}

TensorType concatenate(const Types& xs, int64_t dim) {
  const std::string name = "stablehlo.concatenate";
  if (xs.empty()) fail(name, "needs at least one operand", xs);
  const TensorType& first = xs[0];
  if (dim < 0 || dim >= first.rank()) {
    fail(name, "dimension " + std::to_string(dim) + " out of range", xs);
  }
  std::vector<int64_t> dims = first.dims;
  dims[dim] = 0;
  for (const TensorType& t : xs) {
    if (t.dtype != first.dtype || t.rank() != first.rank()) {
      fail(name, "operands must have equal element types and ranks", xs);
    }
    for (int64_t i = 0; i < t.rank(); ++i) {
      if (i != dim && t.dims[i] != first.dims[i]) {
        fail(name, "operands differ outside dimension " + std::to_string(dim), xs);
      }
    }
    dims[dim] += t.dims[dim];
  }
  return first.withDims(dims);
}

TensorType pad(const TensorType& x, const TensorType& padValue, const std::vector<int64_t>& lo,
               const std::vector<int64_t>& hi, const std::vector<int64_t>& interior) {
  const std::string name = "stablehlo.pad";
  const Types ops{x, padValue};
  if (padValue.rank() != 0 || padValue.dtype != x.dtype) {
    fail(name, "padding value must be a scalar of the operand's element type", ops);
  }
  const size_t r = static_cast<size_t>(x.rank());
  if (lo.size() != r || hi.size() != r || interior.size() != r) {
    fail(name, "low, high and interior padding need one entry per dim", ops);
  }
  std::vector<int64_t> dims(r);
  for (size_t i = 0; i < r; ++i) {
    if (interior[i] < 0) fail(name, "interior padding must be >= 0: " + list(interior), ops);
    dims[i] = lo[i] + hi[i] + x.dims[i] + std::max<int64_t>(x.dims[i] - 1, 0) * interior[i];
    if (dims[i] < 0) {
      fail(name,
           "negative result size for dim " + std::to_string(i) + " (low " + list(lo) + ", high " +
               list(hi) + ")",
           ops);
    }
  }
  return x.withDims(dims);
}

TensorType dotGeneral(const TensorType& lhs, const TensorType& rhs, const DotDims& d,
                      std::optional<ElementType> resultType) {
  const std::string name = "stablehlo.dot_general";
  const Types ops{lhs, rhs};
  if (lhs.dtype != rhs.dtype) fail(name, "operand element types must be equal", ops);
  if (d.lhsBatch.size() != d.rhsBatch.size()) fail(name, "batch dimension counts differ", ops);
  if (d.lhsContracting.size() != d.rhsContracting.size()) {
    fail(name, "contracting dimension counts differ", ops);
  }
  auto sideOk = [](const std::vector<int64_t>& batch, const std::vector<int64_t>& contract,
                   int64_t rank) {
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contract.begin(), contract.end());
    return uniqueInRange(all, rank);
  };
  if (!sideOk(d.lhsBatch, d.lhsContracting, lhs.rank()) ||
      !sideOk(d.rhsBatch, d.rhsContracting, rhs.rank())) {
    fail(name, "dimension numbers " + d.attr() + " repeat a dim or are out of range", ops);
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < d.lhsBatch.size(); ++i) {
    if (lhs.dims[d.lhsBatch[i]] != rhs.dims[d.rhsBatch[i]]) {
      fail(name, "batch dimension sizes differ for " + d.attr(), ops);
    }
    dims.push_back(lhs.dims[d.lhsBatch[i]]);
  }
  for (size_t i = 0; i < d.lhsContracting.size(); ++i) {
    if (lhs.dims[d.lhsContracting[i]] != rhs.dims[d.rhsContracting[i]]) {
      fail(name, "contracting dimension sizes differ for " + d.attr(), ops);
    }
  }
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!contains(d.lhsBatch, i) && !contains(d.lhsContracting, i)) dims.push_back(lhs.dims[i]);
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!contains(d.rhsBatch, i) && !contains(d.rhsContracting, i)) dims.push_back(rhs.dims[i]);
  }
  if (lhs.dtype == ElementType::kPred) fail(name, "i1 operands are not supported", ops);
  return {resultType.value_or(lhs.dtype), dims};
}

TensorType convolution(const TensorType& lhs, const TensorType& rhs, const ConvDims& d,
                       const std::vector<int64_t>& strides, const std::vector<PadPair>& padding,
                       const std::vector<int64_t>& lhsDilation,
                       const std::vector<int64_t>& rhsDilation, int64_t featureGroupCount,
                       int64_t batchGroupCount, std::optional<ElementType> resultType) {
  const std::string name = "stablehlo.convolution";
  const Types ops{lhs, rhs};
  d.validate(name);
  const int64_t s = d.spatialRank();
  if (lhs.rank() != s + 2 || rhs.rank() != s + 2) {
    fail(name, "input and kernel must have rank " + std::to_string(s + 2), ops);
  }
  if (lhs.dtype != rhs.dtype) fail(name, "operand element types must be equal", ops);
  if (static_cast<int64_t>(strides.size()) != s || static_cast<int64_t>(padding.size()) != s ||
      static_cast<int64_t>(lhsDilation.size()) != s ||
      static_cast<int64_t>(rhsDilation.size()) != s) {
    fail(name, "strides, padding and dilations need one entry per spatial dim", ops);
  }
  if (!allPositive(strides) || !allPositive(lhsDilation) || !allPositive(rhsDilation)) {
    fail(name, "strides and dilations must be >= 1", ops);
  }
  if (featureGroupCount < 1 || batchGroupCount < 1 ||
      (featureGroupCount > 1 && batchGroupCount > 1)) {
    fail(name,
         "feature_group_count " + std::to_string(featureGroupCount) + " and batch_group_count " +
             std::to_string(batchGroupCount) + " must be >= 1 and not both > 1",
         ops);
  }
  const int64_t inBatch = lhs.dims[d.inputBatch];
  const int64_t inFeature = lhs.dims[d.inputFeature];
  const int64_t kIn = rhs.dims[d.kernelInputFeature];
  const int64_t kOut = rhs.dims[d.kernelOutputFeature];
  if (inFeature % featureGroupCount != 0 || inFeature / featureGroupCount != kIn) {
    fail(name,
         "input features (" + std::to_string(inFeature) + ") / feature_group_count (" +
             std::to_string(featureGroupCount) + ") must equal kernel input features (" +
             std::to_string(kIn) + ")",
         ops);
  }
  if (kOut % featureGroupCount != 0) {
    fail(name, "kernel output features must be divisible by feature_group_count", ops);
  }
  if (inBatch % batchGroupCount != 0 || kOut % batchGroupCount != 0) {
    fail(name, "input batch and kernel output features must be divisible by batch_group_count",
         ops);
  }
  std::vector<int64_t> dims(s + 2);
  dims[d.outputBatch] = inBatch / batchGroupCount;
  dims[d.outputFeature] = kOut;
  for (int64_t i = 0; i < s; ++i) {
    const int64_t in = lhs.dims[d.inputSpatial[i]];
    const int64_t k = rhs.dims[d.kernelSpatial[i]];
    dims[d.outputSpatial[i]] =
        windowedSize(in, k, strides[i], lhsDilation[i], rhsDilation[i], padding[i]);
  }
  if (lhs.dtype == ElementType::kPred) fail(name, "i1 operands are not supported", ops);
  return {resultType.value_or(lhs.dtype), dims};
}

Types reduce(const Types& inputs, const Types& inits, const std::vector<int64_t>& dims) {
  const std::string name = "stablehlo.reduce";
  Types ops = inputs;
  ops.insert(ops.end(), inits.begin(), inits.end());
  if (inputs.empty() || inputs.size() != inits.size()) {
    fail(name, "needs as many init values as inputs (at least one)", ops);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dims != inputs[0].dims) fail(name, "inputs must have equal shapes", ops);
    if (inits[i].rank() != 0 || inits[i].dtype != inputs[i].dtype) {
      fail(name, "init value " + std::to_string(i) + " must be a scalar of its input's type", ops);
    }
  }
  if (!uniqueInRange(dims, inputs[0].rank())) {
    fail(name, "dimensions " + list(dims) + " must be unique and in range", ops);
  }
  std::vector<int64_t> outDims;
  for (int64_t i = 0; i < inputs[0].rank(); ++i) {
    if (!contains(dims, i)) outDims.push_back(inputs[0].dims[i]);
  }
  Types out;
  for (const TensorType& init : inits) out.push_back(init.withDims(outDims));
  return out;
}

Types reduceWindow(const Types& inputs, const Types& inits, const std::vector<int64_t>& windowDims,
                   const std::vector<int64_t>& windowStrides,
                   const std::vector<int64_t>& baseDilations,
                   const std::vector<int64_t>& windowDilations,
                   const std::vector<PadPair>& padding) {
  const std::string name = "stablehlo.reduce_window";
  Types ops = inputs;
  ops.insert(ops.end(), inits.begin(), inits.end());
  if (inputs.empty() || inputs.size() != inits.size()) {
    fail(name, "needs as many init values as inputs (at least one)", ops);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dims != inputs[0].dims) fail(name, "inputs must have equal shapes", ops);
    if (inits[i].rank() != 0 || inits[i].dtype != inputs[i].dtype) {
      fail(name, "init value " + std::to_string(i) + " must be a scalar of its input's type", ops);
    }
  }
  const size_t r = inputs[0].dims.size();
  if (windowDims.size() != r || windowStrides.size() != r || baseDilations.size() != r ||
      windowDilations.size() != r || padding.size() != r) {
    fail(name, "window dimensions, strides, dilations and padding need one entry per dim", ops);
  }
  if (!allPositive(windowDims) || !allPositive(windowStrides) || !allPositive(baseDilations) ||
      !allPositive(windowDilations)) {
    fail(name, "window dimensions, strides and dilations must be >= 1", ops);
  }
  std::vector<int64_t> dims(r);
  for (size_t i = 0; i < r; ++i) {
    dims[i] = windowedSize(inputs[0].dims[i], windowDims[i], windowStrides[i], baseDilations[i],
                           windowDilations[i], padding[i]);
  }
  Types out;
  for (const TensorType& init : inits) out.push_back(init.withDims(dims));
  return out;
}

TensorType gather(const TensorType& operand, const TensorType& indices, const GatherDims& d,
                  const std::vector<int64_t>& sliceSizes) {
  const std::string name = "stablehlo.gather";
  const Types ops{operand, indices};
  auto bad = [&](const std::string& what) { fail(name, what + " in " + d.attr(), ops); };
  const int64_t r = operand.rank();
  const int64_t ir = indices.rank();
  if (!runtime::isInteger(indices.dtype)) fail(name, "indices must be integers", ops);
  if (d.indexVectorDim < 0 || d.indexVectorDim > ir) bad("index_vector_dim out of range");
  const int64_t indexVectorSize = d.indexVectorDim == ir ? 1 : indices.dims[d.indexVectorDim];
  if (!sortedUniqueInRange(d.collapsedSliceDims, r)) bad("bad collapsed_slice_dims");
  if (!sortedUniqueInRange(d.operandBatchingDims, r)) bad("bad operand_batching_dims");
  if (!disjoint(d.collapsedSliceDims, d.operandBatchingDims)) {
    bad("collapsed_slice_dims and operand_batching_dims overlap");
  }
  if (!uniqueInRange(d.startIndicesBatchingDims, ir) ||
      contains(d.startIndicesBatchingDims, d.indexVectorDim) ||
      d.startIndicesBatchingDims.size() != d.operandBatchingDims.size()) {
    bad("bad start_indices_batching_dims");
  }
  for (size_t i = 0; i < d.operandBatchingDims.size(); ++i) {
    if (indices.dims[d.startIndicesBatchingDims[i]] != operand.dims[d.operandBatchingDims[i]]) {
      bad("batching dimension sizes differ");
    }
  }
  if (static_cast<int64_t>(d.startIndexMap.size()) != indexVectorSize ||
      !uniqueInRange(d.startIndexMap, r) || !disjoint(d.startIndexMap, d.operandBatchingDims)) {
    bad("start_index_map must name " + std::to_string(indexVectorSize) +
        " distinct non-batching operand dims");
  }
  if (static_cast<int64_t>(sliceSizes.size()) != r) {
    fail(name, "slice_sizes " + list(sliceSizes) + " needs one entry per operand dim", ops);
  }
  for (int64_t i = 0; i < r; ++i) {
    const bool dropped = contains(d.collapsedSliceDims, i) || contains(d.operandBatchingDims, i);
    if (sliceSizes[i] < 0 || sliceSizes[i] > operand.dims[i] || (dropped && sliceSizes[i] > 1)) {
      fail(name, "bad slice_sizes " + list(sliceSizes) + " for " + d.attr(), ops);
    }
  }
  const int64_t numOffset =
      r - static_cast<int64_t>(d.collapsedSliceDims.size() + d.operandBatchingDims.size());
  if (static_cast<int64_t>(d.offsetDims.size()) != numOffset) {
    bad("offset_dims must have " + std::to_string(numOffset) + " entries");
  }
  const int64_t batchRank = d.indexVectorDim == ir ? ir : ir - 1;
  const int64_t outRank = numOffset + batchRank;
  if (!sortedUniqueInRange(d.offsetDims, outRank)) bad("bad offset_dims");
  std::vector<int64_t> offsetSizes, batchSizes;
  for (int64_t i = 0; i < r; ++i) {
    if (!contains(d.collapsedSliceDims, i) && !contains(d.operandBatchingDims, i)) {
      offsetSizes.push_back(sliceSizes[i]);
    }
  }
  for (int64_t i = 0; i < ir; ++i) {
    if (i != d.indexVectorDim) batchSizes.push_back(indices.dims[i]);
  }
  std::vector<int64_t> dims(outRank);
  size_t nextOffset = 0, nextBatch = 0;
  for (int64_t i = 0; i < outRank; ++i) {
    dims[i] = contains(d.offsetDims, i) ? offsetSizes[nextOffset++] : batchSizes[nextBatch++];
  }
  return operand.withDims(dims);
}

Types scatter(const Types& inputs, const TensorType& indices, const Types& updates,
              const ScatterDims& d) {
  const std::string name = "stablehlo.scatter";
  Types ops = inputs;
  ops.push_back(indices);
  ops.insert(ops.end(), updates.begin(), updates.end());
  auto bad = [&](const std::string& what) { fail(name, what + " in " + d.attr(), ops); };
  if (inputs.empty() || inputs.size() != updates.size()) {
    fail(name, "needs as many updates as inputs (at least one)", ops);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dims != inputs[0].dims || updates[i].dims != updates[0].dims) {
      fail(name, "inputs (and updates) must have equal shapes", ops);
    }
    if (updates[i].dtype != inputs[i].dtype) {
      fail(name, "update " + std::to_string(i) + " must have its input's element type", ops);
    }
  }
  if (!runtime::isInteger(indices.dtype)) fail(name, "indices must be integers", ops);
  const TensorType& input = inputs[0];
  const TensorType& update = updates[0];
  const int64_t r = input.rank();
  const int64_t ir = indices.rank();
  if (d.indexVectorDim < 0 || d.indexVectorDim > ir) bad("index_vector_dim out of range");
  const int64_t indexVectorSize = d.indexVectorDim == ir ? 1 : indices.dims[d.indexVectorDim];
  if (!sortedUniqueInRange(d.updateWindowDims, update.rank())) bad("bad update_window_dims");
  if (!sortedUniqueInRange(d.insertedWindowDims, r)) bad("bad inserted_window_dims");
  if (!sortedUniqueInRange(d.inputBatchingDims, r)) bad("bad input_batching_dims");
  if (!disjoint(d.insertedWindowDims, d.inputBatchingDims)) {
    bad("inserted_window_dims and input_batching_dims overlap");
  }
  if (!uniqueInRange(d.scatterIndicesBatchingDims, ir) ||
      contains(d.scatterIndicesBatchingDims, d.indexVectorDim) ||
      d.scatterIndicesBatchingDims.size() != d.inputBatchingDims.size()) {
    bad("bad scatter_indices_batching_dims");
  }
  for (size_t i = 0; i < d.inputBatchingDims.size(); ++i) {
    if (indices.dims[d.scatterIndicesBatchingDims[i]] != input.dims[d.inputBatchingDims[i]]) {
      bad("batching dimension sizes differ");
    }
  }
  if (static_cast<int64_t>(d.scatterDimsToOperandDims.size()) != indexVectorSize ||
      !uniqueInRange(d.scatterDimsToOperandDims, r) ||
      !disjoint(d.scatterDimsToOperandDims, d.inputBatchingDims)) {
    bad("scatter_dims_to_operand_dims must name " + std::to_string(indexVectorSize) +
        " distinct non-batching input dims");
  }
  const int64_t batchRank = d.indexVectorDim == ir ? ir : ir - 1;
  if (update.rank() != static_cast<int64_t>(d.updateWindowDims.size()) + batchRank) {
    bad("updates must have rank " +
        std::to_string(static_cast<int64_t>(d.updateWindowDims.size()) + batchRank));
  }
  if (r != static_cast<int64_t>(d.updateWindowDims.size() + d.insertedWindowDims.size() +
                                d.inputBatchingDims.size())) {
    bad("input rank must equal update_window_dims + inserted_window_dims + input_batching_dims");
  }
  // Scatter (batch) dims of the updates match the batch dims of the indices.
  std::vector<int64_t> indexBatch;
  for (int64_t i = 0; i < ir; ++i) {
    if (i != d.indexVectorDim) indexBatch.push_back(indices.dims[i]);
  }
  size_t nextBatch = 0;
  for (int64_t i = 0; i < update.rank(); ++i) {
    if (contains(d.updateWindowDims, i)) continue;
    if (update.dims[i] != indexBatch[nextBatch++]) {
      bad("update scatter dims must match the indices' batch dims");
    }
  }
  // Window dims of the updates fit into the remaining input dims.
  size_t nextWindow = 0;
  for (int64_t i = 0; i < r; ++i) {
    if (contains(d.insertedWindowDims, i) || contains(d.inputBatchingDims, i)) continue;
    const int64_t u = update.dims[d.updateWindowDims[nextWindow++]];
    if (u > input.dims[i]) bad("update window is larger than the input");
  }
  return inputs;
}

Types sort(const Types& inputs, int64_t dim) {
  const std::string name = "stablehlo.sort";
  if (inputs.empty()) fail(name, "needs at least one input", inputs);
  for (const TensorType& t : inputs) {
    if (t.dims != inputs[0].dims) fail(name, "inputs must have equal shapes", inputs);
  }
  if (dim < 0 || dim >= inputs[0].rank()) {
    fail(name, "dimension " + std::to_string(dim) + " out of range", inputs);
  }
  return inputs;
}

TensorType selectAndScatter(const TensorType& operand, const TensorType& source,
                            const TensorType& init, const std::vector<int64_t>& windowDims,
                            const std::vector<int64_t>& windowStrides,
                            const std::vector<PadPair>& padding) {
  const std::string name = "stablehlo.select_and_scatter";
  const Types ops{operand, source, init};
  if (source.dtype != operand.dtype || init.dtype != operand.dtype || init.rank() != 0) {
    fail(name, "source and (scalar) init must have the operand's element type", ops);
  }
  const std::vector<int64_t> ones(operand.dims.size(), 1);
  const Types windowed =
      reduceWindow({operand}, {init}, windowDims, windowStrides, ones, ones, padding);
  if (windowed[0].dims != source.dims) {
    fail(name, "source shape must be the windowed operand's shape " + list(windowed[0].dims), ops);
  }
  return operand;
}

std::pair<TensorType, TensorType> rngBitGenerator(const TensorType& state, RngAlgorithm alg,
                                                  const TensorType& out) {
  const std::string name = "stablehlo.rng_bit_generator";
  if (state.rank() != 1 || state.dtype != ElementType::kU64) {
    fail(name, "initial state must be a 1-D ui64 tensor", {state});
  }
  if (alg == RngAlgorithm::kThreeFry && state.dims[0] != 2) {
    fail(name, "THREE_FRY needs a state of 2 elements", {state});
  }
  if (alg == RngAlgorithm::kPhilox && state.dims[0] != 2 && state.dims[0] != 3) {
    fail(name, "PHILOX needs a state of 2 or 3 elements", {state});
  }
  if (!runtime::isInteger(out.dtype)) {
    fail(name, "output must have integer elements, got " + out.str(), {state});
  }
  for (int64_t d : out.dims) {
    if (d < 0) fail(name, "negative output dimension in " + out.str(), {state});
  }
  return {state, out};
}

}  // namespace torchtpu::hlo::infer
