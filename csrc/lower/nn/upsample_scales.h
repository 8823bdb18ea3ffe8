// The optional scale arguments of the upsample ops ("scales" for 1-d;
// "scales_h", "scales_w" for 2-d; "scales_d", "scales_h", "scales_w" for 3-d),
// shared by the nearest and the interpolating lowerings.
#pragma once

#include <optional>
#include <vector>

#include "lower/core/lowering.h"

namespace torchtpu::lower {

// One entry per spatial dim (k = 1, 2 or 3); nullopt where the call gave none.
std::vector<std::optional<double>> upsampleScales(const LowerCtx& c, int k);

}  // namespace torchtpu::lower
