// FFTs: aten::_fft_r2c, _fft_c2c and _fft_c2r (what torch.fft.* and stft
// reach) on stablehlo.fft. stablehlo.fft transforms the trailing 1 to 3 dims,
// so each group of at most 3 requested dims is transposed to the end and back;
// the transforms of separate dims compose. XLA's IFFT / IRFFT divide by n,
// PyTorch's unnormalized inverse does not: one scale per call folds that and
// the normalization mode (0: none, 1: 1/sqrt(n), 2: 1/n) together.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using hlo::FftType;

constexpr size_t kMaxFftDims = 3;

ElementType complexOf(ElementType t) {
  return t == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64;
}

// The requested dims, normalized; repeated dims are an error.
std::vector<int64_t> fftDims(const LowerCtx& c, int64_t rank) {
  std::vector<int64_t> dims = c.ints("dim");
  for (int64_t& d : dims) d = normDim(d, rank);
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    c.fail("fft dims must be unique");
  }
  if (dims.empty()) c.fail("fft needs at least one dim");
  return dims;
}

// One stablehlo.fft over `dims` (1 to 3 of them, in this order), which are
// moved to the end and back. `lengths` are the fft_length entries.
Value fftOver(Function& fn, Value x, const std::vector<int64_t>& dims, FftType type,
              const std::vector<int64_t>& lengths) {
  const auto rank = static_cast<int64_t>(x.dims().size());
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  }
  perm.insert(perm.end(), dims.begin(), dims.end());
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && perm[d] == d;
  if (!identity) x = fn.transpose(x, perm);
  Value y = fn.fft(x, type, lengths);
  if (identity) return y;
  std::vector<int64_t> inverse(rank);
  for (int64_t d = 0; d < rank; ++d) inverse[perm[d]] = d;
  return fn.transpose(y, inverse);
}

// Complex FFT or IFFT over all of `dims`, in groups of at most 3.
Value c2cOver(Function& fn, Value x, const std::vector<int64_t>& dims, FftType type) {
  for (size_t start = 0; start < dims.size(); start += kMaxFftDims) {
    const size_t end = std::min(dims.size(), start + kMaxFftDims);
    std::vector<int64_t> group(dims.begin() + static_cast<std::ptrdiff_t>(start),
                               dims.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<int64_t> lengths;
    for (int64_t d : group) lengths.push_back(x.dims()[d]);
    x = fftOver(fn, x, group, type, lengths);
  }
  return x;
}

// The factor PyTorch's normalization mode asks for, over n points.
double normScale(const LowerCtx& c, double n) {
  switch (c.i("normalization")) {
    case 0:
      return 1.0;
    case 1:
      return 1.0 / std::sqrt(n);
    case 2:
      return 1.0 / n;
    default:
      c.fail("unknown fft normalization mode " + std::to_string(c.i("normalization")));
  }
}

Value scaleBy(Function& fn, Value x, double s) {
  if (s == 1.0) return x;
  if (runtime::isComplex(x.dtype())) {
    return fn.multiply(x, fn.constantComplex(s, 0, x.dtype(), x.dims()));
  }
  return fn.multiply(x, fn.constant(s, x.dtype(), x.dims()));
}

bool empty(const std::vector<int64_t>& dims) {
  return std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d == 0; });
}

// The result zeros when there is nothing to transform.
std::optional<Value> emptyResult(LowerCtx& c, const Value& x) {
  const TensorType& out = c.result();
  if (!empty(x.dims()) && !empty(out.dims)) return std::nullopt;
  if (runtime::isComplex(out.dtype)) return c.fn.constantComplex(0, 0, out.dtype, out.dims);
  return c.fn.constant(0, out.dtype, out.dims);
}

// Real to complex: RFFT over the last requested dim (and up to two before it),
// then FFT over the others; without `onesided`, the full complex FFT.
std::vector<Value> lowerR2c(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (runtime::isComplex(x.dtype())) c.fail("_fft_r2c of a complex input");
  const ElementType real = x.dtype() == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32;
  x = castTo(fn, x, real);
  const std::vector<int64_t> dims = fftDims(c, static_cast<int64_t>(x.dims().size()));
  if (auto e = emptyResult(c, x)) return {*e};
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(x.dims()[d]);
  const double scale = normScale(c, n);
  if (!c.b("onesided")) {
    Value y = c2cOver(fn, castTo(fn, x, complexOf(real)), dims, FftType::kFft);
    return {scaleBy(fn, y, scale)};
  }
  const size_t k = std::min(dims.size(), kMaxFftDims);
  std::vector<int64_t> last(dims.end() - static_cast<std::ptrdiff_t>(k), dims.end());
  std::vector<int64_t> lengths;
  for (int64_t d : last) lengths.push_back(x.dims()[d]);
  Value y = fftOver(fn, x, last, FftType::kRfft, lengths);
  std::vector<int64_t> rest(dims.begin(), dims.end() - static_cast<std::ptrdiff_t>(k));
  if (!rest.empty()) y = c2cOver(fn, y, rest, FftType::kFft);
  return {scaleBy(fn, y, scale)};
}

// Complex to complex, forward (FFT) or backward (unnormalized inverse).
std::vector<Value> lowerC2c(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isComplex(x.dtype())) x = castTo(fn, x, complexOf(x.dtype()));
  const std::vector<int64_t> dims = fftDims(c, static_cast<int64_t>(x.dims().size()));
  if (auto e = emptyResult(c, x)) return {*e};
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(x.dims()[d]);
  double scale = normScale(c, n);
  const bool forward = c.b("forward");
  Value y = c2cOver(fn, x, dims, forward ? FftType::kFft : FftType::kIfft);
  if (!forward) scale *= n;  // IFFT divided by n
  return {scaleBy(fn, y, scale)};
}

// Complex (one-sided along the last requested dim) to real with that dim
// last_dim_size long: IFFT over the other dims, then IRFFT over the last one
// (and up to two before it). Like PyTorch's CPU and CUDA backends, the
// imaginary parts the one-sided input cannot express are ignored.
std::vector<Value> lowerC2r(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("self");
  if (!runtime::isComplex(x.dtype())) x = castTo(fn, x, complexOf(x.dtype()));
  const auto rank = static_cast<int64_t>(x.dims().size());
  const std::vector<int64_t> dims = fftDims(c, rank);
  const int64_t lastDim = dims.back();
  const int64_t lastSize = c.i("last_dim_size");
  if (lastSize < 1) c.fail("_fft_c2r: last_dim_size must be >= 1");
  // The one-sided input holds lastSize/2+1 entries along the last dim.
  const int64_t half = lastSize / 2 + 1;
  const int64_t have = x.dims()[lastDim];
  if (have > half) {
    std::vector<int64_t> start(rank, 0), limit = x.dims();
    limit[lastDim] = half;
    x = fn.slice(x, start, limit);
  } else if (have < half && have > 0) {
    std::vector<int64_t> lo(rank, 0), hi(rank, 0);
    hi[lastDim] = half - have;
    x = fn.pad(x, fn.constantComplex(0, 0, x.dtype()), lo, hi);
  }
  if (auto e = emptyResult(c, x)) return {*e};
  double n = static_cast<double>(lastSize);
  for (size_t k = 0; k + 1 < dims.size(); ++k) n *= static_cast<double>(x.dims()[dims[k]]);
  const size_t k = std::min(dims.size(), kMaxFftDims);
  std::vector<int64_t> rest(dims.begin(), dims.end() - static_cast<std::ptrdiff_t>(k));
  if (!rest.empty()) x = c2cOver(fn, x, rest, FftType::kIfft);
  std::vector<int64_t> last(dims.end() - static_cast<std::ptrdiff_t>(k), dims.end());
  std::vector<int64_t> lengths;
  for (int64_t d : last) lengths.push_back(d == lastDim ? lastSize : x.dims()[d]);
  Value y = fftOver(fn, x, last, FftType::kIrfft, lengths);
  // IFFT and IRFFT divided by the product of their lengths: n in all.
  return {scaleBy(fn, y, normScale(c, n) * n)};
}

const Registrar kFftR2c({"aten::_fft_r2c", "aten::_fft_r2c.out"}, lowerR2c);
const Registrar kFftC2c({"aten::_fft_c2c", "aten::_fft_c2c.out"}, lowerC2c);
const Registrar kFftC2r({"aten::_fft_c2r", "aten::_fft_c2r.out"}, lowerC2r);

}  // namespace
}  // namespace torchtpu::lower
