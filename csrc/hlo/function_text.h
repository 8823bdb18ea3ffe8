// Imports a function given as StableHLO text (a whole module, as written by
// hand or by jax.export, or bare func.func definitions) so that a Module can
// hold it next to the functions it builds and call it with Function::call.
#pragma once

#include <string>
#include <vector>

#include "hlo/types.h"

namespace torchtpu::hlo {

struct FunctionText {
  // The func.func definitions, @main renamed to the new name (private), every
  // other function renamed "<name>.<old name>" with its references.
  std::string text;
  std::vector<TensorType> params;   // @main's parameter types
  std::vector<TensorType> results;  // @main's result types
};

// Reads `text`, which must define a `func.func @main` over statically shaped
// tensors, and renames its functions under `name` (a valid symbol name).
// Throws std::invalid_argument saying what is wrong: no @main, a parameter or
// result that is not a static tensor, unbalanced braces.
FunctionText importFunctionText(const std::string& text, const std::string& name);

}  // namespace torchtpu::hlo
