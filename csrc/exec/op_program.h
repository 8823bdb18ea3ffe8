// Turns op calls into StableHLO. emitOpCall adds one call to a function under
// construction (used for single-op programs and for fused traces alike);
// buildOpProgram makes the single-op program of strict eager mode: parameters
// are the call's storage arrays then its runtime scalars; results are the
// op's new arrays, then the storage arrays that the op wrote through a view.
#pragma once

#include <string>
#include <vector>

#include "hlo/function.h"
#include "hlo/types.h"
#include "ir/op_call.h"

namespace torchtpu::exec {

struct EmittedOp {
  std::vector<hlo::Value> newResults;     // the op's results with no write target
  std::vector<int> updatedArrays;         // call array indices written, in order
  std::vector<hlo::Value> updatedValues;  // their new values
};

// Emits `call` into `fn`: `arrays[k]` is the value of call array k,
// `scalars[k]` of runtime scalar k. Throws lower::LoweringError when the op
// has no lowering or the lowering cannot handle the call; std::invalid_argument
// on a builder type error.
EmittedOp emitOpCall(hlo::Function& fn, const ir::OpCall& call,
                     const std::vector<hlo::Value>& arrays, const std::vector<hlo::Value>& scalars);

// The call arrays an op call writes, in the order emitOpCall returns them.
std::vector<int> updatedArrayOrder(const ir::OpCall& call);

// A zero-filled value of type t (uninitialized storage).
hlo::Value zeros(hlo::Function& fn, const hlo::TensorType& t);

struct OpProgram {
  std::string text;  // MLIR
  int numNewResults = 0;
  std::vector<int> updatedArrays;  // after the new results: arrays written, by index
  std::vector<hlo::TensorType> outputTypes;
};

OpProgram buildOpProgram(const ir::OpCall& call);

}  // namespace torchtpu::exec
