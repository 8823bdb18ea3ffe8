// Tensor types and SSA values of the StableHLO program builder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/element_type.h"

namespace torchtpu::hlo {

using runtime::ElementType;

// A statically shaped tensor type: element type plus dimensions (row-major,
// outermost first). A scalar has no dimensions. Printed as "tensor<2x3xf32>".
struct TensorType {
  ElementType dtype = ElementType::kF32;
  std::vector<int64_t> dims;

  TensorType() = default;
  TensorType(ElementType dtype, std::vector<int64_t> dims = {})
      : dtype(dtype), dims(std::move(dims)) {}

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t numElements() const;
  // The same element type with other dimensions.
  TensorType withDims(std::vector<int64_t> newDims) const { return {dtype, std::move(newDims)}; }
  // The same dimensions with another element type.
  TensorType withDtype(ElementType t) const { return {t, dims}; }
  // MLIR spelling: "tensor<2x3xf32>", "tensor<f32>", "tensor<0x4xcomplex<f32>>".
  std::string str() const;

  bool operator==(const TensorType& o) const = default;
};

// An SSA value inside one Function (or a region nested in it). Values are
// created by the builder only; `id` numbers it within its function and `owner`
// names that function, so the builder can reject values used in the wrong place.
struct Value {
  int id = -1;
  TensorType type;
  uint64_t owner = 0;

  const TensorType& t() const { return type; }
  ElementType dtype() const { return type.dtype; }
  const std::vector<int64_t>& dims() const { return type.dims; }
  int64_t rank() const { return type.rank(); }
  bool valid() const { return id >= 0; }
};

// "[2, 3]" for error messages.
std::string dimsStr(const std::vector<int64_t>& dims);

// "(tensor<2xf32>, tensor<i32>)" for error messages and op signatures.
std::string typesStr(const std::vector<TensorType>& types);
std::string typesStr(const std::vector<Value>& values);

}  // namespace torchtpu::hlo
