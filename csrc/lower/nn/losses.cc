// Loss functions and their backward ops: nll_loss (1-d/2-d input and the
// 2d / N-d spatial variant), mse_loss, binary_cross_entropy(_with_logits),
// smooth_l1_loss and huber_loss.
//
// PyTorch semantics implemented here:
// - reduction: 0 = none, 1 = mean (over all elements), 2 = sum;
// - nll_loss: loss_i = -w[t_i] * x[i, t_i], with w = 0 where t_i ==
//   ignore_index; "mean" divides by total_weight = sum of those w (so all
//   ignored gives NaN), "none" reports total_weight 0; an out-of-range target
//   contributes 0 (PyTorch raises there: a device-side check, which
//   launch_blocking mode raises);
// - binary_cross_entropy clamps each log term at -100, its backward divides by
//   max(x * (1 - x), 1e-12);
// - binary_cross_entropy_with_logits = (1 - t) * x - lw * log_sigmoid(x), with
//   lw = (pos_weight - 1) * t + 1;
// - smooth_l1 with beta <= 0 is l1 (also in the backward); huber as PyTorch.
#include "lower/core/device_checks.h"
#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::ComparisonDirection;
using hlo::UnaryOp;

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

Value scalarAs(Function& fn, double v, const Value& like) { return splatLike(fn, v, like); }

int64_t reductionOf(LowerCtx& c) {
  const int64_t r = c.i("reduction");
  if (r < 0 || r > 2) c.fail("unknown reduction " + std::to_string(r));
  return r;
}

// Applies the reduction to the elementwise loss.
Value reduceLoss(Function& fn, Value loss, int64_t reduction) {
  if (reduction == kNone) return loss;
  Value s = reduceSum(fn, loss, allDims(loss.rank()));
  if (reduction == kSum) return s;
  return fn.divide(s, scalarAs(fn, static_cast<double>(loss.t().numElements()), s));
}

// The compute type and broadcast shape of a pointwise loss's inputs.
struct Pointwise {
  ElementType acc;
  std::vector<int64_t> shape;
};

Pointwise pointwise(LowerCtx& c, std::initializer_list<const char*> names, ElementType out) {
  std::vector<std::vector<int64_t>> shapes;
  for (const char* n : names) {
    if (auto v = c.optTensor(n)) shapes.push_back(v->dims());
  }
  if (!runtime::isFloating(out)) c.fail("loss of a non-float type");
  return {accType(out), broadcastShapes(shapes)};
}

Value arg(LowerCtx& c, const char* name, const Pointwise& p) {
  return fit(c.fn, c.tensor(name), p.acc, p.shape);
}

// The upstream gradient scaled by the reduction's 1/N, in the loss's shape.
Value upstream(LowerCtx& c, const Pointwise& p, int64_t reduction) {
  Function& fn = c.fn;
  Value g = castTo(fn, c.tensor("grad_output"), p.acc);
  if (reduction == kMean) {
    int64_t n = 1;
    for (int64_t s : p.shape) n *= s;
    g = fn.divide(g, scalarAs(fn, static_cast<double>(n), g));
  }
  return broadcastTo(fn, g, p.shape);
}

// A result in the shape of input `name` (the loss may be broadcast wider only
// when PyTorch itself would fail, so a reshape is all that is left to do).
Value finish(LowerCtx& c, Value v) {
  if (v.dims() != c.result().dims && v.t().numElements() == c.result().numElements()) {
    v = c.fn.reshape(v, c.result().dims);
  }
  return v;
}

// ---- nll_loss ----------------------------------------------------------------------

struct NllParts {
  Value hit;      // [x dims] i1: class == target and target is not ignored
  Value weightB;  // [x dims]: the class weights (or 1) broadcast along the class dim
  Value w;        // [target dims]: the weight of each target (0 if ignored)
  int64_t classDim;
};

NllParts nllParts(LowerCtx& c, const Value& x) {
  Function& fn = c.fn;
  Value t = castTo(fn, c.tensor("target"), ElementType::kS64);
  const int64_t classDim = x.rank() == 1 ? 0 : 1;
  if (x.rank() < 1) c.fail("nll_loss of a 0-d input");
  std::vector<int64_t> targetDims = otherDims({classDim}, x.rank());
  std::vector<int64_t> expectDims;
  for (int64_t d : targetDims) expectDims.push_back(x.dims()[d]);
  if (t.t().numElements() != countOf(x.dims(), targetDims)) c.fail("target does not match input");
  t = fn.reshape(t, expectDims);
  Value tb = fn.broadcastInDim(t, x.dims(), targetDims);
  Value cls = fn.iota(TensorType(ElementType::kS64, x.dims()), classDim);
  Value ignore = fn.constantInt(c.i("ignore_index"), ElementType::kS64, x.dims());
  Value hit = fn.binary(hlo::BinaryOp::kAnd, fn.compare(tb, cls, ComparisonDirection::kEq),
                        fn.compare(tb, ignore, ComparisonDirection::kNe));
  Value weightB = scalarAs(fn, 1, x);
  if (auto w = c.optTensor("weight")) {
    weightB = fn.broadcastInDim(castTo(fn, *w, x.dtype()), x.dims(), {classDim});
  }
  Value w = reduceSum(fn, fn.select(hit, weightB, scalarAs(fn, 0, x)), {classDim});
  return {hit, weightB, w, classDim};
}

std::vector<Value> lowerNllForward(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType out = c.result(0).dtype;
  if (!runtime::isFloating(out)) c.fail("nll_loss of a non-float type");
  Value x = castTo(fn, c.tensor("self"), accType(out));
  NllParts p = nllParts(c, x);
  checkIndexRange(c, c.tensor("target"), 0, x.dims()[p.classDim], DeviceCheck::Error::kIndex,
                  "Target {} is out of bounds.", c.i("ignore_index"));
  // -x[i, t_i] * w_i, summed over the class dim (only the hit contributes).
  Value picked = fn.select(p.hit, fn.multiply(x, p.weightB), scalarAs(fn, 0, x));
  Value loss = fn.negate(reduceSum(fn, picked, {p.classDim}));
  const int64_t reduction = reductionOf(c);
  if (reduction == kNone) {
    return {finish(c, loss), constantLike(fn, 0, c.result(1).dtype, c.result(1).dims)};
  }
  Value total = reduceSum(fn, p.w, allDims(p.w.rank()));
  Value s = reduceSum(fn, loss, allDims(loss.rank()));
  if (reduction == kMean) s = fn.divide(s, total);
  return {s, total};
}

const Registrar kNllForward({"aten::nll_loss_forward", "aten::nll_loss_forward.output",
                             "aten::nll_loss2d_forward", "aten::nll_loss2d_forward.output"},
                            lowerNllForward);

std::vector<Value> lowerNllBackward(LowerCtx& c) {
  Function& fn = c.fn;
  const ElementType out = c.result().dtype;
  if (!runtime::isFloating(out)) c.fail("nll_loss of a non-float type");
  Value x = castTo(fn, c.tensor("self"), accType(out));
  NllParts p = nllParts(c, x);
  Value g = castTo(fn, c.tensor("grad_output"), x.dtype());
  const int64_t reduction = reductionOf(c);
  if (reduction == kNone) {
    std::vector<int64_t> targetDims = otherDims({p.classDim}, x.rank());
    std::vector<int64_t> sizes;
    for (int64_t d : targetDims) sizes.push_back(x.dims()[d]);
    g = fn.broadcastInDim(fn.reshape(g, sizes), x.dims(), targetDims);
  } else {
    g = fn.reshape(g, {});
    if (reduction == kMean)
      g = fn.divide(g, fn.reshape(castTo(fn, c.tensor("total_weight"), x.dtype()), {}));
    g = fn.broadcastInDim(g, x.dims(), {});
  }
  Value grad = fn.select(p.hit, fn.negate(fn.multiply(p.weightB, g)), scalarAs(fn, 0, x));
  return {grad};
}

const Registrar kNllBackward({"aten::nll_loss_backward", "aten::nll_loss_backward.grad_input",
                              "aten::nll_loss2d_backward", "aten::nll_loss2d_backward.grad_input"},
                             lowerNllBackward);

// ---- mse_loss ----------------------------------------------------------------------

std::vector<Value> lowerMse(LowerCtx& c) {
  Pointwise p = pointwise(c, {"self", "target"}, c.result().dtype);
  Value d = c.fn.subtract(arg(c, "self", p), arg(c, "target", p));
  return {finish(c, reduceLoss(c.fn, c.fn.multiply(d, d), reductionOf(c)))};
}

std::vector<Value> lowerMseBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target"}, c.result().dtype);
  Value d = fn.subtract(arg(c, "self", p), arg(c, "target", p));
  Value g = upstream(c, p, reductionOf(c));
  return {finish(c, fn.multiply(fn.multiply(d, scalarAs(fn, 2, d)), g))};
}

const Registrar kMse({"aten::mse_loss", "aten::mse_loss.out"}, lowerMse);
const Registrar kMseBackward({"aten::mse_loss_backward", "aten::mse_loss_backward.grad_input"},
                             lowerMseBackward);

// ---- binary cross entropy ---------------------------------------------------------

std::vector<Value> lowerBce(LowerCtx& c) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target", "weight"}, c.result().dtype);
  Value x = arg(c, "self", p), t = arg(c, "target", p);
  Value floor = scalarAs(fn, -100, x);
  Value logX = fn.maximum(fn.log(x), floor);
  Value log1mX = fn.maximum(fn.unary(UnaryOp::kLogPlusOne, fn.negate(x)), floor);
  // (t - 1) * log(1 - x) - t * log(x)
  Value loss =
      fn.subtract(fn.multiply(fn.subtract(t, scalarAs(fn, 1, t)), log1mX), fn.multiply(t, logX));
  if (!c.isNone("weight")) loss = fn.multiply(loss, arg(c, "weight", p));
  return {finish(c, reduceLoss(fn, loss, reductionOf(c)))};
}

std::vector<Value> lowerBceBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target", "weight"}, c.result().dtype);
  Value x = arg(c, "self", p), t = arg(c, "target", p);
  Value denom =
      fn.maximum(fn.multiply(fn.subtract(scalarAs(fn, 1, x), x), x), scalarAs(fn, 1e-12, x));
  Value grad = fn.divide(fn.subtract(x, t), denom);
  grad = fn.multiply(grad, upstream(c, p, reductionOf(c)));
  if (!c.isNone("weight")) grad = fn.multiply(grad, arg(c, "weight", p));
  return {finish(c, grad)};
}

const Registrar kBce({"aten::binary_cross_entropy", "aten::binary_cross_entropy.out"}, lowerBce);
const Registrar kBceBackward({"aten::binary_cross_entropy_backward",
                              "aten::binary_cross_entropy_backward.grad_input"},
                             lowerBceBackward);

std::vector<Value> lowerBceWithLogits(LowerCtx& c) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target", "weight", "pos_weight"}, c.result().dtype);
  Value x = arg(c, "self", p), t = arg(c, "target", p);
  // log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))
  Value logSig = fn.subtract(fn.minimum(x, scalarAs(fn, 0, x)),
                             fn.unary(UnaryOp::kLogPlusOne, fn.exp(fn.negate(fn.abs(x)))));
  if (!c.isNone("pos_weight")) {
    Value pw = arg(c, "pos_weight", p);
    Value lw = fn.add(fn.multiply(fn.subtract(pw, scalarAs(fn, 1, pw)), t), scalarAs(fn, 1, t));
    logSig = fn.multiply(logSig, lw);
  }
  Value loss = fn.subtract(fn.multiply(fn.subtract(scalarAs(fn, 1, t), t), x), logSig);
  if (!c.isNone("weight")) loss = fn.multiply(loss, arg(c, "weight", p));
  return {finish(c, reduceLoss(fn, loss, reductionOf(c)))};
}

const Registrar kBceWithLogits({"aten::binary_cross_entropy_with_logits",
                                "aten::binary_cross_entropy_with_logits.out"},
                               lowerBceWithLogits);

// ---- smooth_l1 / huber ------------------------------------------------------------

std::vector<Value> lowerSmoothL1(LowerCtx& c) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target"}, c.result().dtype);
  Value z = fn.abs(fn.subtract(arg(c, "self", p), arg(c, "target", p)));
  const double beta = c.d("beta");
  Value loss = z;
  if (beta > 0) {
    // z < beta ? 0.5 * z^2 / beta : z - 0.5 * beta
    Value quad =
        fn.divide(fn.multiply(scalarAs(fn, 0.5, z), fn.multiply(z, z)), scalarAs(fn, beta, z));
    Value lin = fn.subtract(z, scalarAs(fn, 0.5 * beta, z));
    loss = fn.select(fn.compare(z, scalarAs(fn, beta, z), ComparisonDirection::kLt), quad, lin);
  }
  return {finish(c, reduceLoss(fn, loss, reductionOf(c)))};
}

std::vector<Value> lowerHuber(LowerCtx& c) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target"}, c.result().dtype);
  Value z = fn.abs(fn.subtract(arg(c, "self", p), arg(c, "target", p)));
  const double delta = c.d("delta");
  // z < delta ? 0.5 * z^2 : delta * (z - 0.5 * delta)
  Value quad = fn.multiply(scalarAs(fn, 0.5, z), fn.multiply(z, z));
  Value lin = fn.multiply(scalarAs(fn, delta, z), fn.subtract(z, scalarAs(fn, 0.5 * delta, z)));
  Value loss =
      fn.select(fn.compare(z, scalarAs(fn, delta, z), ComparisonDirection::kLt), quad, lin);
  return {finish(c, reduceLoss(fn, loss, reductionOf(c)))};
}

// d(loss)/dx = clamp(d / beta, -1, 1) (sign(d) for beta <= 0) for smooth_l1,
// clamp(d, -delta, delta) for huber; both times the upstream gradient.
std::vector<Value> lowerSmoothBackward(LowerCtx& c, bool huber) {
  Function& fn = c.fn;
  Pointwise p = pointwise(c, {"self", "target", "grad_output"}, c.result().dtype);
  Value d = fn.subtract(arg(c, "self", p), arg(c, "target", p));
  Value g = upstream(c, p, reductionOf(c));
  Value grad;
  if (huber) {
    const double delta = c.d("delta");
    grad = fn.clamp(scalarAs(fn, -delta, d), d, scalarAs(fn, delta, d));
  } else {
    const double beta = c.d("beta");
    if (beta <= 0) {
      grad = fn.unary(UnaryOp::kSign, d);
    } else {
      grad = fn.clamp(scalarAs(fn, -1, d), fn.divide(d, scalarAs(fn, beta, d)), scalarAs(fn, 1, d));
    }
  }
  return {finish(c, fn.multiply(grad, g))};
}

const Registrar kSmoothL1({"aten::smooth_l1_loss", "aten::smooth_l1_loss.out"}, lowerSmoothL1);
const Registrar kHuber({"aten::huber_loss", "aten::huber_loss.out"}, lowerHuber);
const Registrar kSmoothL1Backward({"aten::smooth_l1_loss_backward",
                                   "aten::smooth_l1_loss_backward.grad_input"},
                                  [](LowerCtx& c) { return lowerSmoothBackward(c, false); });
const Registrar kHuberBackward({"aten::huber_loss_backward", "aten::huber_loss_backward.out"},
                               [](LowerCtx& c) { return lowerSmoothBackward(c, true); });

}  // namespace
}  // namespace torchtpu::lower
