// The fused LSTM and GRU cells and their backward ops: on CUDA, XPU and PrivateUse1 devices
// torch.nn.LSTM / GRU (and LSTMCell / GRUCell) compute the gate matmuls
// themselves and hand the pointwise part to _thnn_fused_{lstm,gru}_cell,
// whose backward ops take the saved `workspace`. PyTorch has no CPU kernel
// for them, so without these lowerings the CPU fallback cannot run them
// either. Semantics (PyTorch's CUDA kernels), gates of width H along dim 1:
// - LSTM forward: gates = input_gates + hidden_gates (+ both biases), split
//   (i, f, g, o); i, f, o = sigmoid, g = tanh; cy = f * cx + i * g,
//   hy = o * tanh(cy); workspace = [i, f, g, o] (activated), shape [B, 4H].
// - LSTM backward (_impl): from grad_hy / grad_cy (either may be absent),
//   returns (grad_gates [B, 4H], grad_cx, grad_bias = grad_gates.sum(0) or
//   undefined without bias).
// - GRU forward: r = sigmoid(ir + hr), z = sigmoid(ii + hi),
//   n = tanh(in + r * hn) (biases added to their gates), hy = n + z * (hx - n);
//   workspace = [r, z, n, hx, hn + hidden bias], shape [B, 5H].
// - GRU backward: (grad_input_gates, grad_hidden_gates [B, 3H], grad_hx,
//   and the two bias gradients, the gates' column sums, or undefined).
// f16/bf16 compute in f32 and round once (the bridge casts the results).
#include "lower/core/common.h"

namespace torchtpu::lower {
namespace {

using hlo::BinaryOp;
using hlo::UnaryOp;

ElementType computeType(const Value& v) {
  const ElementType t = accType(v.dtype());
  if (t != ElementType::kF32 && t != ElementType::kF64) {
    throw LoweringError("fused RNN cell: needs floating-point tensors");
  }
  return t;
}

Value requireRank2(LowerCtx& c, std::string_view name) {
  Value v = c.tensor(name);
  if (v.rank() != 2) c.fail(std::string(name) + " must be 2-d");
  return v;
}

// Column block k (of width h) of a [B, n * h] value.
Value chunk(Function& fn, const Value& v, int64_t k, int64_t h) {
  return fn.slice(v, {0, k * h}, {v.dims()[0], (k + 1) * h});
}

Value sigmoid(Function& fn, const Value& x) { return fn.unary(UnaryOp::kLogistic, x); }
Value tanh(Function& fn, const Value& x) { return fn.unary(UnaryOp::kTanh, x); }
Value one(Function& fn, const Value& like) {
  return constantLike(fn, 1, like.dtype(), like.dims());
}
Value oneMinus(Function& fn, const Value& x) { return fn.subtract(one(fn, x), x); }

// input_gates and hidden_gates, each plus its bias (along dim 1), in `t`.
struct Gates {
  Value input, hidden;
};
Gates addGates(LowerCtx& c, ElementType t) {
  Function& fn = c.fn;
  Value in = requireRank2(c, "input_gates");
  Value hid = requireRank2(c, "hidden_gates");
  if (in.dims() != hid.dims()) c.fail("input_gates and hidden_gates differ in shape");
  in = castTo(fn, in, t);
  hid = castTo(fn, hid, t);
  auto bias = c.optTensor("input_bias");
  auto hbias = c.optTensor("hidden_bias");
  if (bias.has_value() != hbias.has_value()) c.fail("needs both biases or neither");
  if (bias) {
    auto along = [&](Value b) {
      if (b.rank() != 1 || b.dims()[0] != in.dims()[1]) c.fail("bias of the wrong shape");
      return fn.broadcastInDim(castTo(fn, b, t), in.dims(), {1});
    };
    in = fn.add(in, along(*bias));
    hid = fn.add(hid, along(*hbias));
  }
  return {in, hid};
}

// Gates and the hidden size of a cell with `n` gates, checked against the
// state argument `state` ([B, H]).
int64_t hiddenSize(LowerCtx& c, const Value& gates, const Value& state, int64_t n) {
  if (state.rank() != 2 || gates.dims()[0] != state.dims()[0] ||
      gates.dims()[1] != n * state.dims()[1]) {
    c.fail("gates and state sizes do not match");
  }
  return state.dims()[1];
}

Value columnSum(Function& fn, const Value& v) {
  return fn.reduce(v, constantLike(fn, 0, v.dtype()), {0}, BinaryOp::kAdd);
}

// Placeholder for a result PyTorch leaves undefined (the bridge discards it).
Value placeholder(Function& fn, const Value& like) { return constantLike(fn, 0, like.dtype(), {}); }

const Registrar kFusedLstmCell({"aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_lstm_cell.out"},
                               [](LowerCtx& c) -> std::vector<Value> {
                                 Function& fn = c.fn;
                                 Value cx = requireRank2(c, "cx");
                                 const ElementType t = computeType(cx);
                                 Gates parts = addGates(c, t);
                                 Value gates = fn.add(parts.input, parts.hidden);
                                 const int64_t h = hiddenSize(c, gates, cx, 4);
                                 cx = castTo(fn, cx, t);
                                 Value i = sigmoid(fn, chunk(fn, gates, 0, h));
                                 Value f = sigmoid(fn, chunk(fn, gates, 1, h));
                                 Value g = tanh(fn, chunk(fn, gates, 2, h));
                                 Value o = sigmoid(fn, chunk(fn, gates, 3, h));
                                 Value cy = fn.add(fn.multiply(f, cx), fn.multiply(i, g));
                                 Value hy = fn.multiply(o, tanh(fn, cy));
                                 return {hy, cy, fn.concatenate({i, f, g, o}, 1)};
                               });

const Registrar kFusedLstmCellBackward(
    {"aten::_thnn_fused_lstm_cell_backward_impl", "aten::_thnn_fused_lstm_cell_backward_impl.out"},
    [](LowerCtx& c) -> std::vector<Value> {
      Function& fn = c.fn;
      Value cx = requireRank2(c, "cx");
      Value ws = requireRank2(c, "workspace");
      const ElementType t = computeType(ws);
      const int64_t h = hiddenSize(c, ws, cx, 4);
      auto ghy = c.optTensor("grad_hy");
      auto gcy = c.optTensor("grad_cy");
      if (!ghy && !gcy) {
        Value z = placeholder(fn, ws);
        return {z, z, z};
      }
      cx = castTo(fn, cx, t);
      Value cy = castTo(fn, c.tensor("cy"), t);
      ws = castTo(fn, ws, t);
      Value zero = constantLike(fn, 0, t, cx.dims());
      Value go = ghy ? castTo(fn, *ghy, t) : zero;
      Value goc = gcy ? castTo(fn, *gcy, t) : zero;
      Value i = chunk(fn, ws, 0, h), f = chunk(fn, ws, 1, h);
      Value g = chunk(fn, ws, 2, h), o = chunk(fn, ws, 3, h);
      Value tcy = tanh(fn, cy);
      Value gc = fn.add(fn.multiply(fn.multiply(go, o), oneMinus(fn, fn.multiply(tcy, tcy))), goc);
      Value gi = fn.multiply(fn.multiply(gc, g), fn.multiply(oneMinus(fn, i), i));
      Value gf = fn.multiply(fn.multiply(gc, cx), fn.multiply(oneMinus(fn, f), f));
      Value gg = fn.multiply(fn.multiply(gc, i), oneMinus(fn, fn.multiply(g, g)));
      Value gout = fn.multiply(fn.multiply(go, tcy), fn.multiply(oneMinus(fn, o), o));
      Value gates = fn.concatenate({gi, gf, gg, gout}, 1);
      Value bias = c.b("has_bias") ? columnSum(fn, gates) : placeholder(fn, gates);
      return {gates, fn.multiply(gc, f), bias};
    });

const Registrar kFusedGruCell({"aten::_thnn_fused_gru_cell", "aten::_thnn_fused_gru_cell.out"},
                              [](LowerCtx& c) -> std::vector<Value> {
                                Function& fn = c.fn;
                                Value hx = requireRank2(c, "hx");
                                const ElementType t = computeType(hx);
                                Gates gates = addGates(c, t);
                                const int64_t h = hiddenSize(c, gates.input, hx, 3);
                                hx = castTo(fn, hx, t);
                                auto gate = [&](int64_t k) {
                                  return fn.add(chunk(fn, gates.input, k, h),
                                                chunk(fn, gates.hidden, k, h));
                                };
                                Value r = sigmoid(fn, gate(0));
                                Value z = sigmoid(fn, gate(1));
                                Value hn = chunk(fn, gates.hidden, 2, h);
                                Value n = tanh(
                                    fn, fn.add(chunk(fn, gates.input, 2, h), fn.multiply(r, hn)));
                                Value hy = fn.add(n, fn.multiply(z, fn.subtract(hx, n)));
                                return {hy, fn.concatenate({r, z, n, hx, hn}, 1)};
                              });

const Registrar kFusedGruCellBackward(
    {"aten::_thnn_fused_gru_cell_backward", "aten::_thnn_fused_gru_cell_backward.out"},
    [](LowerCtx& c) -> std::vector<Value> {
      Function& fn = c.fn;
      Value go = requireRank2(c, "grad_hy");
      Value ws = requireRank2(c, "workspace");
      const ElementType t = computeType(ws);
      const int64_t h = hiddenSize(c, ws, go, 5);
      go = castTo(fn, go, t);
      ws = castTo(fn, ws, t);
      Value r = chunk(fn, ws, 0, h), z = chunk(fn, ws, 1, h), n = chunk(fn, ws, 2, h);
      Value hx = chunk(fn, ws, 3, h), hn = chunk(fn, ws, 4, h);
      Value gz = fn.multiply(fn.multiply(go, fn.subtract(hx, n)), fn.multiply(oneMinus(fn, z), z));
      Value ghx = fn.multiply(go, z);
      Value gn = fn.multiply(fn.multiply(go, oneMinus(fn, z)), oneMinus(fn, fn.multiply(n, n)));
      Value ghn = fn.multiply(gn, r);
      Value gr = fn.multiply(fn.multiply(gn, hn), fn.multiply(oneMinus(fn, r), r));
      Value gin = fn.concatenate({gr, gz, gn}, 1);
      Value ghid = fn.concatenate({gr, gz, ghn}, 1);
      if (!c.b("has_bias")) {
        Value p = placeholder(fn, gin);
        return {gin, ghid, ghx, p, p};
      }
      return {gin, ghid, ghx, columnSum(fn, gin), columnSum(fn, ghid)};
    });

}  // namespace
}  // namespace torchtpu::lower
