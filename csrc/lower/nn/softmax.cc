// softmax / log_softmax and their backward ops.
//
// PyTorch semantics: f16/bf16 inputs are computed in f32 (half_to_float only
// changes the result type, which the bridge applies); the max is subtracted
// first, so a row holding NaN, or only -inf, gives NaN; a 0-d input is a
// one-element row. Backward:
//   softmax:     grad_input = y * (g - sum(g * y))
//   log_softmax: grad_input = g - exp(y) * sum(g)
// with the result in input_dtype.
#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

// x in the accumulation type, as at least a vector, and its normalized dim.
std::pair<Value, int64_t> prepare(LowerCtx& c, Value x, ElementType out) {
  const int64_t dim = normDim(c.i("dim"), x.rank());
  if (!runtime::isFloating(out)) c.fail("softmax to a non-float type");
  x = castTo(c.fn, x, accType(out));
  if (x.rank() == 0) x = c.fn.reshape(x, {1});
  return {x, dim};
}

// Sum (or max) over `dim`, broadcast back to x's shape.
Value rowSum(Function& fn, Value x, int64_t dim) {
  return expandReduced(fn, reduceSum(fn, x, {dim}), x.dims(), {dim});
}
Value rowMax(Function& fn, Value x, int64_t dim) {
  return expandReduced(fn, reduceMax(fn, x, {dim}), x.dims(), {dim});
}

Value finish(LowerCtx& c, Value r) {
  if (r.dims() != c.result().dims) r = c.fn.reshape(r, c.result().dims);
  return r;
}

std::vector<Value> lowerSoftmax(LowerCtx& c, bool log) {
  Function& fn = c.fn;
  auto [x, dim] = prepare(c, c.tensor("self"), c.result().dtype);
  Value shifted = fn.subtract(x, rowMax(fn, x, dim));
  Value e = fn.exp(shifted);
  Value s = rowSum(fn, e, dim);
  Value r = log ? fn.subtract(shifted, fn.log(s)) : fn.divide(e, s);
  return {finish(c, r)};
}

const Registrar kSoftmax({"aten::_softmax", "aten::_softmax.out"},
                         [](LowerCtx& c) { return lowerSoftmax(c, false); });
const Registrar kLogSoftmax({"aten::_log_softmax", "aten::_log_softmax.out"},
                            [](LowerCtx& c) { return lowerSoftmax(c, true); });

std::vector<Value> lowerSoftmaxBackward(LowerCtx& c, bool log) {
  Function& fn = c.fn;
  const ElementType out = c.result().dtype;
  auto [g, dim] = prepare(c, c.tensor("grad_output"), out);
  Value y = castTo(fn, c.tensor("output"), g.dtype());
  if (y.rank() == 0) y = fn.reshape(y, {1});
  Value r = log ? fn.subtract(g, fn.multiply(fn.exp(y), rowSum(fn, g, dim)))
                : fn.multiply(y, fn.subtract(g, rowSum(fn, fn.multiply(g, y), dim)));
  return {finish(c, r)};
}

const Registrar kSoftmaxBackward({"aten::_softmax_backward_data",
                                  "aten::_softmax_backward_data.out"},
                                 [](LowerCtx& c) { return lowerSoftmaxBackward(c, false); });
const Registrar kLogSoftmaxBackward({"aten::_log_softmax_backward_data",
                                     "aten::_log_softmax_backward_data.out"},
                                    [](LowerCtx& c) { return lowerSoftmaxBackward(c, true); });

}  // namespace
}  // namespace torchtpu::lower
