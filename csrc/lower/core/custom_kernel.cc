#include "lower/core/custom_kernel.h"

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "hlo/module.h"
#include "lower/core/lowering.h"

namespace torchtpu::lower {
namespace {

using Kind = ir::ArgValue::Kind;

// "mylib::rms_norm.default" -> "kernel.mylib.rms_norm.default.<hash>".
std::string symbolFor(const std::string& op, const std::string& text) {
  std::string out = "kernel.";
  for (char c : op) out += hlo::isValidSymbolName(std::string("a") + c) ? c : '.';
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(text));
  return out + "." + hash;
}

struct Kernel {
  KernelTextFn text;
  std::mutex mu;
  std::map<std::string, std::string> texts;  // call signature -> text
};

}  // namespace

void registerCustomKernel(const std::string& op, KernelTextFn textFn) {
  auto kernel = std::make_shared<Kernel>();
  kernel->text = std::move(textFn);
  registerLowering({op}, [op, kernel](LowerCtx& c) -> std::vector<Value> {
    const ir::OpCall& call = c.call;
    std::vector<Value> args;
    std::string key;
    for (size_t k = 0; k < call.args.size(); ++k) {
      const ir::ArgValue& a = call.args[k];
      if (a.kind == Kind::kTensor && a.tensor.present()) {
        args.push_back(c.tensor(call.argNames[k]));
      } else if (a.kind == Kind::kTensorList) {
        for (const Value& v : c.tensors(call.argNames[k])) args.push_back(v);
      } else if (a.kind == Kind::kScalar || a.kind == Kind::kRng) {
        throw KernelError("kernel " + op + ": argument '" + call.argNames[k] +
                          "' is a runtime scalar or generator, which kernels do not take (use "
                          "float, int or bool arguments: they are static)");
      } else {
        a.appendKey(key);
      }
      key += ";";
    }
    std::vector<TensorType> inputs;
    for (const Value& v : args) {
      inputs.push_back(v.t());
      key += v.t().str() + ",";
    }

    std::string text;
    {
      std::lock_guard<std::mutex> lock(kernel->mu);
      auto it = kernel->texts.find(key);
      if (it != kernel->texts.end()) text = it->second;
    }
    if (text.empty()) {
      try {
        text = kernel->text(call, inputs);
      } catch (const std::exception& e) {
        throw KernelError("kernel " + op + " for inputs " + hlo::typesStr(inputs) + ": " +
                          e.what());
      }
      std::lock_guard<std::mutex> lock(kernel->mu);
      kernel->texts[key] = text;
    }

    const std::string symbol = symbolFor(op, text);
    hlo::Module& module = c.fn.module();
    const hlo::Function* callee = module.find(symbol);
    if (callee == nullptr) {
      try {
        callee = &module.addFunctionText(symbol, text);
      } catch (const std::invalid_argument& e) {
        throw KernelError("kernel " + op + ": " + e.what());
      }
    }
    if (callee->paramTypes() != inputs) {
      throw KernelError("kernel " + op + ": its StableHLO takes " +
                        hlo::typesStr(callee->paramTypes()) + " but it was called with " +
                        hlo::typesStr(inputs));
    }
    if (callee->resultTypes() != c.results()) {
      throw KernelError("kernel " + op + ": its StableHLO returns " +
                        hlo::typesStr(callee->resultTypes()) + " but its shape function declares " +
                        hlo::typesStr(c.results()) + " for inputs " + hlo::typesStr(inputs));
    }
    return c.fn.call(*callee, args);
  });
}

}  // namespace torchtpu::lower
