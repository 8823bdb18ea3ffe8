// Strict eager execution of one op call: compile once per distinct call
// (cached), then launch asynchronously.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/device_array.h"
#include "exec/op_program.h"
#include "exec/program_dump.h"
#include "ir/op_call.h"
#include "runtime/compile_options.h"
#include "runtime/event.h"
#include "runtime/executable.h"

namespace torchtpu::exec {

class DeviceEvent;

struct CompiledOp {
  std::string name;      // the op ("aten::add.Tensor")
  ArrayOrigin origin;    // its name, as the origin of the arrays it makes
  std::string spanName;  // "program aten::add.Tensor", its profile span
  OpProgram program;
  // Per runtime scalar of the call: its value where it is compiled into the
  // program (not uploaded at launch), nothing where it is a program input.
  std::vector<std::optional<HostScalar>> constants;
  std::shared_ptr<runtime::Executable> exe;
  std::vector<hlo::TensorType> results;  // the call's expected results

  // An op whose lowering declares device-side checks keeps its call: in
  // launch_blocking mode launch() runs the same call's checked program
  // instead, compiled on first use and kept here (its text, and so its
  // compile-cache key, differs by the checks' outputs).
  std::shared_ptr<const ir::OpCall> call;
  mutable std::mutex checkedMu;
  mutable std::shared_ptr<const CompiledOp> checked;
};

// A device-side check that failed (launch_blocking mode): the error PyTorch's
// CPU kernel raises, as a lower::DeviceCheck describes it.
class DeviceCheckError : public std::runtime_error {
 public:
  DeviceCheckError(lower::DeviceCheck::Error error, const std::string& message)
      : std::runtime_error(message), error_(error) {}
  lower::DeviceCheck::Error error() const { return error_; }

 private:
  lower::DeviceCheck::Error error_;
};

// Compiles the single-op program of `call` (through the compile cache), with
// the runtime scalars that `constants` gives compiled in; the caller keeps it
// (exec/op_calls.h caches it per call signature).
std::shared_ptr<const CompiledOp> compileOp(
    const ir::OpCall& call, const std::vector<std::optional<HostScalar>>& constants = {});
// Whether a call's scalars are the ones `op` was compiled with (where it has
// them compiled in).
bool scalarsMatch(const CompiledOp& op, const std::vector<HostScalar>& scalars);

struct LaunchResult {
  std::vector<ArrayPtr> newResults;     // one per op result with writeBack == -1
  std::vector<ArrayPtr> updatedArrays;  // parallel to program.updatedArrays
};

// Runs a compiled op on `device` with the call's arrays (null for arrays the
// program creates as zeros) and scalars. In launch_blocking mode an op with
// device-side checks runs its checked program, waits, and throws
// DeviceCheckError for the first check that failed (nothing is written then).
// The arrays it makes carry `origin` (the op's name when null).
LaunchResult launch(const CompiledOp& op, const std::vector<ArrayPtr>& arrays,
                    const std::vector<hlo::TensorType>& scalarTypes,
                    const std::vector<HostScalar>& scalars, int device,
                    ArrayOrigin origin = nullptr);

// The executable of a whole program compiled with `options`: compiled
// (through the persistent compile cache) on first use, then kept in memory,
// keyed by the text and the options. `what` names it in slow-compile messages.
// `origin` describes it for TORCHTPU_DUMP_DIR.
std::shared_ptr<runtime::Executable> programFor(const std::string& text, const std::string& what,
                                                const runtime::CompileOptions& options = {},
                                                const ProgramOrigin& origin = {});

// Compiles (cached by text) and runs a whole program; used by copies and
// other runtime-internal programs. Its results carry `origin`.
std::vector<ArrayPtr> runProgram(const std::string& text, const std::vector<ArrayPtr>& args,
                                 int device, const ArrayOrigin& origin = nullptr);

// Remembers a launch's completion event for synchronize() (in launch_blocking
// mode: waits for it now).
void trackLaunch(int device, runtime::Event done);
// Has `event` wait for every program launched on `device` and not yet
// complete (DeviceEvent::expect, then complete() as each one completes).
void whenLaunchedWorkCompletes(int device, const std::shared_ptr<DeviceEvent>& event);

// Waits for every launched program on `device` (-1: all devices).
// `flushAll` false: runs only the calling thread's own traces (flushOwnTraces).
void synchronize(int device, bool flushAll = true);

}  // namespace torchtpu::exec
