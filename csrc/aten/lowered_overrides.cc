// Ops with a CompositeExplicitAutograd kernel run that kernel on "tpu" unless
// the device registers its own, so a lowering of such an op (the _foreach_
// family, for instance, whose composite kernel loops over single-tensor ops)
// would never be used. After the lowerings have registered themselves, route
// every lowered op that has such a composite kernel, and no kernel of ours,
// to the bridge.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <memory>
#include <vector>

#include "aten/bridge.h"
#include "lower/core/lowering.h"

namespace torchtpu::aten {

int registerLoweredOverrides() {
  static std::unique_ptr<torch::Library> lib;
  if (lib) return 0;
  lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten",
                                         c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
  int count = 0;
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const std::string& full : lower::registeredOps()) {
    if (full.rfind("aten::", 0) != 0) continue;
    const std::string rest = full.substr(6);
    const size_t dot = rest.find('.');
    const std::string name = rest.substr(0, dot);
    const std::string overload = dot == std::string::npos ? "" : rest.substr(dot + 1);
    auto handle = dispatcher.findOp(c10::OperatorName("aten::" + name, overload));
    if (!handle) continue;
    if (handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1)) continue;
    if (!handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd) &&
        !handle->hasKernelForDispatchKey(
            c10::DispatchKey::CompositeExplicitAutogradNonFunctional)) {
      continue;
    }
    if (handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd)) continue;
    // Device-changing copies must keep their composite kernel (it stages
    // through the host); its tpu-to-tpu part reaches the bridge anyway.
    if (name == "_to_copy" || name == "copy" || name == "copy_") continue;
    lib->impl(rest.c_str(), torch::CppFunction::makeFromBoxedFunction<&boxedKernel>());
    ++count;
  }
  return count;
}

}  // namespace torchtpu::aten
