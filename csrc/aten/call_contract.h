// PyTorch's argument rules that the CPU kernels enforce and meta kernels do
// not. The bridge learns result types from meta kernels; many of those are
// laxer than the CPU's (Python reference metas resize an in-place target to
// the broadcast shape and skip the can-cast check, most skip the overlap
// checks, mm's accepts mixed dtypes). So the bridge checks these rules
// itself, once per call signature, before anything runs, and raises the
// CPU's error.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

namespace torchtpu::aten {

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
void applyCpuLayouts(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args,
                     torch::jit::Stack& results);

// Throws the error PyTorch's CPU kernels raise when the call
// - writes an in-place target whose shape is not the result's;
// - writes a result whose dtype cannot be cast safely to the written tensor
//   ("result type Float can't be cast to the desired output type Long"),
//   except in ops that compute in the destination's dtype (cumsum, ...);
// - writes a tensor whose elements overlap in memory (an expanded view),
//   except in the ops whose CPU kernels allow it (fill_, index_put_, ...);
// - writes a tensor that partially overlaps a tensor it reads;
// - mixes dtypes where the CPU kernel requires one (mm, convolution, index_add, ...);
// - subtracts or negates bool tensors.
// `args` are the call's arguments, as on the stack.
void checkCall(const c10::OperatorHandle& op, c10::ArrayRef<c10::IValue> args);

// The overlap rules alone, for a copy of `src` into `dst`.
void checkCopy(const at::Tensor& dst, const at::Tensor& src);

}  // namespace torchtpu::aten
