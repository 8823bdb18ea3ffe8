// one_hot on "tpu". PyTorch's one_hot checks its class values on the host
// only for the CPU; for other devices it relies on scatter's device-side
// assert, which would report a scatter index out of bounds. In launch_blocking
// mode (where device-side checks raise) the CPU's own checks and messages
// apply; in the other modes nothing is read back and out-of-range classes
// give XLA's values.
#include <ATen/ATen.h>
#include <ATen/ops/one_hot_native.h>
#include <torch/library.h>

#include "exec/runtime_state.h"

namespace torchtpu::aten {
namespace {

at::Tensor oneHot(const at::Tensor& self, int64_t numClasses) {
  if (exec::launchMode() == exec::LaunchMode::kLaunchBlocking && self.scalar_type() == at::kLong &&
      self.numel() > 0) {
    TORCH_CHECK(self.min().item().toLong() >= 0, "Class values must be non-negative.");
    if (numClasses != -1) {
      TORCH_CHECK(self.max().item().toLong() < numClasses,
                  "Class values must be smaller than num_classes.");
    }
  }
  return at::native::one_hot(self, numClasses);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("one_hot", TORCH_FN(oneHot)); }

}  // namespace
}  // namespace torchtpu::aten
