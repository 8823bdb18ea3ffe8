#include "lower/random/random_bits.h"

#include <cmath>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

// SplitMix64's finalizer: a bijective 64-bit mix.
Value mix64(Function& fn, Value x) {
  auto shiftXor = [&](Value v, int s) {
    return fn.binary(hlo::BinaryOp::kXor, v,
                     fn.binary(hlo::BinaryOp::kShiftRightLogical, v,
                               fn.constantInt(s, ElementType::kU64, v.dims())));
  };
  auto mul = [&](Value v, uint64_t k) {
    Value kv = fn.bitcastConvert(
        fn.constantInt(static_cast<int64_t>(k), ElementType::kS64, v.dims()), ElementType::kU64);
    return fn.multiply(v, kv);
  };
  x = mul(shiftXor(x, 30), 0xbf58476d1ce4e5b9ULL);
  x = mul(shiftXor(x, 27), 0x94d049bb133111ebULL);
  return shiftXor(x, 31);
}

}  // namespace

int digits(ElementType t) {
  switch (t) {
    case ElementType::kF64:
      return 53;
    case ElementType::kF16:
      return 11;
    case ElementType::kBF16:
      return 8;
    default:
      return 24;
  }
}

Value generatorState(const LowerCtx& c) {
  if (!c.has("generator")) c.fail("the op has no generator argument");
  return c.rng("generator");
}

Value randomBits(LowerCtx& c, ElementType bits, const std::vector<int64_t>& dims) {
  Function& fn = c.fn;
  Value state = castTo(fn, generatorState(c), ElementType::kU64);
  Value seed = fn.reshape(fn.slice(state, {0}, {1}), {});
  Value offset = fn.reshape(fn.slice(state, {1}, {2}), {});
  Value golden = fn.bitcastConvert(
      fn.constantInt(static_cast<int64_t>(0x9e3779b97f4a7c15ULL), ElementType::kS64),
      ElementType::kU64);
  Value key =
      mix64(fn, fn.add(mix64(fn, seed),
                       fn.multiply(fn.add(offset, fn.constantInt(1, ElementType::kU64)), golden)));
  Value fresh =
      fn.concatenate({fn.reshape(key, {1}), fn.constantInt(0, ElementType::kU64, {1})}, 0);
  return fn.rngBitGenerator(fresh, hlo::RngAlgorithm::kThreeFry, TensorType(bits, dims)).second;
}

ElementType computeType(ElementType t) {
  return t == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32;
}

Value uniform01(LowerCtx& c, ElementType t, const std::vector<int64_t>& dims) {
  Function& fn = c.fn;
  const ElementType ct = computeType(t);
  const int m = digits(runtime::isFloating(t) ? t : ElementType::kF32);
  const bool wide = ct == ElementType::kF64;
  const ElementType bt = wide ? ElementType::kU64 : ElementType::kU32;
  Value bits = randomBits(c, bt, dims);
  Value shift = wide ? fn.constantInt(64 - m, bt, dims) : fn.constantInt(32 - m, bt, dims);
  Value top = fn.binary(hlo::BinaryOp::kShiftRightLogical, bits, shift);
  return fn.multiply(fn.convert(top, ct), fn.constant(std::ldexp(1.0, -m), ct, dims));
}

}  // namespace torchtpu::lower
