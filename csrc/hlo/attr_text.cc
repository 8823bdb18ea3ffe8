#include "hlo/attr_text.h"

namespace torchtpu::hlo {

namespace {

std::string joined(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s;
}

}  // namespace

std::string i64ArrayAttr(const std::vector<int64_t>& v) {
  if (v.empty()) return "array<i64>";
  return "array<i64: " + joined(v) + ">";
}

std::string bracketList(const std::vector<int64_t>& v) { return "[" + joined(v) + "]"; }

std::string paddingAttr(const std::vector<PadPair>& padding) {
  std::string s = "dense<";
  if (!padding.empty()) {
    s += '[';
    for (size_t i = 0; i < padding.size(); ++i) {
      if (i) s += ", ";
      s += "[" + std::to_string(padding[i].first) + ", " + std::to_string(padding[i].second) + "]";
    }
    s += ']';
  }
  s += "> : tensor<" + std::to_string(padding.size()) + "x2xi64>";
  return s;
}

}  // namespace torchtpu::hlo
