// The state of DeferAndFuse traces, shared by the trace (recording and
// flushing) and graph capture (torch.compile), which records a whole graph
// into a trace and keeps the program instead of running it once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/device_array.h"
#include "exec/executor.h"
#include "exec/pending_value.h"
#include "exec/small_ints.h"
#include "hlo/function.h"
#include "ir/op_call.h"

namespace torchtpu::exec::detail {

struct Node {
  // The call and its key, shared with the signature (and every other call of it).
  ir::KeyedCallPtr shared;
  const ir::OpCall& call() const { return shared->call; }
  const std::string& key() const { return shared->key; }
  // Per call array: -1 - p for trace input p, value id >= 0, or kZeroBinding.
  SmallInts arrays;
  int firstScalar = 0;  // the call's scalars are trace scalars [first, first + n)
  SmallInts outputs;    // value ids: new results, then updated arrays
  std::string source;   // the user's Python line, when recorded
};

inline constexpr int kZeroBinding = -1000000000;

struct Trace {
  uint64_t id = 0;
  int device = 0;
  uint64_t owner = 0;  // exec/trace_owner.h
  // Set while a graph is captured into this trace: nothing may flush it.
  bool capturing = false;
  std::vector<ArrayPtr> inputs;
  std::unordered_map<const DeviceArray*, int> inputIndex;
  std::vector<hlo::TensorType> scalarTypes;
  std::vector<HostScalar> scalars;
  std::vector<Node> nodes;
  std::vector<std::weak_ptr<PendingValue>> values;
  std::vector<hlo::TensorType> valueTypes;

  // Drops everything recorded and starts a new trace id (pending values of
  // the old one can no longer be computed).
  void reset();
  // The binding of array `a` as a trace input (-1 - p), added as the next
  // input when the trace does not read it yet.
  int bindInput(const ArrayPtr& a);
};

// Gives pending value `p` its computed array (and the array the shape of the
// tensor it holds, for memory reports).
void resolveValue(PendingValue& p, ArrayPtr array);

// Guards every trace.
std::recursive_mutex& traceMutex();
// The current trace of `device` for the calling thread's owner, or for
// `owner`. Requires traceMutex().
Trace& traceFor(int device);
Trace& traceFor(int device, uint64_t owner);
// Compiles and runs trace `t` (no-op when empty). Requires traceMutex().
// `background`: a new program compiles and launches on a thread of its own
// while the caller goes on (exec/background_flush.h).
void flushLocked(Trace& t, const std::string& reason, bool background = false);

// Runtime scalars travel packed: one 1-D array per element type holds the
// scalars of that type back to back (one host-to-device copy each).
struct ScalarPacking {
  std::vector<runtime::ElementType> groups;    // element type of each packed array
  std::vector<int64_t> groupSize;              // elements in each
  std::vector<std::pair<int, int64_t>> where;  // per scalar: (group, first element)
};
ScalarPacking packScalars(const std::vector<hlo::TensorType>& types);

// Which of a trace's scalars are program inputs (packed) and which are baked
// into the program as constants.
struct ScalarLayout {
  ScalarPacking packing;          // of the runtime scalars, in trace order
  std::vector<int> runtimeIndex;  // per trace scalar: its index among them, or -1
};
// `constant[k]`: scalar k is a constant (empty: none is).
ScalarLayout layoutScalars(const Trace& t, const std::vector<bool>& constant = {});
// The host bytes of packed group g.
std::vector<uint8_t> packedBytes(const Trace& t, const ScalarLayout& layout, size_t g);

// Program parameters: the trace inputs, then one packed array per group.
std::vector<hlo::TensorType> paramTypes(const Trace& t, const ScalarLayout& layout);
// Emits nodes [0, upTo) into fn; returns the value of each trace value id.
// Values in `materialize` (program outputs) that later ops read pass through an
// optimization barrier: XLA then computes them once and later ops read them,
// instead of recomputing a fused producer chain inside each consumer.
std::vector<hlo::Value> emitNodes(hlo::Function& fn, const Trace& t, size_t upTo,
                                  const ScalarLayout& layout,
                                  const std::vector<int>& materialize = {});
// "aten::mm(self: f32[4, 5], mat2: f32[5, 7]) -> f32[4, 7] at train.py:12": a recorded
// op as the user wrote it, for messages.
std::string describe(const Node& node);
// The recorded op whose program does not compile, with its shapes and the
// compiler's message ("" when every prefix compiles).
std::string blame(const Trace& t);

}  // namespace torchtpu::exec::detail
