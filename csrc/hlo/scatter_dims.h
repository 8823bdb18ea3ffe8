// Dimension numbers of stablehlo.scatter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchtpu::hlo {

// See the StableHLO spec for scatter. The mirror image of GatherDims: each index
// vector (along `indexVectorDim` of the indices) gives start positions for the
// input dims in `scatterDimsToOperandDims`; the update dims in
// `updateWindowDims` form the window written there, and the input dims in
// `insertedWindowDims` and `inputBatchingDims` are size-1 window dims that the
// updates leave out. `inputBatchingDims[i]` is paired with
// `scatterIndicesBatchingDims[i]`.
struct ScatterDims {
  std::vector<int64_t> updateWindowDims;
  std::vector<int64_t> insertedWindowDims;
  std::vector<int64_t> inputBatchingDims;
  std::vector<int64_t> scatterIndicesBatchingDims;
  std::vector<int64_t> scatterDimsToOperandDims;
  int64_t indexVectorDim = 0;

  // "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
  // scatter_dims_to_operand_dims = [0], index_vector_dim = 1>"; empty lists are
  // left out.
  std::string attr() const;
};

}  // namespace torchtpu::hlo
