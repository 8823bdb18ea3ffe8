// Random ops: uniform_, normal (all overloads), bernoulli (float p, tensor p,
// p = self), random_ (full range, [from, to), [0, to)) and randperm.
//
// Each call gets the generator's {seed, offset} (advanced by the bridge per
// call). The pair is hashed (SplitMix64) into a fresh ThreeFry key, so
// consecutive calls draw from unrelated streams rather than overlapping
// counter ranges of one stream. Results
// are reproducible for a seed but differ from PyTorch's CPU generator.
// Floats in [0, 1) take as many random bits as the type's mantissa holds, so
// they are exact multiples of 2^-digits, never 1.
#include <cmath>
#include <limits>

#include "lower/core/common.h"
#include "lower/random/random_bits.h"

namespace torchtpu::lower {
namespace {

std::vector<Value> lowerUniform(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("uniform_ expects a floating-point tensor");
  const double from = c.d("from"), to = c.d("to");
  const ElementType ct = computeType(out.dtype);
  Value u = uniform01(c, out.dtype, out.dims);
  Value r =
      fn.add(fn.multiply(u, fn.constant(to - from, ct, out.dims)), fn.constant(from, ct, out.dims));
  // Rounding may reach `to`; PyTorch keeps results in [from, to).
  r = castTo(fn, r, out.dtype);
  Value atTo = fn.compare(r, fn.constant(to, out.dtype, out.dims), hlo::ComparisonDirection::kGe);
  return {fn.select(atTo, fn.constant(from, out.dtype, out.dims), r)};
}

// Standard normal samples (Box-Muller), in computeType(t).
Value standardNormal(LowerCtx& c, ElementType t, const std::vector<int64_t>& dims) {
  Function& fn = c.fn;
  const ElementType ct = computeType(t);
  const int64_t n = TensorType(ct, dims).numElements();
  Value u = uniform01(c, ElementType::kF64 == ct ? ct : ElementType::kF32, {2, n});
  Value u1 = fn.subtract(fn.constant(1.0, ct, {1, n}), fn.slice(u, {0, 0}, {1, n}));  // (0, 1]
  Value u2 = fn.slice(u, {1, 0}, {2, n});
  Value radius = fn.sqrt(fn.multiply(fn.constant(-2.0, ct, {1, n}), fn.log(u1)));
  Value angle = fn.multiply(fn.constant(2.0 * M_PI, ct, {1, n}), u2);
  Value z = fn.multiply(radius, fn.unary(hlo::UnaryOp::kCosine, angle));
  return fn.reshape(z, dims);
}

// normal_(self, mean, std), normal.Tensor_float(mean, std), normal.float_Tensor,
// normal.Tensor_Tensor, normal.float_float(mean, std, size): mean + std * z.
std::vector<Value> lowerNormal(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  if (!runtime::isFloating(out.dtype)) c.fail("normal expects a floating-point result");
  const ElementType ct = computeType(out.dtype);
  const std::string& op = c.op();
  const bool meanTensor = op.find("Tensor_") != std::string::npos;
  const bool stdTensor = op.find("_Tensor") != std::string::npos;
  Value mean =
      meanTensor ? fit(fn, c.tensor("mean"), ct, out.dims) : fn.constant(c.d("mean"), ct, out.dims);
  Value std =
      stdTensor ? fit(fn, c.tensor("std"), ct, out.dims) : fn.constant(c.d("std"), ct, out.dims);
  return {fn.add(mean, fn.multiply(std, standardNormal(c, out.dtype, out.dims)))};
}

// bernoulli: 1 with probability p (a float argument, a tensor p, or self).
std::vector<Value> lowerBernoulli(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  Value p;
  ElementType ct = ElementType::kF32;
  if (c.has("p")) {
    if (c.op().find(".Tensor") != std::string::npos) {
      Value pt = c.tensor("p");
      ct = computeType(pt.dtype());
      p = fit(fn, pt, ct, out.dims);
    } else {
      p = fn.constant(c.d("p"), ElementType::kF64, out.dims);
      ct = ElementType::kF64;
    }
  } else {
    Value self = c.tensor("self");
    if (!runtime::isFloating(self.dtype())) c.fail("bernoulli(self) expects probabilities");
    ct = computeType(self.dtype());
    p = fit(fn, self, ct, out.dims);
  }
  Value u = castTo(
      fn, uniform01(c, ct == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32, out.dims),
      ct);
  return {fn.compare(u, p, hlo::ComparisonDirection::kLt)};
}

// random_: integers uniform in [from, to); without `to` up to the type's
// largest value (2^digits for floating types) inclusive.
std::vector<Value> lowerRandom(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const ElementType t = out.dtype;
  int64_t from = 0;
  std::optional<int64_t> to;
  if (c.has("from")) from = c.i("from");
  if (c.has("to")) to = c.optInt("to");
  // Largest value the type can take, inclusive.
  uint64_t maxInclusive;
  if (runtime::isFloating(t)) {
    maxInclusive = uint64_t{1} << digits(t);
  } else if (t == ElementType::kPred) {
    maxInclusive = 1;
  } else if (runtime::isInteger(t)) {
    const int bits = static_cast<int>(runtime::elementByteSize(t)) * 8;
    maxInclusive = runtime::isUnsigned(t) ? (bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1)
                                          : (uint64_t{1} << (bits - 1)) - 1;
  } else {
    c.fail("unsupported dtype");
  }
  uint64_t range;
  if (to) {
    if (*to <= from) c.fail("random_ expects from < to");
    range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
  } else if (c.has("from")) {
    range = maxInclusive - static_cast<uint64_t>(from) + 1;  // 0 means all 2^64 values
  } else {
    range = maxInclusive + 1;
  }
  Value bits = randomBits(c, ElementType::kU64, out.dims);
  if (range != 0) {
    // The u64 range as a constant: its bits as an s64, reinterpreted.
    Value r =
        fn.bitcastConvert(fn.constantInt(static_cast<int64_t>(range), ElementType::kS64, out.dims),
                          ElementType::kU64);
    bits = fn.binary(hlo::BinaryOp::kRemainder, bits, r);
  }
  Value v = fn.add(fn.bitcastConvert(bits, ElementType::kS64),
                   fn.constantInt(from, ElementType::kS64, out.dims));
  return {v};
}

// randperm: iota sorted by random keys.
std::vector<Value> lowerRandperm(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const int64_t n = c.i("n");
  if (out.rank() != 1 || out.dims[0] != n) c.fail("unexpected result shape");
  if (n == 0) return {constantLike(fn, 0, ElementType::kS64, {0})};
  Value keys = randomBits(c, ElementType::kU64, {n});
  Value iota = fn.iota(TensorType(ElementType::kS64, {n}), 0);
  auto sorted = fn.sort({keys, iota}, 0, true, [](Function& r, const std::vector<Value>& a) {
    return std::vector<Value>{r.compare(a[0], a[1], hlo::ComparisonDirection::kLt)};
  });
  return {sorted[1]};
}

const Registrar kUniform({"aten::uniform", "aten::uniform.out", "aten::uniform_"}, lowerUniform);
const Registrar kNormal({"aten::normal_", "aten::normal.out", "aten::normal.Tensor_float",
                         "aten::normal.Tensor_float_out", "aten::normal.float_Tensor",
                         "aten::normal.float_Tensor_out", "aten::normal.Tensor_Tensor",
                         "aten::normal.Tensor_Tensor_out", "aten::normal.float_float",
                         "aten::normal.float_float_out", "aten::normal_functional"},
                        lowerNormal);
const Registrar kBernoulli({"aten::bernoulli", "aten::bernoulli.out", "aten::bernoulli.p",
                            "aten::bernoulli.Tensor", "aten::bernoulli.Tensor_out",
                            "aten::bernoulli.float_out", "aten::bernoulli_.Tensor",
                            "aten::bernoulli_.float"},
                           lowerBernoulli);
const Registrar kRandom({"aten::random", "aten::random.out", "aten::random.from",
                         "aten::random.from_out", "aten::random.to", "aten::random.to_out",
                         "aten::random_", "aten::random_.from", "aten::random_.to"},
                        lowerRandom);
const Registrar kRandperm({"aten::randperm", "aten::randperm.generator", "aten::randperm.out",
                           "aten::randperm.generator_out"},
                          lowerRandperm, OpTraits{.implicitRng = true});

}  // namespace
}  // namespace torchtpu::lower
