#include "exec/trace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "exec/background_flush.h"
#include "exec/compile_cache.h"
#include "exec/device_memory.h"
#include "exec/launch.h"
#include "exec/metrics.h"
#include "exec/op_program.h"
#include "exec/profile_events.h"
#include "exec/program_key.h"
#include "exec/program_limit.h"
#include "exec/recompile_explainer.h"
#include "exec/runtime_state.h"
#include "exec/trace_owner.h"
#include "exec/trace_state.h"
#include "exec/trace_state_init.h"
#include "hlo/module.h"
#include "lower/core/lowering.h"
#include "runtime/client.h"

namespace torchtpu::exec {
namespace detail {

void Trace::reset() {
  nodes.clear();
  values.clear();
  valueTypes.clear();
  inputs.clear();
  inputIndex.clear();
  scalars.clear();
  scalarTypes.clear();
  capturing = false;
  id = 0;  // traceFor() gives it the next id
}

void resolveValue(PendingValue& p, ArrayPtr array) {
  p.resolved = std::move(array);
  if (p.hasShape) labelShape(*p.resolved, p.shape);
}

int Trace::bindInput(const ArrayPtr& a) {
  // Looked up before inserting: emplace allocates a map node first.
  auto it = inputIndex.find(a.get());
  if (it == inputIndex.end()) {
    it = inputIndex.emplace(a.get(), static_cast<int>(inputs.size())).first;
    inputs.push_back(a);
  }
  return -1 - it->second;
}

namespace {

struct FusedProgram {
  std::shared_ptr<runtime::Executable> exe;
  std::vector<int> outputs;  // value ids returned, in order
  bool compiled = false;     // compiled when made (not loaded from the disk cache)
};

uint64_t nextTraceId = 1;
// Per (device, owner).
std::map<std::pair<int, uint64_t>, Trace>& traces() {
  static auto* t = new std::map<std::pair<int, uint64_t>, Trace>();
  return *t;
}
// The fused programs by key; guarded by programCacheMutex() (background
// flushes store theirs without the trace lock).
std::mutex& programCacheMutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::unordered_map<std::string, std::shared_ptr<const FusedProgram>>& programCache() {
  static auto* c = new std::unordered_map<std::string, std::shared_ptr<const FusedProgram>>();
  return *c;
}

}  // namespace

std::recursive_mutex& traceMutex() {
  static auto* m = new std::recursive_mutex();
  return *m;
}

Trace& traceFor(int device, uint64_t owner) {
  Trace& t = traces()[{device, owner}];
  if (t.id == 0) {
    t.id = nextTraceId++;
    t.device = device;
    t.owner = owner;
  }
  return t;
}

Trace& traceFor(int device) { return traceFor(device, currentTraceOwner().id); }

ScalarPacking packScalars(const std::vector<hlo::TensorType>& types) {
  ScalarPacking p;
  for (const auto& t : types) {
    int g = -1;
    for (size_t k = 0; k < p.groups.size(); ++k) {
      if (p.groups[k] == t.dtype) g = static_cast<int>(k);
    }
    if (g < 0) {
      g = static_cast<int>(p.groups.size());
      p.groups.push_back(t.dtype);
      p.groupSize.push_back(0);
    }
    p.where.emplace_back(g, p.groupSize[g]);
    p.groupSize[g] += t.numElements();
  }
  return p;
}

namespace {
// What made each live output: the op that wrote it last (and its Python line,
// when recorded), for memory reports.
std::vector<ArrayOrigin> outputOrigins(const Trace& t, const std::vector<PendingPtr>& live) {
  std::unordered_map<int, const Node*> producer;
  producer.reserve(live.size());
  for (const PendingPtr& p : live) producer.emplace(p->id, nullptr);
  for (const Node& n : t.nodes) {
    for (int v : n.outputs) {
      auto it = producer.find(v);
      if (it != producer.end()) it->second = &n;
    }
  }
  std::unordered_map<const Node*, ArrayOrigin> byNode;
  std::vector<ArrayOrigin> out;
  out.reserve(live.size());
  for (const PendingPtr& p : live) {
    const Node* n = producer[p->id];
    ArrayOrigin& origin = byNode[n];
    if (origin == nullptr && n != nullptr) origin = makeOrigin(n->call().op, n->source);
    out.push_back(origin);
  }
  return out;
}
}  // namespace

ScalarLayout layoutScalars(const Trace& t, const std::vector<bool>& constant) {
  ScalarLayout layout;
  std::vector<hlo::TensorType> runtimeTypes;
  for (size_t k = 0; k < t.scalarTypes.size(); ++k) {
    if (!constant.empty() && constant[k]) {
      layout.runtimeIndex.push_back(-1);
    } else {
      layout.runtimeIndex.push_back(static_cast<int>(runtimeTypes.size()));
      runtimeTypes.push_back(t.scalarTypes[k]);
    }
  }
  layout.packing = packScalars(runtimeTypes);
  return layout;
}

std::vector<uint8_t> packedBytes(const Trace& t, const ScalarLayout& layout, size_t g) {
  std::vector<uint8_t> bytes;
  for (size_t k = 0; k < t.scalars.size(); ++k) {
    const int r = layout.runtimeIndex[k];
    if (r >= 0 && layout.packing.where[r].first == static_cast<int>(g)) {
      bytes.insert(bytes.end(), t.scalars[k].begin(), t.scalars[k].end());
    }
  }
  return bytes;
}

std::vector<hlo::TensorType> paramTypes(const Trace& t, const ScalarLayout& layout) {
  const ScalarPacking& packing = layout.packing;
  std::vector<hlo::TensorType> params;
  for (const auto& in : t.inputs) params.push_back(in->type());
  for (size_t g = 0; g < packing.groups.size(); ++g) {
    params.emplace_back(packing.groups[g], std::vector<int64_t>{packing.groupSize[g]});
  }
  return params;
}

// Emits nodes [0, upTo) into fn; returns the value of each trace value id.
std::vector<hlo::Value> emitNodes(hlo::Function& fn, const Trace& t, size_t upTo,
                                  const ScalarLayout& layout, const std::vector<int>& materialize) {
  std::vector<hlo::Value> values(t.values.size());
  // Per value: whether it is an output that a later op reads.
  std::vector<bool> barrier(t.values.size(), false);
  if (!materialize.empty()) {
    std::vector<bool> read(t.values.size(), false);
    for (size_t n = 0; n < upTo; ++n) {
      for (int b : t.nodes[n].arrays) {
        if (b >= 0) read[b] = true;
      }
    }
    for (int v : materialize) barrier[v] = read[v];
  }
  const int numInputs = static_cast<int>(t.inputs.size());
  for (size_t n = 0; n < upTo; ++n) {
    const Node& node = t.nodes[n];
    std::vector<hlo::Value> arrays;
    for (size_t k = 0; k < node.arrays.size(); ++k) {
      const int b = node.arrays[k];
      if (b == kZeroBinding) {
        arrays.push_back(zeros(fn, node.call().arrays[k]));
      } else if (b < 0) {
        arrays.push_back(fn.param(-1 - b));
      } else {
        arrays.push_back(values[b]);
      }
    }
    std::vector<hlo::Value> scalars;
    for (size_t k = 0; k < node.call().scalars.size(); ++k) {
      const hlo::TensorType& type = node.call().scalars[k];
      const int r = layout.runtimeIndex[node.firstScalar + k];
      if (r < 0) {
        scalars.push_back(bakedScalar(fn, type, t.scalars[node.firstScalar + k].data()));
        continue;
      }
      const auto [g, first] = layout.packing.where[r];
      hlo::Value packed = fn.param(numInputs + g);
      hlo::Value v = fn.slice(packed, {first}, {first + type.numElements()}, {1});
      scalars.push_back(fn.reshape(v, type.dims));
    }
    EmittedOp e = emitOpCall(fn, node.call(), arrays, scalars);
    size_t o = 0;
    for (const auto& v : e.newResults) values[node.outputs[o++]] = v;
    for (const auto& v : e.updatedValues) values[node.outputs[o++]] = v;
    for (int v : node.outputs) {
      if (barrier[v]) values[v] = fn.optimizationBarrier({values[v]})[0];
    }
  }
  return values;
}

std::string describe(const Node& node) {
  const ir::OpCall& call = node.call();
  std::string out = call.op + "(";
  for (size_t k = 0; k < call.args.size(); ++k) {
    const ir::ArgValue& a = call.args[k];
    if (a.kind != ir::ArgValue::Kind::kTensor || !a.tensor.present()) continue;
    if (out.back() != '(') out += ", ";
    out += call.argNames[k] + ": " + std::string(runtime::elementTypeName(a.tensor.dtype)) +
           hlo::dimsStr(a.tensor.sizes);
  }
  out += ")";
  bool first = true;
  for (const auto& r : call.results) {
    out += (first ? " -> " : ", ") + std::string(runtime::elementTypeName(r.dtype)) +
           hlo::dimsStr(r.dims);
    first = false;
  }
  if (!node.source.empty()) out += " at " + node.source;
  return out;
}

std::string blame(const Trace& t) {
  const ScalarLayout layout = layoutScalars(t);
  for (size_t n = 1; n <= t.nodes.size(); ++n) {
    try {
      hlo::Module m("probe");
      hlo::Function& fn = m.addFunction("main", paramTypes(t, layout), true);
      std::vector<hlo::Value> values = emitNodes(fn, t, n, layout);
      const Node& node = t.nodes[n - 1];
      std::vector<hlo::Value> outs;
      for (int v : node.outputs) outs.push_back(values[v]);
      fn.ret(outs);
      client()->compile(m.toText());
    } catch (const std::exception& e) {
      return describe(t.nodes[n - 1]) + ": " + e.what();
    }
  }
  return "";
}

namespace {

FlushPlan planFlush(const Trace& t) {
  FlushPlan plan;
  for (size_t v = 0; v < t.values.size(); ++v) {
    if (PendingPtr p = t.values[v].lock()) {
      plan.outputs.push_back(static_cast<int>(v));
      plan.live.push_back(std::move(p));
    }
  }
  std::vector<bool> taken(plan.outputs.size(), false);
  for (size_t p = 0; p < t.inputs.size(); ++p) {
    if (useCountOutsideBackground(t.inputs[p]) != 1) continue;
    const hlo::TensorType type = t.inputs[p]->type();
    for (size_t o = 0; o < plan.outputs.size(); ++o) {
      if (!taken[o] && t.valueTypes[plan.outputs[o]] == type) {
        taken[o] = true;
        plan.donations.emplace_back(static_cast<int>(p), static_cast<int>(o));
        break;
      }
    }
  }
  return plan;
}

// Before a new program is built: the growth watcher and, when on, the
// recompile explainer look at the trace.
void noteNewProgram(const Trace& t, const FlushPlan& plan, const ProgramKey& k,
                    const std::string& reason) {
  TraceSummary summary;
  summary.device = t.device;
  for (const Node& n : t.nodes)
    summary.nodes.push_back({&n.call(), &n.key(), &n.arrays, &n.source});
  for (const auto& in : t.inputs) summary.inputTypes.push_back(in->type().str());
  for (bool c : k.constant) summary.scalarIsInput.push_back(!c);
  summary.outputs = "|";
  for (int v : plan.outputs) summary.outputs += std::to_string(v) + ",";
  summary.outputs += '|';
  for (auto [p, o] : plan.donations) {
    summary.outputs += std::to_string(p) + ":" + std::to_string(o) + ",";
  }
  summary.reason = reason;
  watchTraceGrowth(summary);
  if (explainRecompiles()) explainTraceCompile(summary);
}

// Builds and compiles the fused program of a trace. A failure (an op the
// builder or the compiler rejects) drops the trace, or every later flush
// would fail again, and names the op that fails.
std::shared_ptr<const FusedProgram> compileTrace(Trace& t, const FlushPlan& plan,
                                                 const ScalarLayout& layout) {
  auto fused = std::make_shared<FusedProgram>();
  fused->outputs = plan.outputs;
  try {
    hlo::Module module("fused");
    hlo::Function& fn = module.addFunction("main", paramTypes(t, layout), true);
    std::vector<hlo::Value> values = emitNodes(fn, t, t.nodes.size(), layout, plan.outputs);
    std::vector<hlo::Value> outs;
    for (int v : plan.outputs) outs.push_back(values[v]);
    fn.ret(outs);
    for (auto [p, o] : plan.donations) fn.aliasParamToOutput(p, o);
    const std::string text = module.toText();
    const int64_t before = metrics().compiles.load();
    ProgramOrigin origin{"trace", {}};
    if (!programDumpDir().empty()) {
      for (const Node& n : t.nodes) origin.ops.push_back(describe(n));
    }
    fused->exe = compileCached(
        text, "a fused program of " + std::to_string(t.nodes.size()) + " ops", {}, origin);
    fused->compiled = metrics().compiles.load() > before;
    if (fused->compiled) {
      static std::atomic<bool> compiledBefore{false};
      if (compiledBefore.exchange(true)) metrics().recompiles += 1;
    }
  } catch (const std::exception& e) {
    const std::string culprit = blame(t);
    t.reset();  // its pending values are lost: reading them raises
    throw runtime::Error(
        runtime::ErrorCode::kInternal,
        "a fused program failed to compile" +
            (culprit.empty() ? std::string(": ") + e.what() : "; the op that fails is " + culprit) +
            (sourceLinesEnabled() ? ""
                                  : " (TORCHTPU_SOURCE_LINES=1 adds the Python "
                                    "line of each op to this message)"));
  }
  return fused;
}

// The cached program of `key`, or null.
std::shared_ptr<const FusedProgram> cachedProgram(const std::string& key) {
  std::lock_guard<std::mutex> lock(programCacheMutex());
  auto it = programCache().find(key);
  return it == programCache().end() ? nullptr : it->second;
}

void storeProgram(const std::string& key, std::shared_ptr<const FusedProgram> fused) {
  std::lock_guard<std::mutex> lock(programCacheMutex());
  makeRoomForProgram(programCache());
  programCache()[key] = std::move(fused);
}

// The cached program of `k` (waiting for a background flush that builds
// it), or a new one.
std::shared_ptr<const FusedProgram> fusedProgramFor(Trace& t, const FlushPlan& plan,
                                                    const ProgramKey& k, const ScalarLayout& layout,
                                                    const std::string& reason) {
  std::shared_ptr<const FusedProgram> fused = cachedProgram(k.key);
  if (fused == nullptr) {
    if (auto building = backgroundFlushOf(k.key)) {
      building->join();
      fused = cachedProgram(k.key);
    }
  }
  if (fused != nullptr) {
    metrics().cacheHits += 1;
    return fused;
  }
  noteNewProgram(t, plan, k, reason);
  fused = compileTrace(t, plan, layout);
  storeProgram(k.key, fused);
  return fused;
}

// An out-of-memory message names the op that makes the largest value of the
// program: the likely culprit.
std::string withLargestValue(const Trace& t, std::string message) {
  const Node* largest = nullptr;
  int64_t largestBytes = -1;
  for (const Node& n : t.nodes) {
    for (int v : n.outputs) {
      const int64_t bytes = t.valueTypes[v].numElements() *
                            static_cast<int64_t>(runtime::elementByteSize(t.valueTypes[v].dtype));
      if (bytes > largestBytes) {
        largestBytes = bytes;
        largest = &n;
      }
    }
  }
  if (largest == nullptr) return message;
  return message + "; the largest value of this fused program (" + std::to_string(largestBytes) +
         " bytes) comes from " + describe(*largest);
}

// Launches the program with the trace's inputs and runtime scalars; a
// failure drops the trace.
std::vector<ArrayPtr> launchTrace(Trace& t, const FusedProgram& program, const FlushPlan& plan,
                                  const ScalarLayout& layout, const std::string& reason) {
  const ScalarPacking& packing = layout.packing;
  std::vector<std::vector<uint8_t>> bytes(packing.groups.size());
  std::vector<std::vector<int64_t>> dims(packing.groups.size());
  LaunchInputs in;
  in.device = t.device;
  for (const auto& a : t.inputs) in.arrays.push_back(a.get());
  for (size_t g = 0; g < packing.groups.size(); ++g) {
    bytes[g] = packedBytes(t, layout, g);
    dims[g] = {packing.groupSize[g]};
    in.host.push_back({packing.groups[g], &dims[g], bytes[g].data(), bytes[g].size()});
  }
  const std::string what = "fused program (" + std::to_string(t.nodes.size()) + " ops)";
  LaunchSpec spec;
  spec.exe = program.exe.get();
  spec.what = what;
  if (profiling()) {
    spec.details = {{"ops", std::to_string(t.nodes.size()), false}, {"reason", reason, true}};
  }
  spec.origins = outputOrigins(t, plan.live);
  try {
    return launchProgram(spec, in);
  } catch (const runtime::Error& e) {
    std::string message = e.message();
    if (e.code() == runtime::ErrorCode::kResourceExhausted) {
      message = withLargestValue(t, std::move(message));
    }
    t.reset();  // its pending values are lost: reading them raises
    throw runtime::Error(e.code(), message);
  } catch (...) {
    t.reset();
    throw;
  }
}

}  // namespace

namespace {
void runTrace(Trace& t, const std::string& reason, bool background);
}  // namespace

void flushLocked(Trace& t, const std::string& reason, bool background) {
  if (t.nodes.empty()) return;
  HostSpan span(SpanKind::kFlush, "tpu::flush", t.device);
  if (span.active()) {
    span.detail("reason", reason);
    span.detail("ops", static_cast<int64_t>(t.nodes.size()));
  }
  if (t.capturing) {
    throw runtime::Error(
        runtime::ErrorCode::kFailedPrecondition,
        "a graph being captured for torch.compile needs a value on the host (" + reason + ")");
  }
  if (std::optional<StateInit> init = splitStateInit(t)) {
    runTrace(init->trace, reason, false);
    replaceStateInit(t, std::move(*init));
  }
  runTrace(t, reason, background && backgroundCompileEnabled());
  metrics().addFlush(reason);
}

namespace {

// A flush whose program is new, run on a thread of its own: its live values
// are late arrays now, settled when the program, once compiled, launches.
// The trace moves to that thread; the caller resets what is left of it.
void runInBackground(Trace& t, const FlushPlan& plan, const ProgramKey& k,
                     const ScalarLayout& layout, const std::string& reason) {
  noteNewProgram(t, plan, k, reason);
  struct State {
    Trace trace;
    FlushPlan plan;  // without `live`: the flush holds no pending value
    ScalarLayout layout;
    std::vector<ArrayPtr> late;
  };
  auto state = std::make_shared<State>();
  state->plan.outputs = plan.outputs;
  state->plan.donations = plan.donations;
  state->layout = layout;
  std::shared_ptr<BackgroundFlush> flush = BackgroundFlush::make(k.key);
  const std::vector<ArrayOrigin> origins = outputOrigins(t, plan.live);
  std::vector<const DeviceArray*> held;
  for (const ArrayPtr& in : t.inputs) held.push_back(in.get());
  for (size_t o = 0; o < plan.live.size(); ++o) {
    state->late.push_back(
        std::make_shared<DeviceArray>(t.valueTypes[plan.outputs[o]], t.device, flush, origins[o]));
    held.push_back(state->late.back().get());
  }
  const auto ops = static_cast<int64_t>(t.nodes.size());
  state->trace = std::move(t);
  auto work = [state, key = k.key, reason, ops] {
    // Its compile and launch show under a flush span of this thread.
    HostSpan span(SpanKind::kFlush, "tpu::flush", state->trace.device);
    if (span.active()) {
      span.detail("reason", reason + " (background)");
      span.detail("ops", ops);
    }
    std::shared_ptr<const FusedProgram> program =
        compileTrace(state->trace, state->plan, state->layout);
    if (program->compiled) metrics().backgroundCompiles += 1;
    storeProgram(key, program);
    std::vector<ArrayPtr> made =
        launchTrace(state->trace, *program, state->plan, state->layout, reason);
    for (size_t o = 0; o < made.size(); ++o) settleLate(*state->late[o], *made[o]);
    metrics().fusedOps += ops;
  };
  auto release = [state] {
    state->trace.reset();
    state->late.clear();
  };
  for (size_t o = 0; o < plan.live.size(); ++o) resolveValue(*plan.live[o], state->late[o]);
  flush->start(std::move(work), std::move(release), std::move(held));
}

// Compiles (or finds) and launches the program of `t`, resolves its live
// values and starts the next trace. `background`: a program that is not built
// yet compiles and launches on a thread of its own (runInBackground).
void runTrace(Trace& t, const std::string& reason, bool background) {
  const FlushPlan plan = planFlush(t);
  const ProgramKey k = programKey(t, plan);
  const ScalarLayout layout = layoutScalars(t, k.constant);
  if (background && cachedProgram(k.key) == nullptr && backgroundFlushOf(k.key) == nullptr) {
    runInBackground(t, plan, k, layout, reason);
    t.reset();
    return;
  }
  const std::shared_ptr<const FusedProgram> program = fusedProgramFor(t, plan, k, layout, reason);
  for (auto [p, o] : plan.donations) {
    // A donated buffer that a background flush still reads: it launches first.
    if (heldInBackground(t.inputs[p].get())) {
      joinBackgroundFlushes();
      break;
    }
  }
  std::vector<ArrayPtr> produced = launchTrace(t, *program, plan, layout, reason);
  metrics().fusedOps += static_cast<int64_t>(t.nodes.size());
  for (size_t o = 0; o < plan.live.size(); ++o) resolveValue(*plan.live[o], std::move(produced[o]));
  t.reset();
}

}  // namespace

}  // namespace detail

using detail::flushLocked;
using detail::kZeroBinding;
using detail::Node;
using detail::Trace;
using detail::traceFor;
using detail::traceMutex;
using detail::traces;

void resolvePending(const PendingPtr& value) {
  std::lock_guard<std::recursive_mutex> lock(traceMutex());
  if (value->resolved) return;
  auto it = traces().find({value->device, value->owner});
  if (it == traces().end() || it->second.id != value->trace) {
    throw runtime::Error(runtime::ErrorCode::kInternal,
                         "a deferred value was lost (its trace is gone)");
  }
  detail::flushLocked(it->second, "value needed");
}

bool sourceLinesEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TORCHTPU_SOURCE_LINES");
    return v != nullptr && std::string(v) == "1";
  }();
  return enabled;
}

RecordedOutputs recordOpCall(const ir::KeyedCallPtr& shared, std::vector<ArrayBinding> arrays,
                             std::vector<HostScalar> scalars, int device, std::string source) {
  const ir::OpCall& call = shared->call;
  const uint64_t owner = currentTraceOwner().id;
  std::lock_guard<std::recursive_mutex> lock(traceMutex());
  Trace* t = &traceFor(device, owner);
  // Cut where the op stream starts to repeat (a loop's next iteration), or
  // when the trace is full.
  if (!t->nodes.empty() && !t->capturing) {
    bool repeats = false;
    if (t->nodes.size() >= kMinLoopOps) {
      // One of the trace's first ops comes again (the first ones may be
      // set-up work that precedes the loop).
      for (size_t k = 0; k < std::min<size_t>(8, t->nodes.size()) && !repeats; ++k) {
        const ir::KeyedCallPtr& other = t->nodes[k].shared;
        repeats = other == shared || other->key == shared->key;
      }
    }
    if (t->nodes.size() >= kMaxTraceOps || repeats) {
      flushLocked(*t, t->nodes.size() >= kMaxTraceOps ? "size limit" : "loop");
      t = &traceFor(device, owner);  // the next trace (a new id)
    }
  }
  Node node;
  node.source = std::move(source);
  node.arrays.reserve(arrays.size());
  for (size_t k = 0; k < arrays.size(); ++k) {
    ArrayBinding& b = arrays[k];
    if (b.kind == ArrayBinding::Kind::kPending && b.pending->resolved) {
      b.kind = ArrayBinding::Kind::kArray;
      b.array = b.pending->resolved;
    }
    switch (b.kind) {
      case ArrayBinding::Kind::kZero:
        node.arrays.push_back(kZeroBinding);
        break;
      case ArrayBinding::Kind::kPending:
        if (b.pending->trace != t->id) {
          // From another device's trace: compute it first.
          resolvePending(b.pending);
          b.array = b.pending->resolved;
        } else {
          node.arrays.push_back(b.pending->id);
          break;
        }
        [[fallthrough]];
      case ArrayBinding::Kind::kArray:
        node.arrays.push_back(t->bindInput(b.array));
        break;
    }
  }
  node.firstScalar = static_cast<int>(t->scalars.size());
  for (size_t k = 0; k < scalars.size(); ++k) {
    t->scalars.push_back(std::move(scalars[k]));
    t->scalarTypes.push_back(call.scalars[k]);
  }

  RecordedOutputs out;
  out.updatedArrayIndex = updatedArrayOrder(call);
  size_t numNew = 0;
  for (size_t j = 0; j < call.results.size(); ++j) {
    if (j >= call.writeBack.size() || call.writeBack[j].arg == -1) ++numNew;
  }
  out.newResults.reserve(numNew);
  out.updatedArrays.reserve(out.updatedArrayIndex.size());
  node.outputs.reserve(numNew + out.updatedArrayIndex.size());
  auto newValue = [&](hlo::TensorType type) {
    auto p = std::make_shared<PendingValue>();
    t->valueTypes.push_back(type);
    p->type = std::move(type);
    p->trace = t->id;
    p->id = static_cast<int>(t->values.size());
    p->device = device;
    p->owner = owner;
    t->values.push_back(p);
    node.outputs.push_back(p->id);
    return p;
  };
  for (size_t j = 0; j < call.results.size(); ++j) {
    if (j >= call.writeBack.size() || call.writeBack[j].arg == -1) {
      out.newResults.push_back(newValue(call.storedType(j)));
    }
  }
  for (int a : out.updatedArrayIndex) out.updatedArrays.push_back(newValue(call.arrays[a]));
  node.shared = shared;
  t->nodes.push_back(std::move(node));
  return out;
}

void flushTraces(const std::string& reason, int device) {
  std::lock_guard<std::recursive_mutex> lock(traceMutex());
  for (auto& [at, t] : traces()) {
    if (device < 0 || at.first == device) flushLocked(t, reason);
  }
  // Forget the traces of owners that are done (threads that ended).
  std::erase_if(traces(),
                [](const auto& e) { return e.second.nodes.empty() && !e.second.capturing; });
}

void flushOwnTraces(const std::string& reason, bool background) {
  const uint64_t owner = currentTraceOwner().id;
  std::lock_guard<std::recursive_mutex> lock(traceMutex());
  for (auto& [at, t] : traces()) {
    if (at.second == owner) flushLocked(t, reason, background);
  }
}

namespace {

// Ops recorded and not yet flushed, by `owner` or (nullopt) by everyone.
size_t countPending(std::optional<uint64_t> owner) {
  std::lock_guard<std::recursive_mutex> lock(traceMutex());
  size_t n = 0;
  for (const auto& [at, t] : traces()) {
    if (!owner || at.second == *owner) n += t.nodes.size();
  }
  return n;
}

}  // namespace

size_t pendingOwnOps() { return countPending(currentTraceOwner().id); }

size_t pendingOps() { return countPending(std::nullopt); }

}  // namespace torchtpu::exec
