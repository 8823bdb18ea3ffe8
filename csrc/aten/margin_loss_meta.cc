// Meta kernels for the multi-class margin losses' backward ops, which PyTorch
// ships without one: the bridge learns result types from Meta kernels, so
// without these the lowered backward ops could not run on "tpu". The input
// gradient has the scores' shape and dtype.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <optional>

namespace torchtpu::aten {
namespace {

at::Tensor multiMarginLossBackwardMeta(const at::Tensor& gradOutput, const at::Tensor& self,
                                       const at::Tensor& target, const at::Scalar& /*p*/,
                                       const at::Scalar& /*margin*/,
                                       const std::optional<at::Tensor>& /*weight*/,
                                       int64_t /*reduction*/) {
  TORCH_CHECK(self.dim() <= 2, "multi_margin_loss_backward: expected scores of at most 2 dims");
  (void)gradOutput;
  (void)target;
  return at::empty_like(self, self.options().device(c10::kMeta));
}

at::Tensor multilabelMarginLossBackwardMeta(const at::Tensor& gradOutput, const at::Tensor& self,
                                            const at::Tensor& target, int64_t /*reduction*/,
                                            const at::Tensor& isTarget) {
  TORCH_CHECK(self.dim() <= 2,
              "multilabel_margin_loss_backward: expected scores of at most 2 dims");
  TORCH_CHECK(target.sizes() == self.sizes() && isTarget.sizes() == self.sizes(),
              "multilabel_margin_loss_backward: target and is_target must have the scores' shape");
  (void)gradOutput;
  return at::empty_like(self, self.options().device(c10::kMeta));
}

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("multi_margin_loss_backward", TORCH_FN(multiMarginLossBackwardMeta));
  m.impl("multilabel_margin_loss_backward", TORCH_FN(multilabelMarginLossBackwardMeta));
}

}  // namespace
}  // namespace torchtpu::aten
