// DeferAndFuse: op calls recorded into a trace instead of launched, then cut
// and compiled as one program (cached by the trace's structure) when a value
// is needed. Only values that a storage still references become outputs;
// inputs whose storage was overwritten are donated to outputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exec/device_array.h"
#include "exec/executor.h"
#include "exec/pending_value.h"
#include "ir/op_call.h"

namespace torchtpu::exec {

// Where a recorded call's array k comes from.
struct ArrayBinding {
  enum class Kind { kArray, kPending, kZero } kind = Kind::kZero;
  ArrayPtr array;      // kArray
  PendingPtr pending;  // kPending (a value of the current trace)
};

struct RecordedOutputs {
  std::vector<PendingPtr> newResults;
  std::vector<PendingPtr> updatedArrays;  // parallel to updatedArrayIndex
  std::vector<int> updatedArrayIndex;     // updatedArrayOrder(call): the call arrays updated
};

// Records a call of `call` (shared with the signature; these arrays and runtime
// scalars) into the calling thread owner's current trace of `device` (flushing first where the op
// stream starts to repeat or the trace is full). `source`: the user's Python line that called the
// op (for error messages; empty unless source lines are recorded, see sourceLinesEnabled()).
RecordedOutputs recordOpCall(const ir::KeyedCallPtr& call, std::vector<ArrayBinding> arrays,
                             std::vector<HostScalar> scalars, int device, std::string source = {});

// Whether recorded ops keep their Python source line (TORCHTPU_SOURCE_LINES=1;
// off by default: looking it up costs about a microsecond per op).
bool sourceLinesEnabled();

// Runs everything recorded on `device` (-1: all devices), by every thread.
// `reason` is counted in metrics.
void flushTraces(const std::string& reason, int device = -1);

// Runs what the calling thread's owner recorded (exec/trace_owner.h), on every
// device; other threads' traces are left to grow (cutting them where they are
// would give programs that never come again).
// `background`: programs not built yet compile on a thread of their own while
// the caller goes on recording (the cut where a backward pass starts; see
// exec/background_flush.h).
void flushOwnTraces(const std::string& reason, bool background = false);
// Ops recorded and not yet run by the calling thread (every device).
size_t pendingOwnOps();

// Number of ops recorded and not yet flushed.
size_t pendingOps();

// Ops recorded per trace before a forced flush.
inline constexpr size_t kMaxTraceOps = 2000;
// The loop detector cuts a trace of at least this many ops where one of its
// first ops comes again: the cut points of a periodic op stream then repeat, so every
// cut-off program is the same cached one, while short bodies (a chain of
// elementwise ops in a Python loop) still fuse many iterations together.
inline constexpr size_t kMinLoopOps = 128;

}  // namespace torchtpu::exec
