"""Activation functions and their backward ops on "tpu" against PyTorch CPU."""

import copy
import math

import pytest
import torch
import torch.nn.functional as F

import torchtpu

DEV = "tpu"


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def inputs(dtype=torch.float32, n=64):
    x = torch.randn(n) * 4
    x[:10] = torch.tensor([0.0, -0.0, -3.0, 3.0, -1.0, 1.0, 20.5, -20.5, 0.5, -25.0])
    return x.to(dtype)


def no_fallback():
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not fallbacks, f"CPU fallback: {fallbacks}"


def tol(dtype):
    return {} if dtype != torch.bfloat16 else {"rtol": 2e-2, "atol": 2e-2}


def fwd_bwd(fn, x, **kw):
    """fn forward and backward (through autograd) on tpu vs CPU."""
    xc = x.clone().requires_grad_()
    xd = x.to(DEV).requires_grad_()
    yc = fn(xc)
    torchtpu.metrics.reset()
    yd = fn(xd)
    g = torch.randn_like(yc)
    yc.backward(g)
    yd.backward(g.to(DEV))
    no_fallback()
    torch.testing.assert_close(yd.cpu(), yc.detach(), equal_nan=True, **kw)
    torch.testing.assert_close(xd.grad.cpu(), xc.grad, equal_nan=True, **kw)


ACTIVATIONS = {
    "relu": F.relu,
    "threshold": lambda x: F.threshold(x, 0.5, -2.0),
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": F.elu,
    "elu_alpha": lambda x: F.elu(x, alpha=0.7),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=1.3),
    "hardtanh": lambda x: F.hardtanh(x, -2.0, 2.5),
    "relu6": F.relu6,
    "softplus": F.softplus,
    "softplus_beta": lambda x: F.softplus(x, beta=2.0, threshold=5.0),
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "mish": F.mish,
    "logsigmoid": F.logsigmoid,
    "logit": lambda x: torch.logit(torch.sigmoid(x) * 0.98 + 0.01),
    "logit_eps": lambda x: torch.logit(torch.sigmoid(x), eps=0.05),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_forward_backward_f32(name):
    fwd_bwd(ACTIVATIONS[name], inputs())


@pytest.mark.parametrize(
    "name",
    ["relu", "gelu", "gelu_tanh", "silu", "leaky_relu", "elu", "hardswish", "softplus", "mish"],
)
def test_forward_backward_bf16(name):
    fwd_bwd(ACTIVATIONS[name], inputs(torch.bfloat16), **tol(torch.bfloat16))


@pytest.mark.parametrize(
    "name", ["relu", "gelu_tanh", "silu", "elu", "hardtanh", "softplus", "logsigmoid"]
)
def test_forward_backward_f64(name):
    fwd_bwd(ACTIVATIONS[name], inputs(torch.float64))


def check(fn, *args):
    cpu = [a.clone() for a in args]
    dev = [a.to(DEV) for a in args]
    expected = fn(*cpu)
    torchtpu.metrics.reset()
    got = fn(*dev)
    no_fallback()
    torch.testing.assert_close(got.cpu(), expected, equal_nan=True)
    for c, d in zip(cpu, dev, strict=False):
        torch.testing.assert_close(d.cpu(), c, equal_nan=True)


def test_inplace_and_nan():
    x = inputs()
    x[10] = math.nan
    check(lambda t: F.relu(t, inplace=True), x)
    check(lambda t: F.leaky_relu(t, 0.1, inplace=True), x)
    check(lambda t: F.elu(t, inplace=True), x)
    check(lambda t: F.hardtanh(t, inplace=True), x)
    check(lambda t: F.silu(t, inplace=True), x)
    check(lambda t: F.hardswish(t, inplace=True), x)
    check(lambda t: F.threshold(t, 0.0, 1.0, inplace=True), x)
    check(lambda t: t.sigmoid_(), x)
    check(lambda t: F.gelu(t), x)
    check(lambda t: F.mish(t), x)
    check(lambda t: F.relu(t), torch.randint(-5, 5, (10,)))  # integer relu


def test_backward_ops_direct():
    g, x = torch.randn(32), inputs(n=32)
    aten = torch.ops.aten
    check(lambda a, b: aten.threshold_backward(a, b, 0.5), g, x)
    check(lambda a, b: aten.gelu_backward(a, b), g, x)
    check(lambda a, b: aten.gelu_backward(a, b, approximate="tanh"), g, x)
    check(lambda a, b: aten.silu_backward(a, b), g, x)
    check(lambda a, b: aten.sigmoid_backward(a, torch.sigmoid(b)), g, x)
    check(lambda a, b: aten.tanh_backward(a, torch.tanh(b)), g, x)
    check(lambda a, b: aten.leaky_relu_backward(a, b, 0.3, False), g, x)
    check(lambda a, b: aten.elu_backward(a, 1.0, 1.0, 1.0, False, b), g, x)
    check(lambda a, b: aten.elu_backward(a, 1.0, 1.0, 1.0, True, F.elu(b)), g, x)
    check(lambda a, b: aten.hardtanh_backward(a, b, -1.0, 1.0), g, x)
    check(lambda a, b: aten.softplus_backward(a, b, 1.0, 20.0), g, x)
    check(lambda a, b: aten.hardsigmoid_backward(a, b), g, x)
    check(lambda a, b: aten.hardswish_backward(a, b), g, x)
    check(lambda a, b: aten.log_sigmoid_backward(a, b, aten.log_sigmoid_forward(b)[1]), g, x)
    check(lambda a, b: aten.logit_backward(a, b), g, torch.rand(32) * 1.2 - 0.1)
    check(lambda a, b: aten.logit_backward(a, b, 0.1), g, torch.rand(32))


def test_mlp_training_step():
    """A small MLP with several activations: forward, loss, backward."""
    model = torch.nn.Sequential(
        torch.nn.Linear(8, 16),
        torch.nn.GELU(),
        torch.nn.Linear(16, 16),
        torch.nn.SiLU(),
        torch.nn.Linear(16, 4),
        torch.nn.Tanh(),
    )
    dev_model = copy.deepcopy(model).to(DEV)
    x = torch.randn(5, 8)
    yc = model(x).sum()
    yd = dev_model(x.to(DEV)).sum()
    yc.backward()
    yd.backward()
    torch.testing.assert_close(yd.cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
    for pc, pd in zip(model.parameters(), dev_model.parameters(), strict=False):
        torch.testing.assert_close(pd.grad.cpu(), pc.grad, rtol=1e-5, atol=1e-5)
