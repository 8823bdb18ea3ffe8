// PyTorch's argument rules that the CPU kernels enforce and meta kernels do
// not. The bridge learns result types from meta kernels; many of those are
// laxer than the CPU's (Python reference metas resize an in-place target to
// the broadcast shape and skip the can-cast check, most skip the overlap
// checks, mm's accepts mixed dtypes). So the bridge checks these rules
// itself, once per call signature, before anything runs, and raises the
// CPU's error.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>

namespace torchtpu::aten {

// Silences PyTorch's warnings on this thread while it lives: the bridge's
// meta runs and CPU probes must not warn (the meta kernel of an out= op warns
// that it resizes its meta tensor; the call itself warns once, for real).
class QuietWarnings {
 public:
  QuietWarnings();
  ~QuietWarnings();
  QuietWarnings(const QuietWarnings&) = delete;
  QuietWarnings& operator=(const QuietWarnings&) = delete;

 private:
  struct Silent final : c10::WarningHandler {
    void process(const c10::Warning& warning) override;
  };
  Silent silent_;
  c10::WarningHandler* previous_;
};

// How argument `arg` of `schema` receives a result.
enum class WriteKind {
  kNone,     // read only
  kInPlace,  // a written positional argument of an in-place op (add_): keeps its shape
  kOut,      // an out= argument: resized to the result (a warning if it had elements)
};
WriteKind writeKind(const c10::FunctionSchema& schema, size_t arg);

// Whether written argument `arg` keeps its shape: an in-place target, or an
// out= argument that the op also reads (torch.mul(x, y, out=x); ldexp_ is
// mul_out(self, self, ...)), as TensorIterator's read-write operands.
bool keepsShape(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args, size_t arg);

// "output with shape [4] doesn't match the broadcast shape [3, 4]"
[[noreturn]] void throwInPlaceShape(c10::IntArrayRef target, c10::IntArrayRef result);

// Gives meta results the layout the CPU kernels give them where the meta
// kernel cannot know it (a convolution of channels_last tensors is
// channels_last on the CPU; its meta kernel returns a contiguous tensor).
// `results` are the meta kernel's returns.
// Elementwise (pointwise-tagged) ops take TensorIterator's layout from their
// inputs, as on the CPU, where a meta kernel may not (div's rounding modes).
void applyCpuLayouts(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                     torch::jit::Stack& results);

// Throws the error PyTorch's CPU kernels raise, before the op's results are
// known, when the call
// - writes an in-place target whose shape is not the result's;
// - writes a result whose dtype cannot be cast safely to the written tensor
//   ("result type Float can't be cast to the desired output type Long"),
//   except in ops that compute in the destination's dtype (cumsum, ...), or
//   (reductions, products, indexing) of another dtype than the result's;
// - mixes dtypes where the CPU kernel requires one (mm, convolution, index_add, ...);
// - subtracts or negates bool tensors;
// - gives a random op parameters outside its distribution's domain
//   (uniform_(1, 0), bernoulli_(2.0), exponential_(-1), ...).
// `args` are the call's arguments, as on the stack.
void checkCall(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args);

// The rules the CPU kernels check after out= arguments are resized: the call
// - writes a tensor whose elements overlap in memory (an expanded view),
//   except in the ops whose CPU kernels allow it (fill_, index_put_, ...);
// - writes a tensor that overlaps a tensor it reads (partially; or at all,
//   for index_copy_, scatter_, cat, ...);
// - has bool or integer tensors the CPU kernel is not implemented for
//   (NotImplementedError), unless `random` (a random op: the check would
//   draw from the CPU's generator).
void checkMemoryAndKernel(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args,
                          bool random);

// Elementwise (TensorIterator) ops check that what they write does not
// partially overlap what they read before their out= arguments are resized
// (an empty out= view that grows over its input is not refused; found by the
// fuzzer); checkMemoryAndKernel leaves that check to the caller for them.
bool checksReadOverlapBeforeResize(const c10::OperatorHandle& op);
// The read-overlap rule of checkMemoryAndKernel alone.
void checkReadOverlap(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args);

// Ops whose CPU kernels return a contiguous result where PyTorch's meta
// kernels keep the input's layout (masked_fill clones its input contiguous).
bool cpuResultIsContiguous(const c10::FunctionSchema& schema);

// For the ops that refuse any overlap between what they write and what they
// read (cat, index_copy_, scatter_, ...): that check alone, for a call whose
// out= arguments were just resized (a view that grew keeps sharing its
// storage, as on the CPU, where torch.cat([a, b], out=b) resizes b, then
// raises).
// Before an elementwise op runs on the CPU through the fallback (which copies
// an expanded view into a dense one): its TensorIterator's refusal to write
// through a self-overlapping view, as on the CPU.
void checkFallbackWrites(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args);

// Whether checkCallValues has anything to check for calls of this op.
bool checksValuesPerCall(const c10::FunctionSchema& schema);

// The checks of values that change from call to call (not part of the call's
// signature): index_put_ of a 0-d value of another dtype than self's (the CPU
// converts it only where a single boolean mask makes the call a
// masked_fill_; with integer indices it raises; checked before masks become
// index tensors), and numbers written into a tensor whose dtype cannot hold
// them (fill_, masked_fill, index_fill, scatter).
void checkCallValues(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args);

void checkRefusedOverlap(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args);

// The dtype an elementwise (pointwise-tagged) op computes the result written
// into argument `arg` in: its functional form's result dtype (TensorIterator's
// common dtype, or bool for a comparison), which is cast into the written
// tensor afterwards, as on the CPU (sub of two bfloat16 tensors into a float32
// out= rounds to bfloat16 first). Nothing for other ops, or when the
// functional form is unknown. `args` are the call's arguments.
std::optional<c10::ScalarType> computeDtypeOfOut(const c10::OperatorHandle& op,
                                                 c10::ArrayRef<c10::IValue> args, size_t arg);

// The overlap rules alone, for a copy of `src` into `dst`.
void checkCopy(const at::Tensor& dst, const at::Tensor& src);

}  // namespace torchtpu::aten
