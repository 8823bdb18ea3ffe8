// Custom ops (torchtpu.kernels): routes an op defined from Python to the
// generic boxed kernel (the bridge) for the tpu device.
#pragma once

#include <string>

namespace torchtpu::aten {

// Registers the bridge as the PrivateUse1 kernel of `op` ("mylib::rmsnorm"
// or "mylib::rmsnorm.overload"), which must already be defined.
void registerBridgeKernel(const std::string& op);

}  // namespace torchtpu::aten
