#include "hlo/rng_algorithm.h"

namespace torchtpu::hlo {

std::string_view rngAlgorithmName(RngAlgorithm a) {
  switch (a) {
    case RngAlgorithm::kDefault:
      return "DEFAULT";
    case RngAlgorithm::kThreeFry:
      return "THREE_FRY";
    case RngAlgorithm::kPhilox:
      return "PHILOX";
  }
  return "?";
}

}  // namespace torchtpu::hlo
