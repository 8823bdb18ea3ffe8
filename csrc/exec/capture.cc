#include "exec/capture.h"

#include <chrono>
#include <cstring>
#include <optional>

#include "exec/compile_cache.h"
#include "exec/launch.h"
#include "exec/metrics.h"
#include "exec/profile_events.h"
#include "exec/runtime_state.h"
#include "exec/trace.h"
#include "exec/trace_state.h"
#include "hlo/module.h"
#include "runtime/client.h"
#include "runtime/error.h"

namespace torchtpu::exec {
namespace {

struct CaptureState {
  int device = 0;
  uint64_t owner = 0;  // whose trace records the graph
  std::vector<DeviceStorage*> inputs;
  std::vector<ArrayPtr> originals;  // each input's array before the capture
  std::chrono::steady_clock::time_point start;
};

std::optional<CaptureState>& state() {
  static auto* s = new std::optional<CaptureState>();
  return *s;
}

// Puts the input storages back as they were and drops the capture trace.
void restoreInputs(detail::Trace& t) {
  CaptureState& s = *state();
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (s.inputs[i] != nullptr) s.inputs[i]->setArray(s.originals[i]);
  }
  t.reset();
  state().reset();
}

runtime::Error captureError(const std::string& message) {
  return runtime::Error(runtime::ErrorCode::kFailedPrecondition, message);
}

// How a graph's tensor outputs, and the new values of the inputs it writes,
// come out of its program.
struct OutputPlan {
  std::vector<int> programOutputs;  // trace value ids
  std::vector<GraphOutput> outputs;
  std::vector<std::pair<int, int>> mutations;  // (graph input, program output)
};

// Program outputs: graph outputs computed by the trace, then new values of
// graph inputs the graph wrote.
OutputPlan planOutputs(const CaptureState& s, const detail::Trace& t,
                       const std::vector<DeviceStorage*>& outputs) {
  OutputPlan plan;
  std::vector<int>& programOutputs = plan.programOutputs;
  auto outputIndex = [&](int value) {
    for (size_t k = 0; k < programOutputs.size(); ++k) {
      if (programOutputs[k] == value) return static_cast<int>(k);
    }
    programOutputs.push_back(value);
    return static_cast<int>(programOutputs.size()) - 1;
  };
  auto inputOf = [&](const DeviceStorage* storage) {
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      if (s.inputs[i] == storage) return static_cast<int>(i);
    }
    return -1;
  };
  for (DeviceStorage* out : outputs) {
    GraphOutput o;
    if (out == nullptr) {
      plan.outputs.push_back(o);
      continue;
    }
    if (int i = inputOf(out); i >= 0) {
      o.kind = GraphOutput::Kind::kInputStorage;
      o.index = i;
    } else if (PendingPtr p = out->pending()) {
      if (p->trace != t.id) throw captureError("a graph output comes from outside the graph");
      o.kind = GraphOutput::Kind::kValue;
      o.index = outputIndex(p->id);
    } else if (ArrayPtr a = out->array()) {
      o.kind = GraphOutput::Kind::kConstant;
      o.constant = std::move(a);
    }
    plan.outputs.push_back(std::move(o));
  }
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (s.inputs[i] == nullptr || inputOf(s.inputs[i]) != static_cast<int>(i)) continue;
    PendingPtr p = s.inputs[i]->pending();
    if (p && p->trace == t.id) plan.mutations.emplace_back(static_cast<int>(i), outputIndex(p->id));
  }
  return plan;
}

// A graph's runtime scalars: where they go, their packed bytes, and where in
// those each random op's state is.
struct RuntimeScalars {
  detail::ScalarLayout layout;
  std::vector<std::vector<uint8_t>> bytes;       // per group
  std::vector<std::pair<int, size_t>> rngSlots;  // (group, byte offset)
};

// Scalars are constants of the program (a graph's Python numbers are fixed
// by the capture), except the states of random ops, drawn on every run.
RuntimeScalars runtimeScalars(const detail::Trace& t) {
  std::vector<bool> constant(t.scalars.size(), true);
  for (const detail::Node& node : t.nodes) {
    for (const ir::ArgValue& a : node.call().args) {
      if (a.kind == ir::ArgValue::Kind::kRng) constant[node.firstScalar + a.scalar] = false;
    }
  }
  RuntimeScalars out;
  out.layout = detail::layoutScalars(t, constant);
  const detail::ScalarLayout& layout = out.layout;
  for (size_t k = 0; k < layout.packing.groups.size(); ++k) {
    out.bytes.push_back(detail::packedBytes(t, layout, k));
  }
  for (size_t k = 0; k < t.scalars.size(); ++k) {
    const int r = layout.runtimeIndex[k];
    if (r < 0) continue;
    const auto [group, first] = layout.packing.where[r];
    out.rngSlots.emplace_back(group, static_cast<size_t>(first) * 8);
  }
  return out;
}

// Emits the captured trace as graph `name`'s program and compiles it; if that
// fails, puts the inputs back and says which op fails.
std::shared_ptr<runtime::Executable> compileGraph(detail::Trace& t, const std::string& name,
                                                  const std::vector<hlo::TensorType>& paramTypes,
                                                  const detail::ScalarLayout& layout,
                                                  const std::vector<int>& programOutputs) {
  hlo::Module module("graph");
  hlo::Function& fn = module.addFunction("main", paramTypes, true);
  std::vector<hlo::Value> values = detail::emitNodes(fn, t, t.nodes.size(), layout, programOutputs);
  std::vector<hlo::Value> outs;
  for (int v : programOutputs) outs.push_back(values[v]);
  fn.ret(outs);
  try {
    ProgramOrigin origin{"graph", {}};
    if (!programDumpDir().empty()) {
      for (const detail::Node& n : t.nodes) origin.ops.push_back(detail::describe(n));
    }
    return compileCached(module.toText(),
                         "graph '" + name + "' (" + std::to_string(t.nodes.size()) + " ops)", {},
                         origin);
  } catch (const std::exception& e) {
    const std::string culprit = detail::blame(t);
    restoreInputs(t);
    throw runtime::Error(
        runtime::ErrorCode::kInternal,
        "graph '" + name + "' failed to compile" +
            (culprit.empty() ? std::string(": ") + e.what() : "; the op that fails is " + culprit));
  }
}

}  // namespace

bool capturing() {
  std::lock_guard<std::recursive_mutex> lock(detail::traceMutex());
  return state().has_value();
}

void beginCapture(int device, const std::vector<DeviceStorage*>& inputs) {
  std::lock_guard<std::recursive_mutex> lock(detail::traceMutex());
  if (state()) throw captureError("a graph capture is already in progress");
  flushOwnTraces("compile");
  CaptureState s;
  s.device = device;
  s.inputs = inputs;
  s.start = std::chrono::steady_clock::now();
  for (DeviceStorage* in : inputs) s.originals.push_back(in != nullptr ? in->array() : nullptr);
  detail::Trace& t = detail::traceFor(device);
  t.capturing = true;
  s.owner = t.owner;
  state() = std::move(s);
}

void abortCapture() {
  std::lock_guard<std::recursive_mutex> lock(detail::traceMutex());
  if (!state()) return;
  restoreInputs(detail::traceFor(state()->device, state()->owner));
}

std::shared_ptr<CapturedGraph> endCapture(const std::vector<DeviceStorage*>& outputs,
                                          const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(detail::traceMutex());
  if (!state()) throw captureError("no graph capture is in progress");
  CaptureState& s = *state();
  detail::Trace& t = detail::traceFor(s.device, s.owner);
  auto g = std::make_shared<CapturedGraph>();
  g->name_ = name;
  g->origin_ = makeOrigin("compiled graph '" + name + "'");
  g->device_ = s.device;
  g->numOps_ = t.nodes.size();

  // Parameters: trace inputs are graph inputs' arrays or constants.
  for (const ArrayPtr& in : t.inputs) {
    CapturedGraph::Param p;
    for (size_t i = 0; i < s.originals.size() && p.input < 0; ++i) {
      if (s.originals[i] == in) p.input = static_cast<int>(i);
    }
    if (p.input < 0) p.constant = in;
    g->params_.push_back(std::move(p));
  }
  OutputPlan plan = planOutputs(s, t, outputs);
  g->outputs_ = std::move(plan.outputs);
  g->mutations_ = std::move(plan.mutations);

  RuntimeScalars scalars = runtimeScalars(t);
  g->scalarGroups_ = scalars.layout.packing.groups;
  g->scalarBytes_ = std::move(scalars.bytes);
  g->rngSlots_ = std::move(scalars.rngSlots);
  g->paramTypes_ = detail::paramTypes(t, scalars.layout);

  g->exe_ = compileGraph(t, name, g->paramTypes_, scalars.layout, plan.programOutputs);
  metrics().graphCompiles += 1;
  metrics().graphCompileNanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - s.start)
                                     .count();
  restoreInputs(t);
  return g;
}

std::vector<ArrayPtr> CapturedGraph::run(const std::vector<DeviceStorage*>& inputs,
                                         const RngSource& rng) const {
  std::vector<ArrayPtr> args;
  args.reserve(params_.size());
  for (size_t p = 0; p < params_.size(); ++p) {
    if (params_[p].input < 0) {
      args.push_back(params_[p].constant);
      continue;
    }
    const int i = params_[p].input;
    DeviceStorage* storage = static_cast<size_t>(i) < inputs.size() ? inputs[i] : nullptr;
    ArrayPtr a = storage != nullptr ? storage->array() : nullptr;
    if (!a || a->type() != paramTypes_[p]) {
      throw runtime::Error(runtime::ErrorCode::kInvalidArgument,
                           "graph '" + name_ + "': input " + std::to_string(i) +
                               " is not laid out as when the graph was captured");
    }
    args.push_back(std::move(a));
  }
  // Every runtime scalar is a random-op state: each run draws its own.
  std::vector<std::vector<uint8_t>> bytes(scalarGroups_.size());
  std::vector<std::vector<int64_t>> dims(scalarGroups_.size());
  LaunchInputs in;
  in.device = device_;
  for (const auto& a : args) in.arrays.push_back(a.get());
  for (size_t k = 0; k < scalarGroups_.size(); ++k) {
    bytes[k] = scalarBytes_[k];
    for (const auto& [group, byte] : rngSlots_) {
      if (group != static_cast<int>(k)) continue;
      const auto [seed, offset] = rng();
      std::memcpy(bytes[k].data() + byte, &seed, 8);
      std::memcpy(bytes[k].data() + byte + 8, &offset, 8);
    }
    dims[k] = {static_cast<int64_t>(bytes[k].size() / runtime::elementByteSize(scalarGroups_[k]))};
    in.host.push_back({scalarGroups_[k], &dims[k], bytes[k].data(), bytes[k].size()});
  }
  LaunchSpec spec;
  spec.exe = exe_.get();
  const std::string what = "graph " + name_;
  spec.what = what;
  spec.origin = origin_;
  std::vector<ArrayPtr> produced = launchProgram(spec, in);
  metrics().graphRuns += 1;
  for (const auto& [input, output] : mutations_) inputs[input]->setArray(produced[output]);
  std::vector<ArrayPtr> out;
  out.reserve(outputs_.size());
  for (const GraphOutput& o : outputs_) {
    switch (o.kind) {
      case GraphOutput::Kind::kValue:
        out.push_back(produced[o.index]);
        break;
      case GraphOutput::Kind::kConstant:
        out.push_back(o.constant);
        break;
      default:
        out.push_back(nullptr);
    }
  }
  return out;
}

}  // namespace torchtpu::exec
