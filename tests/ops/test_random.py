"""Random ops on "tpu": reproducible for a seed, different from call to call,
with the right distribution (checked loosely), in range, and without CPU
fallback. The numbers differ from PyTorch's CPU generator by design."""

import pytest
import torch
import torch.nn.functional as F

import torchtpu

D = "tpu"
N = 20000


def no_fallback(allowed=()):
    fallbacks = {
        k: v for k, v in torchtpu.metrics.counters()["fallbacks"].items() if k not in allowed
    }
    assert not fallbacks, f"CPU fallbacks: {fallbacks}"


SAMPLERS = {
    "rand": lambda: torch.rand(N, device=D),
    "randn": lambda: torch.randn(N, device=D),
    "uniform_": lambda: torch.empty(N, device=D).uniform_(-2, 3),
    "normal_": lambda: torch.empty(N, device=D).normal_(1.5, 0.5),
    "normal_tensor": lambda: torch.normal(torch.full((N,), 2.0, device=D), 3.0),
    "normal_tensor_tensor": lambda: torch.normal(
        torch.zeros(N, device=D), torch.full((N,), 2.0, device=D)
    ),
    "bernoulli_p": lambda: torch.empty(N, device=D).bernoulli_(0.25),
    "bernoulli_tensor": lambda: torch.bernoulli(torch.full((N,), 0.7, device=D)),
    "randint": lambda: torch.randint(-3, 5, (N,), device=D).float(),
    "random_": lambda: torch.empty(N, device=D).random_(10).float(),
    "rand_f64": lambda: torch.rand(N, device=D, dtype=torch.float64),
    "randn_bf16": lambda: torch.randn(N, device=D, dtype=torch.bfloat16).float(),
}

# (mean, std) of each distribution.
MOMENTS = {
    "rand": (0.5, (1 / 12) ** 0.5),
    "randn": (0.0, 1.0),
    "uniform_": (0.5, (25 / 12) ** 0.5),
    "normal_": (1.5, 0.5),
    "normal_tensor": (2.0, 3.0),
    "normal_tensor_tensor": (0.0, 2.0),
    "bernoulli_p": (0.25, (0.25 * 0.75) ** 0.5),
    "bernoulli_tensor": (0.7, (0.7 * 0.3) ** 0.5),
    "randint": (0.5, ((8**2 - 1) / 12) ** 0.5),
    "random_": (4.5, ((10**2 - 1) / 12) ** 0.5),
    "rand_f64": (0.5, (1 / 12) ** 0.5),
    "randn_bf16": (0.0, 1.0),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_seeded_reproducible_and_distributed(name):
    sample = SAMPLERS[name]
    torchtpu.metrics.reset()
    torch.manual_seed(123)
    a = sample().cpu()
    b = sample().cpu()
    torch.manual_seed(123)
    a2 = sample().cpu()
    no_fallback()
    assert torch.equal(a, a2), "same seed, different numbers"
    assert not torch.equal(a, b), "consecutive calls gave the same numbers"
    mean, std = MOMENTS[name]
    assert abs(a.mean().item() - mean) < 5 * std / N**0.5 + 1e-3
    assert abs(a.std().item() - std) < 0.05 * std


def test_explicit_generator():
    g = torch.Generator(device=D)
    g.manual_seed(7)
    a = torch.rand(100, device=D, generator=g).cpu()
    g.manual_seed(7)
    b = torch.rand(100, device=D, generator=g).cpu()
    assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
def test_uniform_range(dtype):
    x = torch.empty(N, device=D, dtype=dtype).uniform_(2, 3).cpu()
    assert x.dtype == dtype
    assert (x >= 2).all() and (x < 3).all()
    assert len(torch.unique(x)) > 3


def test_random_ranges():
    torchtpu.metrics.reset()
    x = torch.empty(N, dtype=torch.int64, device=D).random_(-5, 5).cpu()
    assert x.min() == -5 and x.max() == 4
    x = torch.empty(N, dtype=torch.uint8, device=D).random_().cpu()
    assert x.min() == 0 and x.max() == 255
    x = torch.empty(N, dtype=torch.int8, device=D).random_(-128, None).cpu()
    assert x.min() == -128 and x.max() == 127
    x = torch.empty(N, dtype=torch.bool, device=D).random_().cpu()
    assert 0.4 < x.float().mean() < 0.6
    x = torch.empty(1000, dtype=torch.int64, device=D).random_().cpu()
    assert x.min() >= 0 and x.float().mean() > 2**61
    x = torch.randint(0, 2**40, (1000,), device=D).cpu()
    assert x.min() >= 0 and x.max() < 2**40 and x.float().mean() > 2**38
    no_fallback()


def test_bernoulli_extremes_and_dtype():
    torchtpu.metrics.reset()
    p = torch.tensor([0.0, 1.0, 0.0, 1.0], device=D)
    assert torch.equal(torch.bernoulli(p).cpu(), p.cpu())
    x = torch.empty(8, dtype=torch.int64, device=D).bernoulli_(1.0).cpu()
    assert x.dtype == torch.int64 and (x == 1).all()
    no_fallback()


def test_randperm():
    torchtpu.metrics.reset()
    torch.manual_seed(0)
    p = torch.randperm(1000, device=D).cpu()
    assert p.dtype == torch.int64
    assert torch.equal(p.sort().values, torch.arange(1000))
    assert not torch.equal(p, torch.arange(1000))
    q = torch.randperm(1000, device=D).cpu()
    assert not torch.equal(p, q)
    no_fallback()


def test_dropout():
    # native_dropout has no generator argument in its schema, so the bridge gives
    # its lowering no random state yet: the forward falls back to the CPU. The
    # backward (native_dropout_backward) is lowered.
    torch.manual_seed(0)
    x = torch.randn(64, 32)
    xt = x.to(D).requires_grad_()
    torchtpu.metrics.reset()
    y = F.dropout(xt, 0.25, training=True)
    g = torch.randn(64, 32)
    y.backward(g.to(D))
    y, grad = y.detach().cpu(), xt.grad.cpu()
    keep = y != 0
    assert 0.7 < keep.float().mean() < 0.8
    torch.testing.assert_close(y[keep], x[keep] / 0.75)
    torch.testing.assert_close(grad, g * keep / 0.75)
    no_fallback(allowed=("aten::native_dropout",))
    # Not training: identity, nothing random.
    torch.testing.assert_close(F.dropout(x.to(D), 0.5, training=False).cpu(), x)
