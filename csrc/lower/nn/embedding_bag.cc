// embedding_bag: _embedding_bag / _embedding_bag_forward_only (sum, mean, max
// over bags of gathered weight rows, per-sample weights, padding_idx,
// include_last_offset) and the backward ops _embedding_bag_backward (but
// scale_grad_by_freq) and _embedding_bag_per_sample_weights_backward. Bags are
// runtime ranges of the index list, so bag membership is a [B, I] mask from
// iota and compare; sums and means are a product of that mask with the
// gathered rows, max is a masked reduce that also returns the chosen weight
// row per column. The backward ops recompute the mask from indices and
// offsets (B from the gradient) rather than reading offset2bag / bag_size.
#include <limits>

#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using D = hlo::ComparisonDirection;
using B = hlo::BinaryOp;

enum Mode : int64_t { kSum = 0, kMean = 1, kMax = 2 };

struct Bags {
  int64_t b = 0, n = 0;  // bags, indices
  Value indices;         // [I] s64
  Value mask;            // [B, I] i1: index i is in bag b and not padding
  Value bagOf;           // [I] s64
};

Bags bags(LowerCtx& c, int64_t numBags) {
  Function& fn = c.fn;
  Bags g;
  g.indices = castTo(fn, c.tensor("indices"), ElementType::kS64);
  if (g.indices.rank() != 1) c.fail("embedding_bag expects 1-d indices here");
  g.n = g.indices.dims()[0];
  Value off = castTo(fn, c.tensor("offsets"), ElementType::kS64);
  if (off.rank() != 1) c.fail("embedding_bag expects 1-d offsets");
  const int64_t k = off.dims()[0];
  g.b = numBags;
  if (g.b > k || g.b < k - 1 || g.b <= 0) c.fail("offsets do not match the bags");
  Value starts = fn.slice(off, {0}, {g.b});
  // ends[b] = offsets[b + 1], and the index count past the last offset.
  Value ends =
      fn.concatenate({fn.slice(off, {1}, {k}), fn.constantInt(g.n, ElementType::kS64, {1})}, 0);
  ends = fn.slice(ends, {0}, {g.b});
  const std::vector<int64_t> bi = {g.b, g.n};
  Value pos = fn.iota(TensorType(ElementType::kS64, bi), 1);
  Value in = fn.binary(B::kAnd, fn.compare(pos, fn.broadcastInDim(starts, bi, {0}), D::kGe),
                       fn.compare(pos, fn.broadcastInDim(ends, bi, {0}), D::kLt));
  const int64_t pad = c.i("padding_idx");
  if (pad >= 0) {
    Value notPad = fn.compare(g.indices, fn.constantInt(pad, ElementType::kS64, {g.n}), D::kNe);
    in = fn.binary(B::kAnd, in, fn.broadcastInDim(notPad, bi, {1}));
  }
  g.mask = in;
  Value started = fn.compare(fn.broadcastInDim(starts, bi, {0}), pos, D::kLe);
  Value ones = fn.select(started, fn.constantInt(1, ElementType::kS64, bi),
                         fn.constantInt(0, ElementType::kS64, bi));
  g.bagOf = fn.subtract(fn.reduce(ones, fn.constantInt(0, ElementType::kS64), {0}, B::kAdd),
                        fn.constantInt(1, ElementType::kS64, {g.n}));
  return g;
}

// weight[indices]: [I, D].
Value rowsOf(Function& fn, Value weight, Value indices) {
  const int64_t n = indices.dims()[0], d = weight.dims()[1];
  hlo::GatherDims gd;
  gd.offsetDims = {1};
  gd.collapsedSliceDims = {0};
  gd.startIndexMap = {0};
  gd.indexVectorDim = 1;
  return fn.gather(weight, fn.reshape(indices, {n, 1}), gd, {1, d});
}

Value maskAs(Function& fn, Value mask, ElementType t) {
  return fn.select(mask, fn.constant(1, t, mask.dims()), fn.constant(0, t, mask.dims()));
}

Value matmul(Function& fn, Value a, Value b, int64_t ca, int64_t cb) {
  hlo::DotDims d;
  d.lhsContracting = {ca};
  d.rhsContracting = {cb};
  return fn.dotGeneral(a, b, d, std::nullopt, hlo::Precision::kHighest);
}

std::vector<Value> embeddingBag(LowerCtx& c) {
  Function& fn = c.fn;
  Value weight = c.tensor("weight");
  if (weight.rank() != 2 || !runtime::isFloating(weight.dtype())) c.fail("bad weight");
  const ElementType t = weight.dtype();
  const int64_t mode = c.i("mode");
  const int64_t k = c.tensor("offsets").dims().empty() ? 0 : c.tensor("offsets").dims()[0];
  const Bags g = bags(c, c.b("include_last_offset") ? k - 1 : k);
  const int64_t dd = weight.dims()[1];
  Value rows = rowsOf(fn, weight, g.indices);
  Value m = maskAs(fn, g.mask, t);
  Value count = fn.reduce(m, fn.constant(0, t), {1}, B::kAdd);
  Value bagSize = castTo(fn, count, ElementType::kS64);
  Value out, maxIdx;
  if (mode == kSum || mode == kMean) {
    if (auto psw = c.optTensor("per_sample_weights")) {
      if (mode != kSum) c.fail("per_sample_weights need mode 'sum'");
      m = fn.multiply(m, fn.broadcastInDim(castTo(fn, *psw, t), m.dims(), {1}));
    }
    out = matmul(fn, m, rows, 1, 0);
    if (mode == kMean) {
      Value denom = fn.maximum(count, fn.constant(1, t, {g.b}));
      out = fn.divide(out, fn.broadcastInDim(denom, {g.b, dd}, {0}));
    }
    maxIdx = fn.constantInt(0, ElementType::kS64, c.result(3).dims);
  } else if (mode == kMax) {
    const std::vector<int64_t> bid = {g.b, g.n, dd};
    Value vals =
        fn.select(fn.broadcastInDim(g.mask, bid, {0, 1}), fn.broadcastInDim(rows, bid, {1, 2}),
                  fn.constant(-std::numeric_limits<double>::infinity(), t, bid));
    Value pos = fn.iota(TensorType(ElementType::kS64, bid), 1);
    auto body = [](Function& r, const std::vector<Value>& a) {
      // Larger value wins; among equal values the earlier position.
      Value takeB =
          r.binary(B::kOr, r.compare(a[2], a[0], D::kGt),
                   r.binary(B::kAnd, r.compare(a[2], a[0], D::kEq), r.compare(a[3], a[1], D::kLt)));
      return std::vector<Value>{r.select(takeB, a[2], a[0]), r.select(takeB, a[3], a[1])};
    };
    std::vector<Value> r =
        fn.reduce({vals, pos},
                  {fn.constant(-std::numeric_limits<double>::infinity(), t),
                   fn.constantInt(std::numeric_limits<int64_t>::max(), ElementType::kS64)},
                  {1}, body);
    Value empty =
        fn.broadcastInDim(fn.compare(count, fn.constant(0, t, {g.b}), D::kEq), {g.b, dd}, {0});
    out = fn.select(empty, fn.constant(0, t, {g.b, dd}), r[0]);
    Value at = fn.minimum(
        r[1], fn.constantInt(std::max<int64_t>(g.n - 1, 0), ElementType::kS64, {g.b, dd}));
    Value chosen = fn.reshape(
        rowsOf(fn, fn.reshape(g.indices, {g.n, 1}), fn.reshape(at, {g.b * dd})), {g.b, dd});
    maxIdx = fn.select(empty, fn.constantInt(-1, ElementType::kS64, {g.b, dd}), chosen);
  } else {
    c.fail("unknown embedding_bag mode");
  }
  // offset2bag: PyTorch's meta shape is [I], or [0] where its kernel skips it.
  const std::vector<int64_t>& o2b = c.result(1).dims;
  Value offset2bag =
      o2b == std::vector<int64_t>{g.n} ? g.bagOf : fn.constantInt(0, ElementType::kS64, o2b);
  // With include_last_offset PyTorch's bag_size (and max indices) keep one
  // row per offset: the last stays 0.
  auto padRows = [&](Value v, const std::vector<int64_t>& want) {
    if (v.dims() == want || want.empty() || v.rank() != static_cast<int64_t>(want.size()) ||
        want[0] < v.dims()[0]) {
      return v;
    }
    std::vector<int64_t> hi(want.size(), 0);
    hi[0] = want[0] - v.dims()[0];
    return fn.pad(v, fn.constantInt(0, v.dtype()), std::vector<int64_t>(want.size(), 0), hi);
  };
  return {out, offset2bag, padRows(bagSize, c.result(2).dims), padRows(maxIdx, c.result(3).dims)};
}

std::vector<Value> embeddingBagBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value grad = c.tensor("grad");
  const ElementType t = grad.dtype();
  const int64_t mode = c.i("mode");
  const int64_t numWeights = c.i("num_weights");
  const int64_t dd = grad.dims()[1];
  // PyTorch's CPU kernel scales by frequencies it does not count per index
  // value, so scale_grad_by_freq is left to it.
  if (c.b("scale_grad_by_freq")) c.fail("scale_grad_by_freq");
  const Bags g = bags(c, grad.dims()[0]);
  Value zeros = fn.constant(0, t, {numWeights, dd});
  if (mode == kMax) {
    Value mi = castTo(fn, c.tensor("maximum_indices"), ElementType::kS64);
    const std::vector<int64_t> bd = {g.b, dd};
    Value valid = fn.compare(mi, fn.constantInt(0, ElementType::kS64, bd), D::kGe);
    Value row = fn.reshape(fn.maximum(mi, fn.constantInt(0, ElementType::kS64, bd)), {g.b, dd, 1});
    Value col = fn.reshape(fn.iota(TensorType(ElementType::kS64, bd), 1), {g.b, dd, 1});
    hlo::ScatterDims sd;
    sd.insertedWindowDims = {0, 1};
    sd.scatterDimsToOperandDims = {0, 1};
    sd.indexVectorDim = 2;
    auto add = [](Function& r, const std::vector<Value>& a) {
      return std::vector<Value>{r.add(a[0], a[1])};
    };
    Value upd = fn.select(valid, grad, fn.constant(0, t, bd));
    return {fn.scatter({zeros}, fn.concatenate({row, col}, 2), {upd}, sd, add)[0]};
  }
  Value m = maskAs(fn, g.mask, t);
  if (mode == kMean) {
    Value count =
        fn.maximum(fn.reduce(m, fn.constant(0, t), {1}, B::kAdd), fn.constant(1, t, {g.b}));
    m = fn.divide(m, fn.broadcastInDim(count, m.dims(), {0}));
  }
  if (auto psw = c.optTensor("per_sample_weights")) {
    m = fn.multiply(m, fn.broadcastInDim(castTo(fn, *psw, t), m.dims(), {1}));
  }
  Value perIndex = matmul(fn, m, grad, 0, 0);  // [I, D]
  hlo::ScatterDims sd;
  sd.updateWindowDims = {1};
  sd.insertedWindowDims = {0};
  sd.scatterDimsToOperandDims = {0};
  sd.indexVectorDim = 1;
  auto add = [](Function& r, const std::vector<Value>& a) {
    return std::vector<Value>{r.add(a[0], a[1])};
  };
  return {fn.scatter({zeros}, fn.reshape(g.indices, {g.n, 1}), {perIndex}, sd, add)[0]};
}

std::vector<Value> perSampleWeightsBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value grad = c.tensor("grad");
  const ElementType t = grad.dtype();
  if (c.i("mode") != kSum) c.fail("per_sample_weights need mode 'sum'");
  const Bags g = bags(c, grad.dims()[0]);
  Value rows = rowsOf(fn, castTo(fn, c.tensor("weight"), t), g.indices);
  Value perIndex = matmul(fn, maskAs(fn, g.mask, t), grad, 0, 0);  // [I, D]
  return {fn.reduce(fn.multiply(perIndex, rows), fn.constant(0, t), {1}, B::kAdd)};
}

const Registrar kBag({"aten::_embedding_bag", "aten::_embedding_bag.out",
                      "aten::_embedding_bag_forward_only", "aten::_embedding_bag_forward_only.out"},
                     embeddingBag);
const Registrar kBagBackward({"aten::_embedding_bag_backward"}, embeddingBagBackward);
const Registrar kBagPswBackward({"aten::_embedding_bag_per_sample_weights_backward",
                                 "aten::_embedding_bag_per_sample_weights_backward.out"},
                                perSampleWeightsBackward);

}  // namespace
}  // namespace torchtpu::lower
