#include "exec/executor.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "exec/background_flush.h"
#include "exec/compile_cache.h"
#include "exec/device_event.h"
#include "exec/launch.h"
#include "exec/metrics.h"
#include "exec/profile_events.h"
#include "exec/program_limit.h"
#include "exec/recompile_explainer.h"
#include "exec/runtime_state.h"
#include "exec/trace.h"
#include "runtime/client.h"

namespace torchtpu::exec {
namespace {

std::mutex cacheMu;
std::unordered_map<std::string, std::shared_ptr<runtime::Executable>>& textCache() {
  static auto* c = new std::unordered_map<std::string, std::shared_ptr<runtime::Executable>>();
  return *c;
}

// Completion events of launched programs, for synchronize().
std::mutex pendingMu;
std::deque<std::pair<int, runtime::Event>> pending;

}  // namespace

void trackLaunch(int device, runtime::Event done) {
  if (launchMode() == LaunchMode::kLaunchBlocking) {
    done.await();
    return;
  }
  std::lock_guard<std::mutex> lock(pendingMu);
  pending.emplace_back(device, std::move(done));
  while (pending.size() > 256) {  // keep the list short: drop finished work
    if (!pending.front().second.isReady()) {
      pending.front().second.await();
    }
    pending.pop_front();
  }
}

void whenLaunchedWorkCompletes(int device, const std::shared_ptr<DeviceEvent>& event) {
  std::lock_guard<std::mutex> lock(pendingMu);
  for (const auto& [d, done] : pending) {
    if (d != device || done.isReady()) continue;
    event->expect();
    done.onReady([event](const std::optional<runtime::Error>&) { event->complete(); });
  }
}

namespace {

std::shared_ptr<CompiledOp> compileNew(const ir::OpCall& call, bool withChecks,
                                       const std::vector<std::optional<HostScalar>>& constants) {
  auto op = std::make_shared<CompiledOp>();
  op->constants = constants;
  op->name = call.op;
  op->origin = makeOrigin(call.op);
  op->spanName = "program " + call.op;
  op->program = buildOpProgram(call, withChecks, constants);
  op->results = call.results;
  op->exe =
      compileCached(op->program.text, withChecks ? call.op + " (with device-side checks)" : call.op,
                    {}, ProgramOrigin{"op", {call.op}});
  if (!withChecks && op->program.declaredChecks > 0) {
    op->call = std::make_shared<const ir::OpCall>(call);
  }
  return op;
}

// The checked program of an op that declares checks (compiled on first use).
const CompiledOp& checkedVariant(const CompiledOp& op) {
  std::lock_guard<std::mutex> lock(op.checkedMu);
  if (!op.checked) op.checked = compileNew(*op.call, /*withChecks=*/true, op.constants);
  return *op.checked;
}

// Reads a checked program's checks output and throws for the first failure.
void raiseFailedCheck(const CompiledOp& op, const runtime::Buffer& out) {
  std::vector<int64_t> v(static_cast<size_t>(out.numElements()));
  out.copyToHost(v.data(), v.size() * sizeof(int64_t));
  metrics().deviceToHostBytes += static_cast<int64_t>(v.size() * sizeof(int64_t));
  size_t at = 0;
  for (const OpProgram::Check& check : op.program.checks) {
    const bool failed = v[at] != 0;
    if (failed) {
      std::string message;
      size_t next = 0;
      int value = 0;
      for (size_t p; (p = check.message.find("{}", next)) != std::string::npos; next = p + 2) {
        message += check.message.substr(next, p - next);
        message += value < check.numValues ? std::to_string(v[at + 1 + value++]) : "{}";
      }
      message += check.message.substr(next);
      throw DeviceCheckError(check.error, message);
    }
    at += 1 + static_cast<size_t>(check.numValues);
  }
}

}  // namespace

std::shared_ptr<const CompiledOp> compileOp(
    const ir::OpCall& call, const std::vector<std::optional<HostScalar>>& constants) {
  return compileNew(call, /*withChecks=*/false, constants);
}

bool scalarsMatch(const CompiledOp& op, const std::vector<HostScalar>& scalars) {
  for (size_t k = 0; k < op.constants.size(); ++k) {
    if (op.constants[k] && (k >= scalars.size() || *op.constants[k] != scalars[k])) return false;
  }
  return true;
}

LaunchResult launch(const CompiledOp& op0, const std::vector<ArrayPtr>& arrays,
                    const std::vector<hlo::TensorType>& scalarTypes,
                    const std::vector<HostScalar>& scalars, int device, ArrayOrigin origin) {
  // launch_blocking mode runs the op's checked program, when it has checks.
  const bool checked = op0.call != nullptr && launchMode() == LaunchMode::kLaunchBlocking;
  const CompiledOp& op = checked ? checkedVariant(op0) : op0;
  LaunchInputs in;
  in.device = device;
  in.arrays.reserve(arrays.size());
  for (const ArrayPtr& a : arrays) in.arrays.push_back(a.get());  // null: zeros the program makes
  in.host.reserve(scalars.size());
  for (size_t k = 0; k < scalars.size(); ++k) {
    if (k < op.constants.size() && op.constants[k]) continue;  // compiled in
    in.host.push_back(
        {scalarTypes[k].dtype, &scalarTypes[k].dims, scalars[k].data(), scalars[k].size()});
  }
  LaunchSpec spec;
  spec.exe = op.exe.get();
  spec.what = op.spanName;
  spec.origin = origin != nullptr ? std::move(origin) : op0.origin;
  std::vector<ArrayPtr> outputs = launchProgram(spec, in);
  if (checked) {
    raiseFailedCheck(op, outputs.back()->buffer());
    outputs.pop_back();
  }
  LaunchResult out;
  const auto numNew = static_cast<std::ptrdiff_t>(op.program.numNewResults);
  out.newResults.assign(outputs.begin(), outputs.begin() + numNew);
  out.updatedArrays.assign(outputs.begin() + numNew, outputs.end());
  return out;
}

std::shared_ptr<runtime::Executable> programFor(const std::string& text, const std::string& what,
                                                const runtime::CompileOptions& options,
                                                const ProgramOrigin& origin) {
  std::string withOptions;  // the key when the options are not the default
  if (!options.isDefault()) withOptions = options.fingerprint() + "\n" + text;
  const std::string& key = withOptions.empty() ? text : withOptions;
  {
    std::lock_guard<std::mutex> lock(cacheMu);
    auto it = textCache().find(key);
    if (it != textCache().end()) {
      metrics().cacheHits += 1;
      return it->second;
    }
  }
  std::shared_ptr<runtime::Executable> exe = compileCached(text, what, options, origin);
  std::lock_guard<std::mutex> lock(cacheMu);
  makeRoomForProgram(textCache());
  textCache()[key] = exe;
  return exe;
}

std::vector<ArrayPtr> runProgram(const std::string& text, const std::vector<ArrayPtr>& args,
                                 int device, const ArrayOrigin& origin) {
  std::shared_ptr<runtime::Executable> exe = programFor(text, "an internal program");
  LaunchInputs in;
  in.device = device;
  for (const ArrayPtr& a : args) in.arrays.push_back(a.get());
  LaunchSpec spec;
  spec.exe = exe.get();
  spec.what = "internal program";
  spec.origin = origin;
  return launchProgram(spec, in);
}

void synchronize(int device, bool flushAll) {
  if (flushAll) {
    flushTraces("sync", device);
  } else {
    flushOwnTraces("sync");
  }
  joinBackgroundFlushes();
  std::deque<std::pair<int, runtime::Event>> mine;
  {
    std::lock_guard<std::mutex> lock(pendingMu);
    std::deque<std::pair<int, runtime::Event>> rest;
    for (auto& p : pending) {
      if (device < 0 || p.first == device) {
        mine.push_back(std::move(p));
      } else {
        rest.push_back(std::move(p));
      }
    }
    pending.swap(rest);
  }
  for (auto& p : mine) p.second.await();
}

}  // namespace torchtpu::exec
