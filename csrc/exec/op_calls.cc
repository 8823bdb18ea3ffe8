#include "exec/op_calls.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "exec/device_storage.h"
#include "exec/metrics.h"
#include "exec/program_limit.h"
#include "exec/recompile_explainer.h"
#include "exec/runtime_state.h"

namespace torchtpu::exec {
namespace {

struct Entry {
  std::shared_ptr<const OpSignature> signature;
  std::shared_ptr<const CompiledOp> compiled;  // strict mode's, once compiled
};

std::mutex mu;
std::atomic<uint64_t> generation{0};
std::unordered_map<std::string, Entry>& entries() {
  static auto* m = new std::unordered_map<std::string, Entry>();
  return *m;
}

FoundSignature store(const std::string& key, std::shared_ptr<const OpSignature> signature,
                     std::shared_ptr<const CompiledOp> compiled) {
  std::lock_guard<std::mutex> lock(mu);
  generation.fetch_add(1, std::memory_order_acq_rel);
  if (!entries().contains(key)) makeRoomForProgram(entries());
  Entry& e = entries()[key];
  e.signature = std::move(signature);
  if (compiled) e.compiled = std::move(compiled);
  return {e.signature, e.compiled};
}

// Strict mode's numbers: the runtime scalars of a signature's first call are
// compiled into its program (nothing to upload at launch; most never change,
// like an add's alpha); random-op states always change and stay inputs.
std::vector<std::optional<HostScalar>> firstCallConstants(const ir::OpCall& call,
                                                          const std::vector<HostScalar>& scalars) {
  std::vector<std::optional<HostScalar>> constants(scalars.begin(), scalars.end());
  for (const ir::ArgValue& a : call.args) {
    if (a.kind == ir::ArgValue::Kind::kRng && a.scalar >= 0 &&
        static_cast<size_t>(a.scalar) < constants.size()) {
      constants[static_cast<size_t>(a.scalar)].reset();
    }
  }
  return constants;
}

std::shared_ptr<const CompiledOp> compile(const ir::OpCall& call,
                                          const std::vector<HostScalar>& scalars) {
  if (explainRecompiles()) explainOpCompile(call);
  return compileOp(call, firstCallConstants(call, scalars));
}

}  // namespace

bool recording() { return launchMode() == LaunchMode::kDefer; }

FoundSignature findSignature(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = entries().find(key);
  if (it == entries().end()) return {};
  FoundSignature found{it->second.signature, it->second.compiled};
  countSignatureHit(found);
  return found;
}

uint64_t signatureGeneration() { return generation.load(std::memory_order_acquire); }

void countSignatureHit(const FoundSignature& found) {
  if (found.compiled || recording()) metrics().cacheHits += 1;
}

FoundSignature addSignature(const ir::OpCall& call, const std::string& key,
                            std::shared_ptr<const SignatureExtra> extra,
                            const std::vector<HostScalar>& scalars) {
  auto signature = std::make_shared<OpSignature>();
  signature->call = std::make_shared<const ir::KeyedCall>(call, key);
  signature->extra = std::move(extra);
  std::shared_ptr<const CompiledOp> compiled;
  if (recording()) {
    (void)buildOpProgram(call);  // the lowering accepts it; the trace compiles it
  } else {
    compiled = compile(call, scalars);
  }
  return store(key, std::move(signature), std::move(compiled));
}

void markUnsupported(const std::string& key, std::string why) {
  auto signature = std::make_shared<OpSignature>();
  signature->unsupported = std::move(why);
  store(key, std::move(signature), nullptr);
}

namespace {

// Strict mode: the arrays as they are now (pending values computed first;
// null for arrays the program makes as zeros).
std::vector<ArrayPtr> resolved(std::vector<ArrayBinding>& bindings) {
  std::vector<ArrayPtr> arrays;
  arrays.reserve(bindings.size());
  for (ArrayBinding& b : bindings) {
    if (b.kind == ArrayBinding::Kind::kPending) {
      if (!b.pending->resolved) resolvePending(b.pending);
      arrays.push_back(b.pending->resolved);
    } else {
      arrays.push_back(std::move(b.array));
    }
  }
  return arrays;
}

}  // namespace

CallOutputs runOpCall(const FoundSignature& found, std::vector<ArrayBinding>&& arrays,
                      std::vector<HostScalar>&& scalars, int device, std::string source,
                      ArrayOrigin origin) {
  CallOutputs out;
  if (recording()) {
    RecordedOutputs rec = recordOpCall(found.signature->call, std::move(arrays), std::move(scalars),
                                       device, std::move(source));
    out.newResults.reserve(rec.newResults.size());
    for (PendingPtr& p : rec.newResults) out.newResults.push_back({nullptr, std::move(p)});
    out.updated.reserve(rec.updatedArrays.size());
    for (PendingPtr& p : rec.updatedArrays) out.updated.push_back({nullptr, std::move(p)});
    out.updatedArrays = std::move(rec.updatedArrayIndex);
    return out;
  }
  const ir::OpCall& call = found.signature->call->call;
  const std::string& key = found.signature->call->key;
  std::shared_ptr<const CompiledOp> compiled = found.compiled;
  if (!compiled) {  // first seen in defer mode
    compiled = compile(call, scalars);
    store(key, found.signature, compiled);
  } else if (!scalarsMatch(*compiled, scalars)) {
    // A number compiled into the program changed: from now on every scalar
    // is a program input (one more compile; later values reuse it).
    if (explainRecompiles()) explainOpNumberChange(call);
    compiled = compileOp(call);
    store(key, found.signature, compiled);
  }
  const std::vector<ArrayPtr> inputs = resolved(arrays);
  LaunchResult launched =
      launch(*compiled, inputs, call.scalars, scalars, device, std::move(origin));
  out.newResults.reserve(launched.newResults.size());
  for (ArrayPtr& a : launched.newResults) out.newResults.push_back({std::move(a), nullptr});
  out.updated.reserve(launched.updatedArrays.size());
  for (ArrayPtr& a : launched.updatedArrays) out.updated.push_back({std::move(a), nullptr});
  out.updatedArrays = compiled->program.updatedArrays;
  return out;
}

}  // namespace torchtpu::exec
