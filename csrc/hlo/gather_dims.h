// Dimension numbers of stablehlo.gather.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchtpu::hlo {

// See the StableHLO spec for gather. In short: each index vector (along
// `indexVectorDim` of the indices; == rank(indices) means an implicit trailing
// dimension of size 1) gives start positions for the operand dims in
// `startIndexMap`; a slice of `sliceSizes` is taken there; the dims in
// `collapsedSliceDims` and `operandBatchingDims` (size 1 in the slice) are
// dropped; the remaining slice dims land at `offsetDims` of the result, and the
// batch dims of the indices fill the other result dims in order.
// `operandBatchingDims[i]` is paired with `startIndicesBatchingDims[i]`
// (an implicit index into that dimension, as in a batched gather).
struct GatherDims {
  std::vector<int64_t> offsetDims;
  std::vector<int64_t> collapsedSliceDims;
  std::vector<int64_t> operandBatchingDims;
  std::vector<int64_t> startIndicesBatchingDims;
  std::vector<int64_t> startIndexMap;
  int64_t indexVectorDim = 0;

  // "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
  // start_index_map = [0], index_vector_dim = 1>"; empty lists are left out.
  std::string attr() const;
};

}  // namespace torchtpu::hlo
