// Element types shared by the runtime and the program builder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace torchtpu::runtime {

// The element types torchtpu moves between host and device. The names follow
// StableHLO's spelling (see elementTypeName).
enum class ElementType : uint8_t {
  kPred,  // i1 / bool, one byte per element on the host
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
};

// Bytes per element in the dense host layout.
size_t elementByteSize(ElementType t);

// StableHLO spelling: "i1", "i32", "ui8", "f32", "bf16", "complex<f32>", ...
std::string_view elementTypeName(ElementType t);

bool isFloating(ElementType t);
bool isComplex(ElementType t);
bool isSigned(ElementType t);    // signed integers
bool isUnsigned(ElementType t);  // unsigned integers (not pred)
bool isInteger(ElementType t);   // signed or unsigned integers (not pred)

}  // namespace torchtpu::runtime
