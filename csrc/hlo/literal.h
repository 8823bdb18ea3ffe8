// Spelling of constant data in MLIR's dense elements syntax.
#pragma once

#include <cstdint>
#include <string>

#include "hlo/types.h"

namespace torchtpu::hlo {

// Rounds `v` to the nearest value of the floating-point type `t` (ties to
// even), giving +-inf beyond the largest finite value; NaN and inf pass through.
// `t` must be f16, bf16, f32 or f64.
double roundToFloatType(double v, ElementType t);

// The literal of one element, as written inside dense<...>:
//   floats:  shortest exact decimal "2.5e-01"; NaN/inf as bit patterns "0x7FC00000"
//   ints:    "-3", "18446744073709551615"
//   i1:      "true" / "false" (any non-zero value is true)
//   complex: "(1.0e+00, 0.0e+00)", or a one-element hex blob when a part is not finite
// Integer types throw std::invalid_argument when `v` is not an integer in range.
std::string elementLiteral(double v, ElementType t);
std::string elementLiteral(int64_t v, ElementType t);
std::string complexLiteral(double re, double im, ElementType t);

// A splat attribute "dense<LIT> : tensor<...>" from a literal of elementLiteral().
std::string denseSplatAttr(const std::string& literal, const TensorType& type);

// A dense attribute of `type.numElements()` elements read from `data` (dense
// row-major little-endian bytes, one byte per i1): "dense<"0x0000803F..."> : tensor<...>";
// i1 data is written as nested true/false lists, empty tensors as "dense<>".
std::string denseDataAttr(const TensorType& type, const void* data);

}  // namespace torchtpu::hlo
