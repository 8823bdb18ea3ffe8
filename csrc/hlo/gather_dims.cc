#include "hlo/gather_dims.h"

#include "hlo/attr_text.h"

namespace torchtpu::hlo {

std::string GatherDims::attr() const {
  std::string fields;
  auto add = [&](const char* name, const std::vector<int64_t>& v) {
    if (v.empty()) return;
    fields += name;
    fields += " = " + bracketList(v) + ", ";
  };
  add("offset_dims", offsetDims);
  add("collapsed_slice_dims", collapsedSliceDims);
  add("operand_batching_dims", operandBatchingDims);
  add("start_indices_batching_dims", startIndicesBatchingDims);
  add("start_index_map", startIndexMap);
  return "#stablehlo.gather<" + fields + "index_vector_dim = " + std::to_string(indexVectorDim) +
         ">";
}

}  // namespace torchtpu::hlo
