#include "aten/mask_indices.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <optional>
#include <string>

namespace torchtpu::aten {
namespace {

std::optional<size_t> argIndex(const c10::FunctionSchema& schema, const char* name) {
  const auto& args = schema.arguments();
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k].name() == name) return k;
  }
  return std::nullopt;
}

bool isMask(const std::optional<at::Tensor>& t) {
  return t.has_value() && t->defined() &&
         (t->scalar_type() == at::kBool || t->scalar_type() == at::kByte);
}

}  // namespace

bool expandMaskIndices(const c10::FunctionSchema& schema, torch::jit::Stack* stack) {
  // Every op passes here: only the index family (index, index_put,
  // _index_put_impl_, _unsafe_index, ...) takes a "Tensor?[] indices".
  if (schema.name().find("index") == std::string::npos) return false;
  const auto selfArg = argIndex(schema, "self");
  const auto indicesArg = argIndex(schema, "indices");
  if (!selfArg || !indicesArg) return false;
  const size_t base = stack->size() - schema.arguments().size();
  c10::IValue& indicesValue = (*stack)[base + *indicesArg];
  const c10::IValue& selfValue = (*stack)[base + *selfArg];
  if (!indicesValue.isList() || !selfValue.isTensor()) return false;
  const auto indices = indicesValue.toOptionalTensorList();
  bool any = false;
  for (size_t i = 0; i < indices.size(); ++i) any = any || isMask(indices.get(i));
  if (!any) return false;

  const at::Tensor& self = selfValue.toTensor();
  c10::List<std::optional<at::Tensor>> expanded;
  int64_t dim = 0;  // the dim of self the next index applies to
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<at::Tensor> idx = indices.get(i);
    if (!isMask(idx)) {
      expanded.push_back(idx);
      ++dim;
      continue;
    }
    const at::Tensor mask = idx->scalar_type() == at::kByte ? idx->to(at::kBool) : *idx;
    for (int64_t j = 0; j < mask.dim(); ++j) {
      const int64_t d = dim + j;
      TORCH_CHECK_INDEX(d < self.dim() && mask.size(j) == self.size(d), "The shape of the mask ",
                        mask.sizes(), " at index ", j,
                        " does not match the shape of the indexed tensor ", self.sizes(),
                        " at index ", d);
    }
    const at::Tensor nz = at::nonzero(mask);  // the tpu kernel: data-dependent size
    for (int64_t j = 0; j < mask.dim(); ++j) expanded.push_back(nz.select(1, j));
    dim += mask.dim();
  }
  indicesValue = c10::IValue(expanded);
  return true;
}

}  // namespace torchtpu::aten
