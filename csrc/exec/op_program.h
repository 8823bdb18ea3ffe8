// Turns one OpCall into a StableHLO program: parameters are the call's storage
// arrays then its runtime scalars; results are the op's new arrays, then the
// storage arrays that the op wrote through a view.
#pragma once

#include <string>
#include <vector>

#include "hlo/types.h"
#include "ir/op_call.h"

namespace torchtpu::exec {

struct OpProgram {
  std::string text;  // MLIR
  // The op's new results (writeBack arg == -1), in order, are the first outputs.
  int numNewResults = 0;
  // After the new results: the storage arrays written, by array index.
  std::vector<int> updatedArrays;
  std::vector<hlo::TensorType> outputTypes;
};

// Throws lower::LoweringError when the op has no lowering or the lowering
// cannot handle this call; std::invalid_argument on a builder type error.
OpProgram buildOpProgram(const ir::OpCall& call);

}  // namespace torchtpu::exec
