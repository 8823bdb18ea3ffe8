// Meta kernels for the fused LSTM and GRU cells. The bridge learns an op's
// result types from its Meta kernel, and PyTorch ships none for the fused GRU
// cell, while the fused LSTM cell's (torch/_meta_registrations.py) fails
// without biases (it reads the device of an absent bias); ours replaces it.
// Without them torch.nn.GRU, and LSTM(bias=False), could not run on "tpu" (nor
// fall back: PyTorch has no CPU kernel for the fused cells). Shapes and checks
// follow PyTorch's CUDA kernels.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <optional>
#include <tuple>

namespace torchtpu::aten {
namespace {

constexpr int64_t kGruWorkspace = 5;  // [r, z, n, hx, hn] per hidden unit

// The forward ops' checks: 2-d gates of equal shapes, `factor` gates per unit
// of the [B, H] state, both biases or neither, each of shape [factor * H].
void checkCell(const char* op, const at::Tensor& inputGates, const at::Tensor& hiddenGates,
               const at::Tensor& state, const char* stateName,
               const std::optional<at::Tensor>& inputBias,
               const std::optional<at::Tensor>& hiddenBias, int64_t factor) {
  TORCH_CHECK(inputGates.dim() == 2, op, ": input_gates must be 2-d, got ", inputGates.dim(), "-d");
  TORCH_CHECK(inputGates.sizes() == hiddenGates.sizes(), op,
              ": input_gates and hidden_gates differ in shape: ", inputGates.sizes(), " vs ",
              hiddenGates.sizes());
  TORCH_CHECK(state.dim() == 2 && state.size(0) == inputGates.size(0) &&
                  inputGates.size(1) == factor * state.size(1),
              op, ": ", stateName, " of shape ", state.sizes(), " does not match gates of shape ",
              inputGates.sizes());
  const bool hasIn = inputBias.has_value() && inputBias->defined();
  const bool hasHid = hiddenBias.has_value() && hiddenBias->defined();
  TORCH_CHECK(hasIn == hasHid, op, ": needs both biases or neither");
  if (hasIn) {
    TORCH_CHECK(inputBias->dim() == 1 && inputBias->numel() == inputGates.size(1) &&
                    inputBias->sizes() == hiddenBias->sizes(),
                op, ": biases must have shape [", inputGates.size(1), "]");
  }
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> fusedLstmCellMeta(
    const at::Tensor& inputGates, const at::Tensor& hiddenGates, const at::Tensor& cx,
    const std::optional<at::Tensor>& inputBias, const std::optional<at::Tensor>& hiddenBias) {
  checkCell("_thnn_fused_lstm_cell", inputGates, hiddenGates, cx, "cx", inputBias, hiddenBias, 4);
  at::Tensor workspace = at::empty(inputGates.sizes(), inputGates.options());
  at::Tensor hy = at::empty(cx.sizes(), cx.options());
  at::Tensor cy = at::empty(cx.sizes(), cx.options());
  return {hy, cy, workspace};
}

std::tuple<at::Tensor, at::Tensor> fusedGruCellMeta(const at::Tensor& inputGates,
                                                    const at::Tensor& hiddenGates,
                                                    const at::Tensor& hx,
                                                    const std::optional<at::Tensor>& inputBias,
                                                    const std::optional<at::Tensor>& hiddenBias) {
  checkCell("_thnn_fused_gru_cell", inputGates, hiddenGates, hx, "hx", inputBias, hiddenBias, 3);
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
  m.impl("_thnn_fused_lstm_cell", TORCH_FN(fusedLstmCellMeta));
  m.impl("_thnn_fused_gru_cell", TORCH_FN(fusedGruCellMeta));
  m.impl("_thnn_fused_gru_cell_backward", TORCH_FN(fusedGruCellBackwardMeta));
}

}  // namespace
}  // namespace torchtpu::aten
