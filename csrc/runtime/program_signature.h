// The parameter types of a program's entry function, read from its MLIR text,
// so that launches with the wrong arguments fail before reaching the plugin
// (which does not check them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/element_type.h"

namespace torchtpu::runtime {

struct ArrayType {
  ElementType type = ElementType::kF32;
  std::vector<int64_t> dims;
  std::string str() const;  // "tensor<2x3xf32>"
  bool operator==(const ArrayType&) const = default;
};

// Parses a StableHLO tensor type such as "tensor<2x3xf32>" or "tensor<i1>".
std::optional<ArrayType> parseTensorType(std::string_view text);

// The parameter types of `func.func public @main(...)` in MLIR text, or
// nothing when the text is not textual MLIR with a @main of tensor arguments.
std::optional<std::vector<ArrayType>> parseMainSignature(std::string_view mlir);

}  // namespace torchtpu::runtime
