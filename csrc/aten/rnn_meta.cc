// Meta kernels for the fused GRU cell, which PyTorch ships without one (the
// fused LSTM cell has one in torch/_meta_registrations.py). The bridge learns
// an op's result types from its Meta kernel, so without these torch.nn.GRU
// could not run on "tpu" (nor fall back: PyTorch has no CPU kernel for the
// fused cell either). Shapes and checks follow PyTorch's CUDA kernels.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <optional>
#include <tuple>

namespace torchtpu::aten {
namespace {

constexpr int64_t kGruWorkspace = 5;  // [r, z, n, hx, hn] per hidden unit

std::tuple<at::Tensor, at::Tensor> fusedGruCellMeta(const at::Tensor& inputGates,
                                                    const at::Tensor& hiddenGates,
                                                    const at::Tensor& hx,
                                                    const std::optional<at::Tensor>& inputBias,
                                                    const std::optional<at::Tensor>& hiddenBias) {
  TORCH_CHECK(inputGates.dim() == 2, "_thnn_fused_gru_cell: input_gates must be 2-d, got ",
              inputGates.dim(), "-d");
  TORCH_CHECK(inputGates.sizes() == hiddenGates.sizes(),
              "_thnn_fused_gru_cell: input_gates and hidden_gates differ in shape: ",
              inputGates.sizes(), " vs ", hiddenGates.sizes());
  TORCH_CHECK(
      hx.dim() == 2 && hx.size(0) == inputGates.size(0) && inputGates.size(1) == 3 * hx.size(1),
      "_thnn_fused_gru_cell: hx of shape ", hx.sizes(), " does not match gates of shape ",
      inputGates.sizes());
  const bool hasIn = inputBias.has_value() && inputBias->defined();
  const bool hasHid = hiddenBias.has_value() && hiddenBias->defined();
  TORCH_CHECK(hasIn == hasHid, "_thnn_fused_gru_cell: needs both biases or neither");
  if (hasIn) {
    TORCH_CHECK(inputBias->dim() == 1 && inputBias->numel() == inputGates.size(1) &&
                    inputBias->sizes() == hiddenBias->sizes(),
                "_thnn_fused_gru_cell: biases must have shape [", inputGates.size(1), "]");
  }
  at::Tensor workspace = at::empty({hx.size(0), hx.size(1) * kGruWorkspace}, hx.options());
  at::Tensor hy = at::empty(hx.sizes(), hx.options());
  return {hy, workspace};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> fusedGruCellBackwardMeta(
    const at::Tensor& gradHy, const at::Tensor& workspace, bool hasBias) {
  TORCH_CHECK(gradHy.dim() == 2, "_thnn_fused_gru_cell_backward: grad_hy must be 2-d");
  TORCH_CHECK(workspace.dim() == 2 && workspace.size(0) == gradHy.size(0) &&
                  workspace.size(1) == gradHy.size(1) * kGruWorkspace,
              "_thnn_fused_gru_cell_backward: workspace of shape ", workspace.sizes(),
              " does not match grad_hy of shape ", gradHy.sizes());
  const int64_t h = gradHy.size(1);
  at::Tensor gradInput = at::empty({gradHy.size(0), 3 * h}, workspace.options());
  at::Tensor gradHidden = at::empty({gradHy.size(0), 3 * h}, workspace.options());
  at::Tensor gradHx = at::empty(gradHy.sizes(), gradHy.options());
  at::Tensor gradInputBias, gradHiddenBias;
  if (hasBias) {
    gradInputBias = at::empty({3 * h}, workspace.options());
    gradHiddenBias = at::empty({3 * h}, workspace.options());
  }
  return {gradInput, gradHidden, gradHx, gradInputBias, gradHiddenBias};
}

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("_thnn_fused_gru_cell", TORCH_FN(fusedGruCellMeta));
  m.impl("_thnn_fused_gru_cell_backward", TORCH_FN(fusedGruCellBackwardMeta));
}

}  // namespace
}  // namespace torchtpu::aten
