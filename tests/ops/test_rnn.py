"""Recurrent cells on "tpu" vs PyTorch CPU. On the device, LSTM and GRU run
through the fused cell ops (_thnn_fused_lstm_cell, _thnn_fused_gru_cell and
their backward ops), which PyTorch's CPU path does not use: the CPU computes
the same cells from matmuls and pointwise ops. Forward and backward (inputs
and weights), with and without biases, with no CPU fallback."""

from __future__ import annotations

import copy

import pytest
import torch
from compare_cpu import run
from torch import nn

import torchtpu

D = "tpu"


def module_grads(make, *inputs, atol=1e-5, rtol=1e-5, dtype=torch.float32):
    """A module's outputs and its parameters' gradients, CPU vs tpu (the
    outputs' sum of squares is the loss)."""
    torch.manual_seed(0)
    cpu = make().to(dtype)
    dev = copy.deepcopy(cpu).to(D)

    def loss(m, xs):
        out = m(*xs)
        flat = []
        for o in out if isinstance(out, tuple) else (out,):
            flat.extend(o if isinstance(o, tuple) else (o,))
        return sum((o.float() ** 2).sum() for o in flat), flat

    torchtpu.metrics.reset()
    want, want_out = loss(cpu, inputs)

    def to_dev(x):
        return tuple(t.to(D) for t in x) if isinstance(x, tuple) else x.to(D)

    got, got_out = loss(dev, tuple(to_dev(x) for x in inputs))
    want.backward()
    got.backward()
    for g, w in zip(got_out, want_out, strict=True):
        torch.testing.assert_close(g.cpu(), w.detach(), atol=atol, rtol=rtol)
    for (name, p), q in zip(cpu.named_parameters(), dev.parameters(), strict=True):
        torch.testing.assert_close(q.grad.cpu(), p.grad, atol=atol, rtol=rtol, msg=name)
    assert torchtpu.metrics.counters()["fallbacks"] == {}


@pytest.mark.parametrize("bias", [True, False])
def test_lstm_cell(bias: bool) -> None:
    g = torch.Generator().manual_seed(0)
    x, h, c = (torch.randn(5, n, generator=g) for n in (6, 7, 7))
    module_grads(lambda: nn.LSTMCell(6, 7, bias=bias), x, (h, c))


@pytest.mark.parametrize("bias", [True, False])
def test_gru_cell(bias: bool) -> None:
    g = torch.Generator().manual_seed(1)
    x, h = torch.randn(5, 6, generator=g), torch.randn(5, 7, generator=g)
    module_grads(lambda: nn.GRUCell(6, 7, bias=bias), x, h)


def test_lstm_cell_gradient_through_the_cell_state_only() -> None:
    """Only c' reaches the loss: the fused backward gets no grad_hy."""
    g = torch.Generator().manual_seed(2)
    x, h, c = (torch.randn(3, n, generator=g) for n in (4, 5, 5))
    w_ih, w_hh = torch.randn(20, 4, generator=g), torch.randn(20, 5, generator=g)
    run(
        lambda *a: torch.lstm_cell(a[0], (a[1], a[2]), a[3], a[4])[1],
        x,
        h,
        c,
        w_ih,
        w_hh,
        grad=True,
    )


def test_gru_cell_functional_with_biases() -> None:
    g = torch.Generator().manual_seed(3)
    x, h = torch.randn(3, 4, generator=g), torch.randn(3, 5, generator=g)
    w = [torch.randn(15, 4, generator=g), torch.randn(15, 5, generator=g)]
    b = [torch.randn(15, generator=g), torch.randn(15, generator=g)]
    run(lambda *a: torch.gru_cell(*a), x, h, *w, *b, grad=True)


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
def test_bidirectional_lstm_with_projection_and_initial_state() -> None:
    g = torch.Generator().manual_seed(4)
    x = torch.randn(3, 6, 5, generator=g)
    h0 = torch.randn(4, 3, 4, generator=g)
    c0 = torch.randn(4, 3, 8, generator=g)
    module_grads(
        lambda: nn.LSTM(5, 8, num_layers=2, bidirectional=True, proj_size=4, batch_first=True),
        x,
        (h0, c0),
    )


def test_bidirectional_gru_sequence_first() -> None:
    g = torch.Generator().manual_seed(5)
    x = torch.randn(6, 3, 5, generator=g)
    module_grads(lambda: nn.GRU(5, 8, num_layers=2, bidirectional=True), x)


def test_unbatched_lstm() -> None:
    g = torch.Generator().manual_seed(6)
    module_grads(lambda: nn.LSTM(5, 6), torch.randn(4, 5, generator=g))


@pytest.mark.parametrize("rnn", [nn.LSTM, nn.GRU])
def test_bfloat16_recurrence(rnn: type[nn.Module]) -> None:
    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 4, 5, generator=g).bfloat16()
    module_grads(lambda: rnn(5, 6, batch_first=True), x, atol=3e-2, rtol=3e-2, dtype=torch.bfloat16)


def test_fused_cells_reject_mismatched_shapes() -> None:
    """The Meta kernels' checks name the problem, with the CPU fallback on or
    off (PyTorch has no CPU kernel for the fused cells: their errors are
    raised, not sent to the fallback)."""
    gates = torch.randn(3, 15).to(D)
    for fallback in (True, False):
        torchtpu.set_cpu_fallback(fallback)
        try:
            with pytest.raises(RuntimeError, match="hx of shape"):
                torch.ops.aten._thnn_fused_gru_cell(gates, gates, torch.randn(3, 4).to(D))
            with pytest.raises(RuntimeError, match="differ in shape"):
                torch.ops.aten._thnn_fused_gru_cell(gates, torch.randn(3, 12).to(D), gates[:, :5])
            lstm_gates = torch.randn(3, 20).to(D)
            with pytest.raises(RuntimeError, match="needs both biases or neither"):
                torch.ops.aten._thnn_fused_lstm_cell(
                    lstm_gates, lstm_gates, torch.randn(3, 5).to(D), torch.randn(20).to(D), None
                )
        finally:
            torchtpu.set_cpu_fallback(True)
