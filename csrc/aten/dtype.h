// c10::ScalarType <-> runtime::ElementType.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>

#include "runtime/element_type.h"

namespace torchtpu::aten {

// The device element type of a torch dtype, or nothing if the device has none.
std::optional<runtime::ElementType> toElementType(c10::ScalarType t);
// Like toElementType, but throws a TypeError-like c10::Error naming the dtype.
runtime::ElementType requireElementType(c10::ScalarType t);
c10::ScalarType toScalarType(runtime::ElementType t);

}  // namespace torchtpu::aten
