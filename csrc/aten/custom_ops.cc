#include "aten/custom_ops.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "aten/bridge.h"

namespace torchtpu::aten {

void registerBridgeKernel(const std::string& op) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<torch::Library>> libs;
  const size_t sep = op.find("::");
  if (sep == std::string::npos || sep == 0) {
    throw std::invalid_argument("torchtpu: op name '" + op + "' needs a namespace (ns::name)");
  }
  const std::string ns = op.substr(0, sep);
  const std::string rest = op.substr(sep + 2);
  const size_t dot = rest.find('.');
  const std::string name = rest.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : rest.substr(dot + 1);
  auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName(ns + "::" + name, overload));
  if (!handle) throw std::invalid_argument("torchtpu: op " + op + " is not defined");
  std::lock_guard<std::mutex> lock(mu);
  libs.push_back(std::make_unique<torch::Library>(
      torch::Library::IMPL, ns, c10::DispatchKey::PrivateUse1, __FILE__, __LINE__));
  libs.back()->impl(rest.c_str(), torch::CppFunction::makeFromBoxedFunction<&boxedKernel>());
}

}  // namespace torchtpu::aten
