#include "aten/dtype.h"

#include <c10/util/Exception.h>

namespace torchtpu::aten {

using runtime::ElementType;

std::optional<ElementType> toElementType(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Bool:
      return ElementType::kPred;
    case c10::ScalarType::Char:
      return ElementType::kS8;
    case c10::ScalarType::Short:
      return ElementType::kS16;
    case c10::ScalarType::Int:
      return ElementType::kS32;
    case c10::ScalarType::Long:
      return ElementType::kS64;
    case c10::ScalarType::Byte:
      return ElementType::kU8;
    case c10::ScalarType::UInt16:
      return ElementType::kU16;
    case c10::ScalarType::UInt32:
      return ElementType::kU32;
    case c10::ScalarType::UInt64:
      return ElementType::kU64;
    case c10::ScalarType::Half:
      return ElementType::kF16;
    case c10::ScalarType::BFloat16:
      return ElementType::kBF16;
    case c10::ScalarType::Float:
      return ElementType::kF32;
    case c10::ScalarType::Double:
      return ElementType::kF64;
    case c10::ScalarType::ComplexFloat:
      return ElementType::kC64;
    case c10::ScalarType::ComplexDouble:
      return ElementType::kC128;
    default:
      return std::nullopt;
  }
}

ElementType requireElementType(c10::ScalarType t) {
  auto e = toElementType(t);
  TORCH_CHECK_TYPE(e.has_value(), "torchtpu: dtype ", t,
                   " is not supported on the tpu device (supported: bool, integer types, float16, "
                   "bfloat16, float32, float64, complex64, complex128)");
  return *e;
}

c10::ScalarType toScalarType(ElementType t) {
  switch (t) {
    case ElementType::kPred:
      return c10::ScalarType::Bool;
    case ElementType::kS8:
      return c10::ScalarType::Char;
    case ElementType::kS16:
      return c10::ScalarType::Short;
    case ElementType::kS32:
      return c10::ScalarType::Int;
    case ElementType::kS64:
      return c10::ScalarType::Long;
    case ElementType::kU8:
      return c10::ScalarType::Byte;
    case ElementType::kU16:
      return c10::ScalarType::UInt16;
    case ElementType::kU32:
      return c10::ScalarType::UInt32;
    case ElementType::kU64:
      return c10::ScalarType::UInt64;
    case ElementType::kF16:
      return c10::ScalarType::Half;
    case ElementType::kBF16:
      return c10::ScalarType::BFloat16;
    case ElementType::kF32:
      return c10::ScalarType::Float;
    case ElementType::kF64:
      return c10::ScalarType::Double;
    case ElementType::kC64:
      return c10::ScalarType::ComplexFloat;
    case ElementType::kC128:
      return c10::ScalarType::ComplexDouble;
  }
  return c10::ScalarType::Undefined;
}

}  // namespace torchtpu::aten
