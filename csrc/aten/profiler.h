// torch.profiler support (csrc/aten/profiler.cc).
#pragma once

namespace torchtpu::aten {

// Whether torch.profiler shows tpu programs, compiles, flushes and copies
// (this torch has PyTorch's PrivateUse1 profiler registry and Kineto).
bool profilerAvailable();

}  // namespace torchtpu::aten
