#include "runtime/program_signature.h"

#include <charconv>

namespace torchtpu::runtime {
namespace {

std::optional<ElementType> parseElementType(std::string_view s) {
  static constexpr std::pair<std::string_view, ElementType> kNames[] = {
      {"i1", ElementType::kPred},          {"i8", ElementType::kS8},
      {"i16", ElementType::kS16},          {"i32", ElementType::kS32},
      {"i64", ElementType::kS64},          {"ui8", ElementType::kU8},
      {"ui16", ElementType::kU16},         {"ui32", ElementType::kU32},
      {"ui64", ElementType::kU64},         {"f16", ElementType::kF16},
      {"bf16", ElementType::kBF16},        {"f32", ElementType::kF32},
      {"f64", ElementType::kF64},          {"complex<f32>", ElementType::kC64},
      {"complex<f64>", ElementType::kC128}};
  for (const auto& [name, t] : kNames) {
    if (s == name) return t;
  }
  return std::nullopt;
}

}  // namespace

std::string ArrayType::str() const {
  std::string out = "tensor<";
  for (int64_t d : dims) out += std::to_string(d) + "x";
  out += elementTypeName(type);
  out += ">";
  return out;
}

std::optional<ArrayType> parseTensorType(std::string_view text) {
  constexpr std::string_view kPrefix = "tensor<";
  if (text.substr(0, kPrefix.size()) != kPrefix || text.empty() || text.back() != '>') {
    return std::nullopt;
  }
  std::string_view body = text.substr(kPrefix.size(), text.size() - kPrefix.size() - 1);
  ArrayType out;
  // Leading "<int>x" groups are dimensions; the rest is the element type.
  while (!body.empty() && body[0] >= '0' && body[0] <= '9') {
    int64_t d = 0;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
    if (ec != std::errc() || ptr == body.data() + body.size() || *ptr != 'x') return std::nullopt;
    out.dims.push_back(d);
    body.remove_prefix(static_cast<size_t>(ptr - body.data()) + 1);
  }
  auto et = parseElementType(body);
  if (!et) return std::nullopt;
  out.type = *et;
  return out;
}

std::optional<std::vector<ArrayType>> parseMainSignature(std::string_view mlir) {
  size_t pos = mlir.find("@main(");
  if (pos == std::string_view::npos) return std::nullopt;
  pos += 6;
  std::vector<ArrayType> params;
  // Walk the argument list: "%name: type {attrs}, ..." up to the matching ')'.
  while (pos < mlir.size()) {
    while (pos < mlir.size() && (mlir[pos] == ' ' || mlir[pos] == '\n' || mlir[pos] == ',')) ++pos;
    if (pos >= mlir.size()) return std::nullopt;
    if (mlir[pos] == ')') return params;
    size_t colon = mlir.find(':', pos);
    if (colon == std::string_view::npos) return std::nullopt;
    size_t start = colon + 1;
    while (start < mlir.size() && mlir[start] == ' ') ++start;
    // The type ends where its angle brackets balance.
    size_t end = start;
    int depth = 0;
    for (; end < mlir.size(); ++end) {
      char c = mlir[end];
      if (c == '<') ++depth;
      if (c == '>' && --depth == 0) {
        ++end;
        break;
      }
    }
    auto t = parseTensorType(mlir.substr(start, end - start));
    if (!t) return std::nullopt;
    params.push_back(*t);
    pos = end;
    while (pos < mlir.size() && mlir[pos] == ' ') ++pos;
    if (pos < mlir.size() && mlir[pos] == '{') {  // argument attributes
      int braces = 0;
      for (; pos < mlir.size(); ++pos) {
        if (mlir[pos] == '{') ++braces;
        if (mlir[pos] == '}' && --braces == 0) {
          ++pos;
          break;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace torchtpu::runtime
