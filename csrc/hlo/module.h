// A StableHLO module: a set of functions, printed as MLIR text that a PJRT
// plugin compiles ("mlir" program format).
//
//   hlo::Module m;                                   // "module @torchtpu"
//   hlo::Function& f = m.addFunction("main", {hlo::TensorType(ElementType::kF32, {2, 3})},
//                                    /*isPublic=*/true);
//   hlo::Value x = f.param(0);
//   hlo::Value sum = f.reduce(x, f.constant(0, ElementType::kF32), {1}, hlo::BinaryOp::kAdd);
//   f.ret({f.multiply(sum, sum)});                   // result types: (tensor<2xf32>)
//   std::string text = m.toText();
//
// Every op method infers its result type and throws std::invalid_argument,
// naming the op and the operand types, when operands or attributes do not fit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hlo/function.h"
#include "hlo/types.h"

namespace torchtpu::hlo {

class Module {
 public:
  // `name` becomes "module @name"; it must be an identifier ([A-Za-z_][A-Za-z0-9_$.]*).
  explicit Module(std::string name = "torchtpu");
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  // Adds a function. The entry function must be named "main" and be public;
  // helpers (targets of Function::call) are usually private. The reference
  // stays valid for the module's lifetime.
  Function& addFunction(const std::string& name, std::vector<TensorType> params,
                        bool isPublic = false);
  // Adds a finished, private function from StableHLO text (see
  // hlo/function_text.h): its @main becomes @name, its other functions
  // "name.<old name>". Call it with Function::call, which checks the argument
  // types against the text's signature.
  Function& addFunctionText(const std::string& name, const std::string& text);
  Function* find(const std::string& name);
  const Function* find(const std::string& name) const;
  const std::string& name() const { return name_; }

  // The whole module as MLIR text. Throws std::invalid_argument if there is
  // no public "main", a function lacks ret(), or an aliasing attribute does
  // not fit the result types.
  std::string toText() const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<Function>> functions_;
};

// Whether `s` can be written as a bare MLIR symbol name (@s).
bool isValidSymbolName(const std::string& s);

}  // namespace torchtpu::hlo
