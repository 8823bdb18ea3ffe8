// Custom kernels: ops whose lowering is a call to a function given as
// StableHLO text (written by hand, or exported from JAX / Pallas). They are
// registered at run time (torchtpu.kernels) and lowered like any other op, so
// they work in strict mode, inside fused DeferAndFuse programs and in captured
// graphs.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hlo/types.h"
#include "ir/op_call.h"

namespace torchtpu::lower {

// Raised for a kernel that cannot be called as asked (its text does not fit
// the call or the declared results). Not a LoweringError: the op has no other
// implementation to fall back to, so the message reaches the user.
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns the StableHLO text of the kernel for one call: `inputs` are the
// types of its tensor arguments in schema order (tensor lists flattened);
// static arguments are in `call`. Called once per distinct call signature
// (the text is cached), and may throw to reject the call.
using KernelTextFn =
    std::function<std::string(const ir::OpCall& call, const std::vector<hlo::TensorType>& inputs)>;

// Registers (or replaces) the lowering of `op` ("mylib::rmsnorm").
void registerCustomKernel(const std::string& op, KernelTextFn text);

}  // namespace torchtpu::lower
