// Turns op calls into StableHLO. emitOpCall adds one call to a function under
// construction (used for single-op programs and for fused traces alike);
// buildOpProgram makes the single-op program of strict eager mode: parameters
// are the call's storage arrays then its runtime scalars; results are the
// op's new arrays, then the storage arrays that the op wrote through a view.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/function.h"
#include "hlo/types.h"
#include "ir/op_call.h"
#include "lower/core/lowering.h"

namespace torchtpu::exec {

struct EmittedOp {
  std::vector<hlo::Value> newResults;      // the op's results with no write target
  std::vector<int> updatedArrays;          // call array indices written, in order
  std::vector<hlo::Value> updatedValues;   // their new values
  int declaredChecks = 0;                  // device-side checks the lowering declares
  std::vector<lower::DeviceCheck> checks;  // built only `withChecks`
};

// Emits `call` into `fn`: `arrays[k]` is the value of call array k,
// `scalars[k]` of runtime scalar k. `withChecks` also builds the device-side
// checks the lowering declares (launch_blocking programs). Throws
// lower::LoweringError when the op has no lowering or the lowering cannot
// handle the call; std::invalid_argument on a builder type error.
EmittedOp emitOpCall(hlo::Function& fn, const ir::OpCall& call,
                     const std::vector<hlo::Value>& arrays, const std::vector<hlo::Value>& scalars,
                     bool withChecks = false);

// The call arrays an op call writes, in the order emitOpCall returns them.
std::vector<int> updatedArrayOrder(const ir::OpCall& call);

// A zero-filled value of type t (uninitialized storage).
hlo::Value zeros(hlo::Function& fn, const hlo::TensorType& t);

// A runtime scalar compiled into a program as a constant. A zero (of a
// floating or integer type) is passed through an optimization barrier: XLA
// folds x + 0 into x, which keeps the sign of -0.0 where PyTorch gives +0.0
// (rsqrt(-0.0 + 0) is +inf on the CPU).
hlo::Value bakedScalar(hlo::Function& fn, const hlo::TensorType& t, const void* data);

struct OpProgram {
  std::string text;  // MLIR
  int numNewResults = 0;
  std::vector<int> updatedArrays;  // after the new results: arrays written, by index
  std::vector<hlo::TensorType> outputTypes;
  // Device-side checks the op's lowering declares. A program built with
  // checks has one more output, after the updated arrays: an s64 vector
  // holding, per check, its failed flag (0 / 1) and then its values.
  int declaredChecks = 0;
  struct Check {
    lower::DeviceCheck::Error error;
    std::string message;  // "{}" for each value
    int numValues = 0;
  };
  std::vector<Check> checks;  // what the checks output reports (checked programs only)
};

// A runtime scalar's host bytes (its type is in OpCall::scalars).
using HostScalar = std::vector<uint8_t>;

// The single-op program of `call`; `withChecks`: with its device-side checks
// (the program launch_blocking mode runs). `constants[k]`, where given, is
// the value of runtime scalar k, compiled into the program (the program then
// takes only the other scalars as parameters, in order).
OpProgram buildOpProgram(const ir::OpCall& call, bool withChecks = false,
                         const std::vector<std::optional<HostScalar>>& constants = {});

}  // namespace torchtpu::exec
