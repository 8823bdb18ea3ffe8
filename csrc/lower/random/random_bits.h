// The random streams of random ops: each call's generator {seed, offset} is
// hashed (SplitMix64) into a fresh ThreeFry key, so consecutive calls draw
// from unrelated streams. Shared by the random ops, dropout and rrelu.
#pragma once

#include <vector>

#include "lower/core/lowering.h"

namespace torchtpu::lower {

// The call's u64[2] {seed, offset} (fails when the op has no generator).
Value generatorState(const LowerCtx& c);
// Random bits (u32 or u64) of the given dims: ThreeFry keyed by a hash of
// {seed, offset}, counting from 0, so every call has its own stream.
Value randomBits(LowerCtx& c, ElementType bits, const std::vector<int64_t>& dims);
// Significand digits of floating type t: f64 53, f16 11, bf16 8, else 24.
int digits(ElementType t);
// The type uniform numbers are computed in for a result of type t.
ElementType computeType(ElementType t);
// Uniform [0, 1) of the given dims, in computeType(t), exactly representable
// in t (as many random bits as t's mantissa holds).
Value uniform01(LowerCtx& c, ElementType t, const std::vector<int64_t>& dims);

}  // namespace torchtpu::lower
