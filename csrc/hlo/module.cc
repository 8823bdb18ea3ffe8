#include "hlo/module.h"

#include <stdexcept>

#include "hlo/function_text.h"

namespace torchtpu::hlo {

bool isValidSymbolName(const std::string& s) {
  if (s.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(s[0])) return false;
  for (char c : s) {
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.') return false;
  }
  return true;
}

Module::Module(std::string name) : name_(std::move(name)) {
  if (!isValidSymbolName(name_)) {
    throw std::invalid_argument("hlo::Module: invalid module name '" + name_ + "'");
  }
}

Module::~Module() = default;

Function& Module::addFunction(const std::string& name, std::vector<TensorType> params,
                              bool isPublic) {
  if (!isValidSymbolName(name)) {
    throw std::invalid_argument("hlo::Module::addFunction: invalid function name '" + name + "'");
  }
  if (find(name)) {
    throw std::invalid_argument("hlo::Module::addFunction: function '" + name +
                                "' already exists in module @" + name_);
  }
  functions_.push_back(
      std::unique_ptr<Function>(new Function(this, name, std::move(params), isPublic)));
  return *functions_.back();
}

Function& Module::addFunctionText(const std::string& name, const std::string& text) {
  FunctionText imported = importFunctionText(text, name);
  Function& f = addFunction(name, imported.params, /*isPublic=*/false);
  f.resultTypes_ = std::move(imported.results);
  f.finished_ = true;
  f.rawText_ = std::move(imported.text);
  return f;
}

Function* Module::find(const std::string& name) {
  for (auto& f : functions_) {
    if (f->name() == name) return f.get();
  }
  return nullptr;
}

const Function* Module::find(const std::string& name) const {
  for (const auto& f : functions_) {
    if (f->name() == name) return f.get();
  }
  return nullptr;
}

std::string Module::toText() const {
  const Function* main = find("main");
  if (!main || !main->isPublic()) {
    throw std::invalid_argument("hlo::Module::toText: module @" + name_ +
                                " needs a public function named 'main'");
  }
  std::string s = "module @" + name_ + " {\n";
  for (const auto& f : functions_) s += f->toText();
  s += "}\n";
  return s;
}

}  // namespace torchtpu::hlo
