// Layer norm, batch norm and group norm, forward and backward.
//
// PyTorch semantics implemented here:
// - statistics are computed in f32 for f16/bf16 inputs (f64 stays f64); the
//   variance is the biased one and rstd / invstd = 1 / sqrt(var + eps);
// - native_layer_norm returns (out, mean, rstd) with mean/rstd shaped
//   input.shape[:axis] + [1] * len(normalized_shape);
// - batch norm in training returns the batch mean and invstd (shape [C]) and
//   updates the running stats with momentum, using the unbiased variance; in
//   eval it normalizes with the running stats and returns empty saved stats
//   (whatever shape PyTorch expects, usually [0]);
// - native_group_norm returns (out, mean, rstd) with mean/rstd of shape
//   [N, group];
// - the backward ops get the saved statistics back and return (grad_input,
//   grad_weight, grad_bias); an output PyTorch does not ask for is still
//   computed (zeros where there is no weight).
#include <limits>

#include "lower/core/reduction_util.h"

namespace torchtpu::lower {
namespace {

using hlo::UnaryOp;

Value bcastAlong(Function& fn, Value v, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& dims) {
  return fn.broadcastInDim(v, shape, dims);
}

Value scalarAs(Function& fn, double v, const Value& like) { return splatLike(fn, v, like); }

// v with the dims of result i (reshape only when it is a pure relabeling).
Value shaped(LowerCtx& c, Value v, size_t i) {
  const TensorType& want = c.result(i);
  if (v.dims() != want.dims && v.t().numElements() == want.numElements()) {
    v = c.fn.reshape(v, want.dims);
  }
  return v;
}

// A zero (or empty) value of result i's type.
Value zerosOf(LowerCtx& c, size_t i) {
  const TensorType& t = c.result(i);
  return constantLike(c.fn, 0, t.dtype, t.dims);
}

// The backward ops' outputs, with the ones output_mask leaves out (PyTorch
// returns undefined tensors there) replaced by zeros of the placeholder type
// the bridge expects for them.
std::vector<Value> masked(LowerCtx& c, std::vector<Value> outs) {
  std::vector<int64_t> mask = c.ints("output_mask");
  for (size_t i = 0; i < outs.size() && i < mask.size(); ++i) {
    if (!mask[i]) outs[i] = zerosOf(c, i);
  }
  return outs;
}

// The compute type: f32 for half inputs, and at least as wide as the params.
ElementType computeType(LowerCtx& c, const Value& x, std::initializer_list<const char*> params) {
  ElementType acc = accType(x.dtype());
  if (!runtime::isFloating(acc)) c.fail("normalization of a non-float input");
  for (const char* p : params) {
    if (auto v = c.optTensor(p)) {
      if (runtime::isFloating(v->dtype())) acc = promoteTypes(acc, accType(v->dtype()));
    }
  }
  return acc;
}

// ---- layer norm ----------------------------------------------------------------

std::vector<Value> lowerLayerNorm(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("input");
  const int64_t rank = x.rank();
  const int64_t k = static_cast<int64_t>(c.ints("normalized_shape").size());
  if (k > rank) c.fail("normalized_shape is longer than the input's rank");
  const int64_t axis = rank - k;
  const ElementType acc = computeType(c, x, {"weight", "bias"});
  x = castTo(fn, x, acc);
  std::vector<int64_t> inner, outer;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner).push_back(d);
  const double n = static_cast<double>(countOf(x.dims(), inner));

  Value mean = reduceSum(fn, x, inner);
  mean = fn.divide(mean, scalarAs(fn, n, mean));
  Value d = fn.subtract(x, expandReduced(fn, mean, x.dims(), inner));
  Value var = reduceSum(fn, fn.multiply(d, d), inner);
  var = fn.divide(var, scalarAs(fn, n, var));
  Value rstd = fn.unary(UnaryOp::kRsqrt, fn.add(var, scalarAs(fn, c.d("eps"), var)));
  Value y = fn.multiply(d, expandReduced(fn, rstd, x.dims(), inner));
  if (auto w = c.optTensor("weight"))
    y = fn.multiply(y, bcastAlong(fn, castTo(fn, *w, acc), x.dims(), inner));
  if (auto b = c.optTensor("bias"))
    y = fn.add(y, bcastAlong(fn, castTo(fn, *b, acc), x.dims(), inner));
  return {y, shaped(c, mean, 1), shaped(c, rstd, 2)};
}

const Registrar kLayerNorm({"aten::native_layer_norm", "aten::native_layer_norm.out"},
                           lowerLayerNorm);

std::vector<Value> lowerLayerNormBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value x = c.tensor("input");
  const int64_t rank = x.rank();
  const int64_t k = static_cast<int64_t>(c.ints("normalized_shape").size());
  const int64_t axis = rank - k;
  const ElementType acc = computeType(c, x, {"weight"});
  x = castTo(fn, x, acc);
  Value g = castTo(fn, c.tensor("grad_out"), acc);
  std::vector<int64_t> inner, outer, outerSizes;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner).push_back(d);
  for (int64_t d : outer) outerSizes.push_back(x.dims()[d]);
  const double n = static_cast<double>(countOf(x.dims(), inner));

  auto stat = [&](const char* name) {
    Value s = castTo(fn, fn.reshape(c.tensor(name), outerSizes), acc);
    return bcastAlong(fn, s, x.dims(), outer);
  };
  Value rstd = stat("rstd");
  Value xhat = fn.multiply(fn.subtract(x, stat("mean")), rstd);
  std::optional<Value> w = c.optTensor("weight");
  Value gw = w ? fn.multiply(g, bcastAlong(fn, castTo(fn, *w, acc), x.dims(), inner)) : g;
  auto rowMean = [&](Value v) {
    Value s = reduceSum(fn, v, inner);
    return expandReduced(fn, fn.divide(s, scalarAs(fn, n, s)), x.dims(), inner);
  };
  // dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
  Value dx = fn.multiply(rstd, fn.subtract(fn.subtract(gw, rowMean(gw)),
                                           fn.multiply(xhat, rowMean(fn.multiply(gw, xhat)))));
  std::vector<Value> out{dx};
  out.push_back(w ? shaped(c, reduceSum(fn, fn.multiply(g, xhat), outer), 1) : zerosOf(c, 1));
  out.push_back(shaped(c, reduceSum(fn, g, outer), 2));
  return masked(c, out);
}

const Registrar kLayerNormBackward({"aten::native_layer_norm_backward",
                                    "aten::native_layer_norm_backward.out"},
                                   lowerLayerNormBackward);

// ---- batch norm ------------------------------------------------------------------

struct BatchNormOut {
  Value out, saveMean, saveInvstd;
  std::optional<Value> runningMean, runningVar;  // updated running stats (training)
};

// Normalizes over every dim but 1 (the channels).
BatchNormOut batchNorm(LowerCtx& c, bool training, bool hasRunning) {
  Function& fn = c.fn;
  Value x = c.tensor("input");
  if (x.rank() < 2) c.fail("batch norm needs an input with a channel dim");
  const ElementType acc = computeType(c, x, {"weight", "bias", "running_mean", "running_var"});
  x = castTo(fn, x, acc);
  const std::vector<int64_t> red = otherDims({1}, x.rank());
  const int64_t count = countOf(x.dims(), red);
  const double eps = c.d("eps");
  std::optional<Value> rm, rv;
  if (hasRunning) {
    rm = c.optTensor("running_mean");
    rv = c.optTensor("running_var");
  }
  BatchNormOut r;
  Value mean, invstd;
  if (training || !rm || !rv) {
    mean = reduceSum(fn, x, red);
    mean = fn.divide(mean, scalarAs(fn, static_cast<double>(count), mean));
    Value d = fn.subtract(x, bcastAlong(fn, mean, x.dims(), {1}));
    Value ss = reduceSum(fn, fn.multiply(d, d), red);
    Value var = fn.divide(ss, scalarAs(fn, static_cast<double>(count), ss));
    invstd = fn.unary(UnaryOp::kRsqrt, fn.add(var, scalarAs(fn, eps, var)));
    if (rm && rv) {
      const double m = c.d("momentum");
      const double unbias = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1)
                                      : std::numeric_limits<double>::infinity();
      auto update = [&](Value running, Value batch) {
        Value old = castTo(fn, running, acc);
        Value v = fn.add(fn.multiply(old, scalarAs(fn, 1 - m, old)),
                         fn.multiply(batch, scalarAs(fn, m, batch)));
        return castTo(fn, v, running.dtype());
      };
      r.runningMean = update(*rm, mean);
      r.runningVar = update(*rv, fn.multiply(var, scalarAs(fn, unbias, var)));
    }
  } else {
    mean = castTo(fn, *rm, acc);
    Value var = castTo(fn, *rv, acc);
    invstd = fn.unary(UnaryOp::kRsqrt, fn.add(var, scalarAs(fn, eps, var)));
  }
  Value y = fn.multiply(fn.subtract(x, bcastAlong(fn, mean, x.dims(), {1})),
                        bcastAlong(fn, invstd, x.dims(), {1}));
  if (auto w = c.optTensor("weight"))
    y = fn.multiply(y, bcastAlong(fn, castTo(fn, *w, acc), x.dims(), {1}));
  if (auto b = c.optTensor("bias"))
    y = fn.add(y, bcastAlong(fn, castTo(fn, *b, acc), x.dims(), {1}));
  r.out = y;
  // Eval mode saves nothing: PyTorch returns empty tensors there.
  r.saveMean = c.result(1).numElements() == 0 ? zerosOf(c, 1) : shaped(c, mean, 1);
  r.saveInvstd = c.result(2).numElements() == 0 ? zerosOf(c, 2) : shaped(c, invstd, 2);
  return r;
}

// Ops that update running_mean / running_var in place without returning
// them (native_batch_norm, _native_batch_norm_legit, _batch_norm_with_update)
// need the bridge to write those arguments back. The protocol: the bridge asks
// for extra results after the schema's returns whose write target
// (call.writeBack[j].arg) is running_mean / running_var, and gets the updated
// stats there. Without them, training with running stats fails (so the
// bridge falls back) rather than leave the stats stale.
std::vector<Value> withRunningWrites(LowerCtx& c, const BatchNormOut& r, std::vector<Value> out) {
  const size_t returns = out.size();
  if (!r.runningMean) return out;
  int meanArg = -1, varArg = -1;
  for (size_t k = 0; k < c.call.argNames.size(); ++k) {
    if (c.call.argNames[k] == "running_mean") meanArg = static_cast<int>(k);
    if (c.call.argNames[k] == "running_var") varArg = static_cast<int>(k);
  }
  bool wroteMean = false, wroteVar = false;
  for (size_t j = returns; j < c.results().size(); ++j) {
    const int target = j < c.call.writeBack.size() ? c.call.writeBack[j].arg : -1;
    if (target >= 0 && target == meanArg) {
      out.push_back(*r.runningMean);
      wroteMean = true;
    } else if (target >= 0 && target == varArg) {
      out.push_back(*r.runningVar);
      wroteVar = true;
    } else {
      c.fail("unexpected extra result " + std::to_string(j));
    }
  }
  if (!wroteMean || !wroteVar) {
    c.fail("updating running_mean/running_var in place needs the bridge to write them back");
  }
  return out;
}

// native_batch_norm / _native_batch_norm_legit (train or eval, running stats
// optional) and the .no_stats overload.
std::vector<Value> lowerNativeBatchNorm(LowerCtx& c) {
  BatchNormOut r = batchNorm(c, c.b("training"), c.has("running_mean"));
  return withRunningWrites(c, r, {r.out, r.saveMean, r.saveInvstd});
}

// native_batch_norm writes its running statistics in training, though its
// schema does not say so.
const Registrar kNativeBatchNorm({"aten::native_batch_norm", "aten::native_batch_norm.out"},
                                 lowerNativeBatchNorm,
                                 OpTraits{.writesWhenTraining = {"running_mean", "running_var"}});
const Registrar kBatchNormLegit({"aten::_native_batch_norm_legit",
                                 "aten::_native_batch_norm_legit.out",
                                 "aten::_native_batch_norm_legit.no_stats",
                                 "aten::_native_batch_norm_legit.no_stats_out"},
                                lowerNativeBatchNorm);

const Registrar kBatchNormNoTraining({"aten::_native_batch_norm_legit_no_training",
                                      "aten::_native_batch_norm_legit_no_training.out"},
                                     [](LowerCtx& c) -> std::vector<Value> {
                                       BatchNormOut r = batchNorm(c, false, true);
                                       return {r.out, r.saveMean, r.saveInvstd};
                                     });

// (out, save_mean, save_invstd, running_mean_out, running_var_out)
const Registrar kBatchNormFunctional({"aten::_native_batch_norm_legit_functional"},
                                     [](LowerCtx& c) -> std::vector<Value> {
                                       BatchNormOut r = batchNorm(c, c.b("training"), true);
                                       Value rm = r.runningMean ? *r.runningMean
                                                                : c.tensor("running_mean");
                                       Value rv =
                                           r.runningVar ? *r.runningVar : c.tensor("running_var");
                                       return {r.out, r.saveMean, r.saveInvstd, rm, rv};
                                     });

// The newer entry points: (out, save_mean, save_invstd, reserve).
const Registrar kBatchNormWithUpdate({"aten::_batch_norm_with_update",
                                      "aten::_batch_norm_with_update.out"},
                                     [](LowerCtx& c) -> std::vector<Value> {
                                       BatchNormOut r = batchNorm(c, true, true);
                                       return withRunningWrites(
                                           c, r, {r.out, r.saveMean, r.saveInvstd, zerosOf(c, 3)});
                                     });
const Registrar kBatchNormWithUpdateFunctional({"aten::_batch_norm_with_update_functional"},
                                               [](LowerCtx& c) -> std::vector<Value> {
                                                 BatchNormOut r = batchNorm(c, true, true);
                                                 return {r.out,          r.saveMean,
                                                         r.saveInvstd,   zerosOf(c, 3),
                                                         *r.runningMean, *r.runningVar};
                                               });
const Registrar kBatchNormNoUpdate({"aten::_batch_norm_no_update",
                                    "aten::_batch_norm_no_update.out"},
                                   [](LowerCtx& c) -> std::vector<Value> {
                                     // Batch statistics only without running stats.
                                     BatchNormOut r = batchNorm(c, false, true);
                                     return {r.out, r.saveMean, r.saveInvstd, zerosOf(c, 3)};
                                   });

std::vector<Value> lowerBatchNormBackward(LowerCtx& c, bool train, const char* invstdName) {
  Function& fn = c.fn;
  Value x = c.tensor("input");
  const ElementType acc = computeType(c, x, {"weight", "running_mean", "running_var"});
  x = castTo(fn, x, acc);
  Value g = castTo(fn, c.tensor("grad_out"), acc);
  const std::vector<int64_t> red = otherDims({1}, x.rank());
  const double count = static_cast<double>(countOf(x.dims(), red));
  Value mean, invstd;
  if (train) {
    mean = castTo(fn, c.tensor("save_mean"), acc);
    invstd = castTo(fn, c.tensor(invstdName), acc);
  } else {
    mean = castTo(fn, c.tensor("running_mean"), acc);
    Value var = castTo(fn, c.tensor("running_var"), acc);
    invstd = fn.unary(UnaryOp::kRsqrt, fn.add(var, scalarAs(fn, c.d("eps"), var)));
  }
  auto chan = [&](Value v) { return bcastAlong(fn, v, x.dims(), {1}); };
  Value xhat = fn.multiply(fn.subtract(x, chan(mean)), chan(invstd));
  std::optional<Value> w = c.optTensor("weight");
  Value scale = w ? fn.multiply(castTo(fn, *w, acc), invstd) : invstd;
  Value sumG = reduceSum(fn, g, red);
  Value sumGx = reduceSum(fn, fn.multiply(g, xhat), red);
  Value dx;
  if (train) {
    // dx = w * invstd * (g - mean(g) - xhat * mean(g * xhat))
    Value mg = fn.divide(sumG, scalarAs(fn, count, sumG));
    Value mgx = fn.divide(sumGx, scalarAs(fn, count, sumGx));
    dx = fn.subtract(fn.subtract(g, chan(mg)), fn.multiply(xhat, chan(mgx)));
    dx = fn.multiply(dx, chan(scale));
  } else {
    dx = fn.multiply(g, chan(scale));
  }
  return masked(c, {dx, shaped(c, sumGx, 1), shaped(c, sumG, 2)});
}

const Registrar kNativeBatchNormBackward(
    {"aten::native_batch_norm_backward", "aten::native_batch_norm_backward.out"},
    [](LowerCtx& c) { return lowerBatchNormBackward(c, c.b("train"), "save_invstd"); });
// batch_norm_backward's save_var holds the saved invstd, as in PyTorch.
const Registrar kBatchNormBackward({"aten::batch_norm_backward"}, [](LowerCtx& c) {
  return lowerBatchNormBackward(c, c.b("update"), "save_var");
});

// ---- group norm ------------------------------------------------------------------

struct GroupDims {
  int64_t n, c, hw, g;
};

GroupDims groupDims(LowerCtx& c) {
  GroupDims d{c.i("N"), c.i("C"), c.i("HxW"), c.i("group")};
  if (d.g <= 0 || d.c % d.g != 0) c.fail("C is not divisible by group");
  return d;
}

std::vector<Value> lowerGroupNorm(LowerCtx& c) {
  Function& fn = c.fn;
  Value input = c.tensor("input");
  const GroupDims gd = groupDims(c);
  const ElementType acc = computeType(c, input, {"weight", "bias"});
  // [N, G, C/G, HxW]
  const std::vector<int64_t> shape{gd.n, gd.g, gd.c / gd.g, gd.hw};
  Value x = fn.reshape(castTo(fn, input, acc), shape);
  const double count = static_cast<double>((gd.c / gd.g) * gd.hw);
  Value mean = reduceSum(fn, x, {2, 3});
  mean = fn.divide(mean, scalarAs(fn, count, mean));
  Value d = fn.subtract(x, bcastAlong(fn, mean, shape, {0, 1}));
  Value var = reduceSum(fn, fn.multiply(d, d), {2, 3});
  var = fn.divide(var, scalarAs(fn, count, var));
  Value rstd = fn.unary(UnaryOp::kRsqrt, fn.add(var, scalarAs(fn, c.d("eps"), var)));
  Value y = fn.multiply(d, bcastAlong(fn, rstd, shape, {0, 1}));
  auto perChannel = [&](Value v) {
    return bcastAlong(fn, fn.reshape(castTo(fn, v, acc), {gd.g, gd.c / gd.g}), shape, {1, 2});
  };
  if (auto w = c.optTensor("weight")) y = fn.multiply(y, perChannel(*w));
  if (auto b = c.optTensor("bias")) y = fn.add(y, perChannel(*b));
  return {fn.reshape(y, input.dims()), shaped(c, mean, 1), shaped(c, rstd, 2)};
}

const Registrar kGroupNorm({"aten::native_group_norm", "aten::native_group_norm.out"},
                           lowerGroupNorm);

std::vector<Value> lowerGroupNormBackward(LowerCtx& c) {
  Function& fn = c.fn;
  Value input = c.tensor("input");
  const GroupDims gd = groupDims(c);
  const ElementType acc = computeType(c, input, {"weight"});
  const int64_t cg = gd.c / gd.g;
  const std::vector<int64_t> shape{gd.n, gd.g, cg, gd.hw};
  Value x = fn.reshape(castTo(fn, input, acc), shape);
  Value g = fn.reshape(castTo(fn, c.tensor("grad_out"), acc), shape);
  auto stat = [&](const char* name) {
    Value s = fn.reshape(castTo(fn, c.tensor(name), acc), {gd.n, gd.g});
    return bcastAlong(fn, s, shape, {0, 1});
  };
  Value rstd = stat("rstd");
  Value xhat = fn.multiply(fn.subtract(x, stat("mean")), rstd);
  std::optional<Value> w = c.optTensor("weight");
  Value gw = g;
  if (w)
    gw = fn.multiply(g, bcastAlong(fn, fn.reshape(castTo(fn, *w, acc), {gd.g, cg}), shape, {1, 2}));
  const double count = static_cast<double>(cg * gd.hw);
  auto groupMean = [&](Value v) {
    Value s = reduceSum(fn, v, {2, 3});
    return bcastAlong(fn, fn.divide(s, scalarAs(fn, count, s)), shape, {0, 1});
  };
  Value dx = fn.multiply(rstd, fn.subtract(fn.subtract(gw, groupMean(gw)),
                                           fn.multiply(xhat, groupMean(fn.multiply(gw, xhat)))));
  std::vector<Value> out{fn.reshape(dx, input.dims())};
  out.push_back(w ? shaped(c, reduceSum(fn, fn.multiply(g, xhat), {0, 3}), 1) : zerosOf(c, 1));
  out.push_back(shaped(c, reduceSum(fn, g, {0, 3}), 2));
  return masked(c, out);
}

const Registrar kGroupNormBackward({"aten::native_group_norm_backward",
                                    "aten::native_group_norm_backward.out"},
                                   lowerGroupNormBackward);

}  // namespace
}  // namespace torchtpu::lower
