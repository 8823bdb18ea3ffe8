// Operand precision of dot_general and convolution (matters on TPU, where
// DEFAULT computes f32 products in bf16 passes and HIGHEST in full f32).
#pragma once

#include <string>
#include <string_view>

namespace torchtpu::hlo {

enum class Precision { kDefault, kHigh, kHighest };

// "DEFAULT", "HIGH", "HIGHEST".
std::string_view precisionName(Precision p);

// The precision_config attribute entry for both operands, e.g.
// "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]";
// empty for kDefault, which the parser assumes when the attribute is absent.
std::string precisionConfigAttr(Precision p);

}  // namespace torchtpu::hlo
