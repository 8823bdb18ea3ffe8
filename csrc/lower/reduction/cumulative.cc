// Cumulative (scan) ops along one dim: cumsum, cumprod, logcumsumexp,
// cummax, cummin. A short dim is one reduce_window whose window covers the
// whole dim, padded by n-1 init values in front (output i combines inputs
// 0..i; what XLA turns into a fast scan on TPU). A long dim, where that
// window costs O(n^2) on other backends, uses ceil(log2 n) doubling steps
// instead (x[i] = combine(x[i - k], x[i]) for k = 1, 2, 4, ...).
//
// PyTorch semantics: integer and bool inputs of cumsum/cumprod produce int64
// (the result type), dtype= casts first, f16/bf16 accumulate in f32;
// logcumsumexp handles -inf rows; cummax/cummin propagate NaN and report the
// last index of the running extreme (ties and NaN take the later index).
#include <algorithm>
#include <cmath>

#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::ComparisonDirection;
using hlo::PadPair;

// Longest dim scanned with a single reduce_window.
constexpr int64_t kWindowScanMax = 64;

// Inclusive scan of `inputs` (same shape, rank >= 1) along `dim` with an
// associative, commutative `body` (N accumulators then N elements -> N) whose
// identities are the 0-d `inits`. The body only uses shape-generic ops, so it
// also combines whole arrays elementwise.
std::vector<Value> scanAlong(Function& fn, std::vector<Value> inputs,
                             const std::vector<Value>& inits, int64_t dim,
                             const hlo::RegionFn& body) {
  const std::vector<int64_t> shape = inputs[0].dims();
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t n = shape[dim];
  if (n <= kWindowScanMax) {
    std::vector<int64_t> window(rank, 1);
    std::vector<PadPair> padding(rank, {0, 0});
    window[dim] = std::max<int64_t>(n, 1);
    padding[dim] = {std::max<int64_t>(n - 1, 0), 0};
    return fn.reduceWindow(inputs, inits, window, {}, {}, {}, padding, body);
  }
  for (int64_t k = 1; k < n; k *= 2) {
    // earlier[i] = x[i - k] (the identity for i < k)
    std::vector<Value> args;
    for (size_t j = 0; j < inputs.size(); ++j) {
      std::vector<int64_t> lo(rank, 0), hi = shape, padLo(rank, 0), padHi(rank, 0);
      hi[dim] = n - k;
      padLo[dim] = k;
      args.push_back(fn.pad(fn.slice(inputs[j], lo, hi), inits[j], padLo, padHi));
    }
    args.insert(args.end(), inputs.begin(), inputs.end());
    inputs = body(fn, args);
  }
  return inputs;
}

std::pair<Value, int64_t> prepare(LowerCtx& c, Value x) {
  const int64_t dim = normDim(c.i("dim"), x.rank());
  if (x.rank() == 0) x = c.fn.reshape(x, {1});
  return {x, dim};
}

Value finish(LowerCtx& c, Value v, size_t i = 0) {
  if (v.dims() != c.result(i).dims) v = c.fn.reshape(v, c.result(i).dims);
  return v;
}

std::vector<Value> lowerCum(LowerCtx& c, BinaryOp op, double init) {
  Value x = c.tensor("self");
  if (auto t = c.dtype("dtype")) x = castTo(c.fn, x, *t);
  auto [v, dim] = prepare(c, x);
  v = castTo(c.fn, v, accType(c.result().dtype));
  Value r = scanAlong(c.fn, {v}, {constantLike(c.fn, init, v.dtype())}, dim,
                      [op](Function& f, const std::vector<Value>& a) {
                        return std::vector<Value>{f.binary(op, a[0], a[1])};
                      })[0];
  return {finish(c, r)};
}

const Registrar kCumsum({"aten::cumsum", "aten::cumsum.out", "aten::cumsum_"},
                        [](LowerCtx& c) { return lowerCum(c, BinaryOp::kAdd, 0); });
const Registrar kCumprod({"aten::cumprod", "aten::cumprod.out", "aten::cumprod_"},
                         [](LowerCtx& c) { return lowerCum(c, BinaryOp::kMultiply, 1); });

// log(exp(a) + exp(b)) = m + log1p(exp(lo - m)), m = max(a, b), lo = min(a, b),
// as PyTorch's _log_add_exp_helper: NaN propagates, and equal infinities
// (where lo - m is NaN) give themselves.
Value logAddExp(Function& f, Value a, Value b) {
  Value nan = f.binary(BinaryOp::kOr, isNan(f, a), isNan(f, b));
  Value m = f.maximum(a, b);
  Value lo = f.minimum(a, b);
  Value r = f.add(m, f.unary(hlo::UnaryOp::kLogPlusOne, f.exp(f.subtract(lo, m))));
  Value sameInf = f.binary(BinaryOp::kAnd, f.compare(lo, m, ComparisonDirection::kEq),
                           f.unary(hlo::UnaryOp::kNot, f.unary(hlo::UnaryOp::kIsFinite, m)));
  return f.select(nan, f.add(a, b), f.select(sameInf, a, r));
}

std::vector<Value> lowerLogcumsumexp(LowerCtx& c) {
  auto [v, dim] = prepare(c, c.tensor("self"));
  if (!runtime::isFloating(c.result().dtype)) c.fail("logcumsumexp of a non-float type");
  // float32 scans in float64: PyTorch's backward subtracts exponentials of
  // these sums, which turns float32 rounding into visible gradient error.
  const ElementType t = c.result().dtype;
  v = castTo(c.fn, v, t == ElementType::kF32 ? ElementType::kF64 : accType(t));
  Value r = scanAlong(c.fn, {v}, {c.fn.constant(-INFINITY, v.dtype())}, dim,
                      [](Function& f, const std::vector<Value>& a) {
                        return std::vector<Value>{logAddExp(f, a[0], a[1])};
                      })[0];
  return {finish(c, r)};
}

const Registrar kLogcumsumexp({"aten::logcumsumexp", "aten::logcumsumexp.out",
                               "aten::_logcumsumexp", "aten::_logcumsumexp.out"},
                              lowerLogcumsumexp);

std::vector<Value> lowerCumExtreme(LowerCtx& c, bool isMax) {
  Function& fn = c.fn;
  auto [x, dim] = prepare(c, c.tensor("self"));
  const ElementType orig = x.dtype();
  if (runtime::isComplex(orig)) c.fail("cummax/cummin of complex values");
  if (orig == ElementType::kPred) x = fn.convert(x, ElementType::kU8);
  const bool floating = runtime::isFloating(x.dtype());
  Value idx = fn.iota(TensorType(ElementType::kS64, x.dims()), dim);
  Value initV = isMax ? lowest(fn, x.dtype()) : highest(fn, x.dtype());
  Value initI = fn.constantInt(-1, ElementType::kS64);
  // (a, ia) wins when strictly more extreme (NaN most), or on a tie (both NaN
  // is a tie) with the later index.
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
    const Value later = r.compare(ia, ib, ComparisonDirection::kGt);
    const Value pickA = r.binary(BinaryOp::kOr, better, r.binary(BinaryOp::kAnd, tie, later));
    return std::vector<Value>{r.select(pickA, a, b), r.select(pickA, ia, ib)};
  };
  std::vector<Value> out = scanAlong(fn, {x, idx}, {initV, initI}, dim, body);
  Value values = out[0];
  if (orig == ElementType::kPred) values = fn.convert(values, orig);
  return {finish(c, values, 0), finish(c, out[1], 1)};
}

// cummax/cummin's composite kernels call _cummax_helper/_cummin_helper, which
// return nothing and write (values, indices) into their mutable arguments.
const Registrar kCummax({"aten::cummax", "aten::cummax.out", "aten::_cummax_helper"},
                        [](LowerCtx& c) { return lowerCumExtreme(c, true); });
const Registrar kCummin({"aten::cummin", "aten::cummin.out", "aten::_cummin_helper"},
                        [](LowerCtx& c) { return lowerCumExtreme(c, false); });

}  // namespace
}  // namespace torchtpu::lower
