#include "hlo/types.h"

namespace torchtpu::hlo {

int64_t TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string TensorType::str() const {
  std::string s = "tensor<";
  for (int64_t d : dims) {
    s += std::to_string(d);
    s += 'x';
  }
  s += runtime::elementTypeName(dtype);
  s += '>';
  return s;
}

std::string dimsStr(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

std::string typesStr(const std::vector<TensorType>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += ", ";
    s += types[i].str();
  }
  s += ')';
  return s;
}

std::string typesStr(const std::vector<Value>& values) {
  std::vector<TensorType> types;
  types.reserve(values.size());
  for (const Value& v : values) types.push_back(v.type);
  return typesStr(types);
}

}  // namespace torchtpu::hlo
