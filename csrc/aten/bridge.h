// The generic ATen kernel for "tpu": every op without a dedicated kernel is
// described as an ir::OpCall, lowered, compiled once and launched; ops without
// a lowering run on the CPU (the fallback tier) or raise NotImplementedError.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "exec/device_array.h"

namespace torchtpu::aten {

void boxedKernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Routes lowered ops that have a composite kernel to the bridge (see
// lowered_overrides.cc). Returns how many were routed; call once at start-up.
int registerLoweredOverrides();

// The argument as the bridge hands it to meta kernels: tpu tensors become
// meta tensors of the same sizes and strides, tpu devices the meta device.
c10::IValue metaArgument(const c10::IValue& v);

bool cpuFallbackEnabled();
void setCpuFallbackEnabled(bool enabled);

// Writes `src` (a tpu tensor, any view; broadcast and converted as needed)
// into the view `dst` (a tpu tensor on the same device).
void deviceCopy(const at::Tensor& dst, const at::Tensor& src);

// A tpu tensor with the values of `t` (a lazy conjugate or negative view),
// its bits applied (through the host; such views are rare on a device).
at::Tensor resolveLazyBits(const at::Tensor& t);

// A dense row-major device array holding exactly `t`'s values.
exec::ArrayPtr denseArray(const at::Tensor& t);

// Converts a runtime error into the matching c10 error (out of memory ->
// torch.OutOfMemoryError) and throws it.
[[noreturn]] void rethrowRuntimeError(const std::exception& e, const std::string& what);

}  // namespace torchtpu::aten
