// Multi-class margin losses and their backward ops, over [N, C] (or [C])
// scores: multi_margin_loss (one target class per sample, p = 1 or 2,
// optional class weights) and multilabel_margin_loss (a target list per
// sample, ended by the first -1, with its is_target mask). Targets become
// one-hot masks built with iota and compare, so everything is elementwise
// work and reductions over the class dims.
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;

// Scores as [N, C] and targets as [N] (multi) or [N, C] (multilabel).
struct Batch {
  Value x, target;
  int64_t n = 0, c = 0;
};

Batch batchOf(LowerCtx& c, Value x, Value target, bool multilabel) {
  Function& fn = c.fn;
  if (x.rank() > 2) c.fail("expected scores of at most 2 dims");
  if (x.rank() == 0) x = fn.reshape(x, {1});
  if (x.rank() == 1) {
    const int64_t classes = x.dims()[0];
    x = fn.reshape(x, {1, classes});
    target =
        fn.reshape(target, multilabel ? std::vector<int64_t>{1, classes} : std::vector<int64_t>{1});
  }
  Batch b{castTo(fn, x, accType(x.dtype())), castTo(fn, target, ElementType::kS64), x.dims()[0],
          x.dims()[1]};
  const std::vector<int64_t> want =
      multilabel ? std::vector<int64_t>{b.n, b.c} : std::vector<int64_t>{b.n};
  if (b.target.dims() != want) c.fail("target shape does not match the scores");
  if (b.c == 0) c.fail("scores with no classes");
  return b;
}

// The per-sample factor of the output gradient: grad_output itself ("none"),
// or the scalar gradient (divided by N for "mean"), as [N].
Value sampleGrad(LowerCtx& c, const Batch& b, ElementType t) {
  Function& fn = c.fn;
  Value g = castTo(fn, c.tensor("grad_output"), t);
  const int64_t reduction = c.i("reduction");
  if (reduction == 0) return fn.reshape(g, {b.n});
  g = fn.broadcastInDim(fn.reshape(g, {}), {b.n}, {});
  if (reduction == 1) g = fn.divide(g, fn.constant(static_cast<double>(b.n), t, {b.n}));
  return g;
}

Value reduceLoss(LowerCtx& c, Value perSample, int64_t n) {
  Function& fn = c.fn;
  const int64_t reduction = c.i("reduction");
  const ElementType t = perSample.dtype();
  if (reduction == 0) return fn.reshape(perSample, c.result(0).dims);
  Value s = fn.reduce(perSample, fn.constant(0, t), {0}, B::kAdd);
  if (reduction == 1) s = fn.divide(s, fn.constant(static_cast<double>(n), t));
  return s;
}

// ---- multi_margin_loss ----------------------------------------------------------

struct MultiTerms {
  Value onehot;  // [N, C] i1: the target class
  Value z;       // [N, C] margin - x[y] + x[j]
  Value w;       // [N] weight of the target class (or 1) divided by C
  Value isTwo;   // i1 scalar: p == 2
};

MultiTerms multiTerms(LowerCtx& c, const Batch& b) {
  Function& fn = c.fn;
  const ElementType t = b.x.dtype();
  const std::vector<int64_t> nc = {b.n, b.c};
  MultiTerms m;
  m.onehot = fn.compare(fn.iota(TensorType(ElementType::kS64, nc), 1),
                        fn.broadcastInDim(b.target, nc, {0}), D::kEq);
  Value zeros = fn.constant(0, t, nc);
  Value xy = fn.reduce(fn.select(m.onehot, b.x, zeros), fn.constant(0, t), {1}, B::kAdd);
  Value margin = fn.broadcastInDim(castTo(fn, c.scalar("margin"), t), nc, {});
  m.z = fn.add(fn.subtract(margin, fn.broadcastInDim(xy, nc, {0})), b.x);
  Value w = fn.constant(1.0 / static_cast<double>(b.c), t, {b.n});
  if (auto weight = c.optTensor("weight")) {
    Value wb = fn.broadcastInDim(castTo(fn, *weight, t), nc, {1});
    Value wy = fn.reduce(fn.select(m.onehot, wb, zeros), fn.constant(0, t), {1}, B::kAdd);
    w = fn.multiply(wy, w);
  }
  m.w = w;
  Value p = castTo(fn, c.scalar("p"), ElementType::kF64);
  m.isTwo = fn.compare(p, fn.constant(2, ElementType::kF64), D::kEq);
  return m;
}

std::vector<Value> multiMarginLoss(LowerCtx& c) {
  Function& fn = c.fn;
  const Batch b = batchOf(c, c.tensor("self"), c.tensor("target"), false);
  const ElementType t = b.x.dtype();
  const std::vector<int64_t> nc = {b.n, b.c};
  const MultiTerms m = multiTerms(c, b);
  Value zeros = fn.constant(0, t, nc);
  Value h = fn.maximum(m.z, zeros);
  h = fn.select(fn.broadcastInDim(m.isTwo, nc, {}), fn.multiply(h, h), h);
  h = fn.select(m.onehot, zeros, h);
  Value perSample = fn.multiply(fn.reduce(h, fn.constant(0, t), {1}, B::kAdd), m.w);
  return {reduceLoss(c, perSample, b.n)};
}

std::vector<Value> multiMarginLossBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const Batch b = batchOf(c, self, c.tensor("target"), false);
  const ElementType t = b.x.dtype();
  const std::vector<int64_t> nc = {b.n, b.c};
  const MultiTerms m = multiTerms(c, b);
  Value zeros = fn.constant(0, t, nc);
  Value pos = fn.compare(m.z, zeros, D::kGt);
  Value dz =
      fn.select(fn.broadcastInDim(m.isTwo, nc, {}),
                fn.multiply(fn.constant(2, t, nc), fn.maximum(m.z, zeros)), fn.constant(1, t, nc));
  dz = fn.select(fn.binary(B::kAnd, pos, fn.unary(hlo::UnaryOp::kNot, m.onehot)), dz, zeros);
  Value scale = fn.multiply(sampleGrad(c, b, t), m.w);
  Value g = fn.multiply(dz, fn.broadcastInDim(scale, nc, {0}));
  Value rowSum = fn.reduce(g, fn.constant(0, t), {1}, B::kAdd);
  g = fn.subtract(g, fn.select(m.onehot, fn.broadcastInDim(rowSum, nc, {0}), zeros));
  return {fn.reshape(g, self.dims())};
}

// ---- multilabel_margin_loss -------------------------------------------------------

struct LabelTerms {
  Value valid;     // [N, J] i1: target position j comes before the first -1
  Value onehot;    // [N, J, C] i1: position j names class c (and is valid)
  Value isTarget;  // [N, C] i1
  Value z;         // [N, J, C] 1 - x[y_j] + x[c]
  Value active;    // [N, J, C] i1: the hinge term (j, c) is positive and counted
};

LabelTerms labelTerms(LowerCtx& c, const Batch& b) {
  Function& fn = c.fn;
  const ElementType t = b.x.dtype();
  const int64_t n = b.n, k = b.c;
  const std::vector<int64_t> njj = {n, k, k}, njc = {n, k, k};
  LabelTerms l;
  // Position j is valid when no target at j' <= j is negative.
  Value negAt = fn.compare(fn.broadcastInDim(b.target, njj, {0, 2}),
                           fn.constantInt(0, ElementType::kS64, njj), D::kLt);
  Value upTo = fn.compare(fn.iota(TensorType(ElementType::kS64, njj), 2),
                          fn.iota(TensorType(ElementType::kS64, njj), 1), D::kLe);
  Value stop = fn.binary(B::kAnd, negAt, upTo);
  Value anyStop = fn.reduce(fn.convert(stop, ElementType::kS32),
                            fn.constantInt(0, ElementType::kS32), {2}, B::kMaximum);
  l.valid = fn.compare(anyStop, fn.constantInt(0, ElementType::kS32, {n, k}), D::kEq);
  l.onehot = fn.binary(B::kAnd,
                       fn.compare(fn.broadcastInDim(b.target, njc, {0, 1}),
                                  fn.iota(TensorType(ElementType::kS64, njc), 2), D::kEq),
                       fn.broadcastInDim(l.valid, njc, {0, 1}));
  Value anyTarget = fn.reduce(fn.convert(l.onehot, ElementType::kS32),
                              fn.constantInt(0, ElementType::kS32), {1}, B::kMaximum);
  l.isTarget = fn.compare(anyTarget, fn.constantInt(0, ElementType::kS32, {n, k}), D::kNe);
  // z[n, j, c] = 1 - x[n, y_j] + x[n, c].
  Value xb = fn.broadcastInDim(b.x, njc, {0, 2});
  Value zeros = fn.constant(0, t, njc);
  Value xt = fn.reduce(fn.select(l.onehot, xb, zeros), fn.constant(0, t), {2}, B::kAdd);
  l.z = fn.add(fn.subtract(fn.constant(1, t, njc), fn.broadcastInDim(xt, njc, {0, 1})), xb);
  Value counted =
      fn.binary(B::kAnd, fn.broadcastInDim(l.valid, njc, {0, 1}),
                fn.unary(hlo::UnaryOp::kNot, fn.broadcastInDim(l.isTarget, njc, {0, 2})));
  l.active = fn.binary(B::kAnd, counted, fn.compare(l.z, zeros, D::kGt));
  return l;
}

std::vector<Value> multilabelMarginLoss(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const Batch b = batchOf(c, self, c.tensor("target"), true);
  const ElementType t = b.x.dtype();
  const LabelTerms l = labelTerms(c, b);
  Value h = fn.select(l.active, l.z, fn.constant(0, t, l.z.dims()));
  Value perSample = fn.divide(fn.reduce(h, fn.constant(0, t), {1, 2}, B::kAdd),
                              fn.constant(static_cast<double>(b.c), t, {b.n}));
  Value isTarget = fn.reshape(castTo(fn, l.isTarget, t), self.dims());
  return {reduceLoss(c, perSample, b.n), isTarget};
}

std::vector<Value> multilabelMarginLossBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value self = c.tensor("self");
  const Batch b = batchOf(c, self, c.tensor("target"), true);
  const ElementType t = b.x.dtype();
  const std::vector<int64_t> njc = {b.n, b.c, b.c};
  const LabelTerms l = labelTerms(c, b);
  Value scale = fn.divide(sampleGrad(c, b, t), fn.constant(static_cast<double>(b.c), t, {b.n}));
  Value zeros = fn.constant(0, t, njc);
  Value d = fn.select(l.active, fn.broadcastInDim(scale, njc, {0}), zeros);
  // +d to x[c] (summed over j), -sum_c d to x[y_j].
  Value toC = fn.reduce(d, fn.constant(0, t), {1}, B::kAdd);
  Value perJ = fn.reduce(d, fn.constant(0, t), {2}, B::kAdd);
  Value toY = fn.reduce(fn.select(l.onehot, fn.broadcastInDim(perJ, njc, {0, 1}), zeros),
                        fn.constant(0, t), {1}, B::kAdd);
  return {fn.reshape(fn.subtract(toC, toY), self.dims())};
}

const Registrar kMultiMargin({"aten::multi_margin_loss", "aten::multi_margin_loss.out"},
                             multiMarginLoss);
const Registrar kMultiMarginBackward({"aten::multi_margin_loss_backward",
                                      "aten::multi_margin_loss_backward.grad_input"},
                                     multiMarginLossBackward);
const Registrar kMultilabelMargin({"aten::multilabel_margin_loss_forward",
                                   "aten::multilabel_margin_loss_forward.output"},
                                  multilabelMarginLoss);
const Registrar kMultilabelMarginBackward({"aten::multilabel_margin_loss_backward",
                                           "aten::multilabel_margin_loss_backward.grad_input"},
                                          multilabelMarginLossBackward);

}  // namespace
}  // namespace torchtpu::lower
