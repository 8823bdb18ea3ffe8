// The bit generator algorithm of stablehlo.rng_bit_generator.
#pragma once

#include <string_view>

namespace torchtpu::hlo {

// DEFAULT is the backend's choice; THREE_FRY needs a 2-element ui64 state,
// PHILOX a 2- or 3-element one.
enum class RngAlgorithm { kDefault, kThreeFry, kPhilox };

// "DEFAULT", "THREE_FRY", "PHILOX".
std::string_view rngAlgorithmName(RngAlgorithm a);

}  // namespace torchtpu::hlo
