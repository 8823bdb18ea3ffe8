#include "hlo/precision.h"

namespace torchtpu::hlo {

std::string_view precisionName(Precision p) {
  switch (p) {
    case Precision::kDefault:
      return "DEFAULT";
    case Precision::kHigh:
      return "HIGH";
    case Precision::kHighest:
      return "HIGHEST";
  }
  return "?";
}

std::string precisionConfigAttr(Precision p) {
  if (p == Precision::kDefault) return "";
  std::string one = "#stablehlo<precision " + std::string(precisionName(p)) + ">";
  return "precision_config = [" + one + ", " + one + "]";
}

}  // namespace torchtpu::hlo
