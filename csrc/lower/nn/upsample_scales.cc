#include "lower/nn/upsample_scales.h"

namespace torchtpu::lower {

std::vector<std::optional<double>> upsampleScales(const LowerCtx& c, int k) {
  static const char* names1[] = {"scales"};
  static const char* names2[] = {"scales_h", "scales_w"};
  static const char* names3[] = {"scales_d", "scales_h", "scales_w"};
  const char** names = k == 1 ? names1 : k == 2 ? names2 : names3;
  std::vector<std::optional<double>> out;
  for (int i = 0; i < k; ++i) out.push_back(c.has(names[i]) ? c.optDouble(names[i]) : std::nullopt);
  return out;
}

}  // namespace torchtpu::lower
