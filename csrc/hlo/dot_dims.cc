#include "hlo/dot_dims.h"

#include "hlo/attr_text.h"

namespace torchtpu::hlo {

std::string DotDims::attr() const {
  std::string fields;
  auto add = [&](const char* name, const std::vector<int64_t>& v) {
    if (v.empty()) return;
    if (!fields.empty()) fields += ", ";
    fields += name;
    fields += " = " + bracketList(v);
  };
  add("lhs_batching_dimensions", lhsBatch);
  add("rhs_batching_dimensions", rhsBatch);
  add("lhs_contracting_dimensions", lhsContracting);
  add("rhs_contracting_dimensions", rhsContracting);
  return "#stablehlo.dot<" + fields + ">";
}

}  // namespace torchtpu::hlo
