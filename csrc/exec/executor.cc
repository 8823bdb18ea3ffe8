#include "exec/executor.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "exec/compile_cache.h"
#include "exec/metrics.h"
#include "exec/runtime_state.h"
#include "exec/trace.h"
#include "runtime/client.h"

namespace torchtpu::exec {
namespace {

std::mutex cacheMu;
std::unordered_map<std::string, std::shared_ptr<const CompiledOp>>& opCache() {
  static auto* c = new std::unordered_map<std::string, std::shared_ptr<const CompiledOp>>();
  return *c;
}
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

std::shared_ptr<const CompiledOp> findCompiled(const std::string& key) {
  std::lock_guard<std::mutex> lock(cacheMu);
  auto it = opCache().find(key);
  if (it == opCache().end()) return nullptr;
  metrics().cacheHits += 1;
  return it->second;
}

std::shared_ptr<const CompiledOp> compileOpCall(const ir::OpCall& call, const std::string& key) {
  if (auto hit = findCompiled(key)) return hit;
  auto op = std::make_shared<CompiledOp>();
  op->program = buildOpProgram(call);
  op->results = call.results;
  op->exe = compileCached(op->program.text, call.op);
  std::lock_guard<std::mutex> lock(cacheMu);
  opCache()[key] = op;
  return op;
}

LaunchResult launch(const CompiledOp& op, const std::vector<ArrayPtr>& arrays,
                    const std::vector<hlo::TensorType>& scalarTypes,
                    const std::vector<HostScalar>& scalars, int device) {
  const auto& c = client();
  std::vector<runtime::Buffer> scalarBuffers;
  scalarBuffers.reserve(scalars.size());
  for (size_t k = 0; k < scalars.size(); ++k) {
    scalarBuffers.push_back(
        c->toDevice(scalars[k].data(), scalarTypes[k].dtype, scalarTypes[k].dims, device));
    metrics().hostToDeviceBytes += static_cast<int64_t>(scalars[k].size());
  }
  std::vector<const runtime::Buffer*> args;
  args.reserve(arrays.size() + scalars.size());
  for (const ArrayPtr& a : arrays) {
    if (a) args.push_back(&a->buffer());  // null: created as zeros in the program
  }
  for (const runtime::Buffer& b : scalarBuffers) args.push_back(&b);

  runtime::ExecuteOptions opts;
  opts.device = device;
  runtime::ExecuteResult r = op.exe->execute(args, opts);
  metrics().launches += 1;
  trackLaunch(device, std::move(r.done));

  LaunchResult out;
  size_t j = 0;
  for (; j < static_cast<size_t>(op.program.numNewResults); ++j) {
    out.newResults.push_back(std::make_shared<DeviceArray>(std::move(r.outputs[j])));
  }
  for (; j < r.outputs.size(); ++j) {
    out.updatedArrays.push_back(std::make_shared<DeviceArray>(std::move(r.outputs[j])));
  }
  return out;
}

std::shared_ptr<runtime::Executable> programFor(const std::string& text, const std::string& what,
                                                const runtime::CompileOptions& options) {
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
  std::shared_ptr<runtime::Executable> exe = compileCached(text, what, options);
  std::lock_guard<std::mutex> lock(cacheMu);
  textCache()[key] = exe;
  return exe;
}

std::vector<ArrayPtr> runProgram(const std::string& text, const std::vector<ArrayPtr>& args,
                                 int device) {
  std::shared_ptr<runtime::Executable> exe = programFor(text, "an internal program");
  std::vector<const runtime::Buffer*> ptrs;
  for (const ArrayPtr& a : args) ptrs.push_back(&a->buffer());
  runtime::ExecuteOptions opts;
  opts.device = device;
  runtime::ExecuteResult r = exe->execute(ptrs, opts);
  metrics().launches += 1;
  trackLaunch(device, std::move(r.done));
  std::vector<ArrayPtr> out;
  for (auto& b : r.outputs) out.push_back(std::make_shared<DeviceArray>(std::move(b)));
  return out;
}

void synchronize(int device) {
  flushTraces("sync", device);
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
