// Internal to csrc/runtime/: ElementType <-> PJRT_Buffer_Type.
#pragma once

#include "runtime/element_type.h"
#include "runtime/pjrt_api.h"

namespace torchtpu::runtime::detail {

PJRT_Buffer_Type toPjrt(ElementType t);
// Throws Error(UNIMPLEMENTED) for a PJRT type torchtpu does not handle.
ElementType fromPjrt(PJRT_Buffer_Type t);

}  // namespace torchtpu::runtime::detail
