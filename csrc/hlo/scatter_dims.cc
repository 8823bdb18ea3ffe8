#include "hlo/scatter_dims.h"

#include "hlo/attr_text.h"

namespace torchtpu::hlo {

std::string ScatterDims::attr() const {
  std::string fields;
  auto add = [&](const char* name, const std::vector<int64_t>& v) {
    if (v.empty()) return;
    fields += name;
    fields += " = " + bracketList(v) + ", ";
  };
  add("update_window_dims", updateWindowDims);
  add("inserted_window_dims", insertedWindowDims);
  add("input_batching_dims", inputBatchingDims);
  add("scatter_indices_batching_dims", scatterIndicesBatchingDims);
  add("scatter_dims_to_operand_dims", scatterDimsToOperandDims);
  return "#stablehlo.scatter<" + fields + "index_vector_dim = " + std::to_string(indexVectorDim) +
         ">";
}

}  // namespace torchtpu::hlo
