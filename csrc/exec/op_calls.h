// Op calls, as the execution layer runs them: one cache of call signatures
// (an OpCall key -> what its calls produce, and strict mode's program), and
// one entry point that runs a described call in the calling thread's mode
// (strict and launch_blocking launch a single-op program, defer records the
// call into the thread's trace). The integration layer only describes calls
// and turns results into tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/device_array.h"
#include "exec/executor.h"
#include "exec/pending_value.h"
#include "exec/trace.h"
#include "ir/op_call.h"

namespace torchtpu::exec {

// What the integration layer keeps with a signature (how results become
// tensors); opaque here.
struct SignatureExtra {
  virtual ~SignatureExtra() = default;
};

// Everything known about the calls of one key, learnt at its first call.
struct OpSignature {
  // The call every call of the key is (null when unsupported).
  ir::KeyedCallPtr call;
  std::shared_ptr<const SignatureExtra> extra;
  // Non-empty: the call has no tpu program (the reason); it falls back.
  std::string unsupported;
};

// A signature found in the cache, with strict mode's program when one was
// compiled for it.
struct FoundSignature {
  std::shared_ptr<const OpSignature> signature;
  std::shared_ptr<const CompiledOp> compiled;
  explicit operator bool() const { return signature != nullptr; }
};

// The signature of `key`, or nothing (counted as a cache hit when it can run
// in the calling thread's mode without compiling).
FoundSignature findSignature(const std::string& key);

// Changes whenever the signature cache does (an entry added or replaced, an
// eviction): a FoundSignature a caller keeps is still the cache's answer for
// its key while this reads the same as before it was looked up.
uint64_t signatureGeneration();
// Counts a hit, as findSignature does, for a signature a caller kept.
void countSignatureHit(const FoundSignature& found);

// Makes `call` (the first call of `key`, its results filled in) runnable in
// the calling thread's mode and remembers its signature: strict and
// launch_blocking compile its program; defer lowers it once to check that
// the lowering accepts it (the trace compiles it later). Throws
// lower::LoweringError or std::invalid_argument when the lowering refuses it.
// `scalars`: the call's runtime scalars (strict mode compiles the numbers of
// a signature's first call into its program).
FoundSignature addSignature(const ir::OpCall& call, const std::string& key,
                            std::shared_ptr<const SignatureExtra> extra,
                            const std::vector<HostScalar>& scalars);
// Remembers that calls of `key` have no tpu program.
void markUnsupported(const std::string& key, std::string why);

// A storage's new contents: an array, or a pending value of a trace.
struct DeviceValue {
  ArrayPtr array;
  PendingPtr pending;
};

struct CallOutputs {
  std::vector<DeviceValue> newResults;  // results with no write target, in order
  std::vector<DeviceValue> updated;     // parallel to updatedArrays
  std::vector<int> updatedArrays;       // the call's arrays written, by index
};

// Runs a call of `found`'s signature (its call, with these arrays and runtime
// scalars) in the calling thread's mode (compiling strict mode's program first
// for a signature seen only in defer mode until now). `arrays`: where each of
// the call's arrays comes from. `origin`: what memory reports say made its
// arrays (strict; null: the op).
CallOutputs runOpCall(const FoundSignature& found, std::vector<ArrayBinding>&& arrays,
                      std::vector<HostScalar>&& scalars, int device, std::string source,
                      ArrayOrigin origin);

// True when the calling thread records instead of launching.
bool recording();

}  // namespace torchtpu::exec
