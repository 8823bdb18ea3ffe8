// native_dropout and its backward op. The mask comes from the random stream of
// random ops (lower/random/random_bits.h), so it is reproducible per seed but
// differs from PyTorch's CPU generator.
#include "lower/core/common.h"
#include "lower/random/random_bits.h"

namespace torchtpu::lower {
namespace {

// native_dropout: keep with probability 1 - p, scaled by 1 / (1 - p); the mask
// is returned as bool. Outside training (train == false) the input passes.
std::vector<Value> lowerNativeDropout(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("input");
  const double p = c.d("p");
  const std::optional<bool> train = c.isNone("train") ? std::optional<bool>() : c.b("train");
  const TensorType& out = c.result(0);
  if (train.has_value() && !*train) {
    return {x, constantLike(fn, 1, ElementType::kPred, out.dims)};
  }
  if (!runtime::isFloating(out.dtype)) c.fail("dropout expects a floating-point input");
  const double keep = 1.0 - p;
  const double scale = keep == 0.0 ? 0.0 : 1.0 / keep;
  Value u = uniform01(c, ElementType::kF32, out.dims);
  Value mask =
      fn.compare(u, fn.constant(keep, ElementType::kF32, out.dims), hlo::ComparisonDirection::kLt);
  const ElementType ct = computeType(out.dtype);
  Value y = fn.multiply(castTo(fn, x, ct), fn.constant(scale, ct, out.dims));
  y = fn.select(mask, y, fn.constant(0, ct, out.dims));
  return {y, mask};
}

std::vector<Value> lowerNativeDropoutBackward(LowerCtx& c) {
  Function& fn = c.fn;
  const TensorType& out = c.result();
  const ElementType ct = computeType(out.dtype);
  Value g = castTo(fn, c.tensor("grad_output"), ct);
  Value mask = fit(fn, c.tensor("mask"), ct, out.dims);
  return {fn.multiply(fn.multiply(g, mask), fn.constant(c.d("scale"), ct, out.dims))};
}

const Registrar kDropout({"aten::native_dropout", "aten::native_dropout.out"}, lowerNativeDropout,
                         OpTraits{.implicitRng = true});
const Registrar kDropoutBackward({"aten::native_dropout_backward",
                                  "aten::native_dropout_backward.out"},
                                 lowerNativeDropoutBackward);

}  // namespace
}  // namespace torchtpu::lower
