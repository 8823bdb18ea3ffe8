"""histc, hash_tensor, multinomial and rrelu on "tpu": no CPU fallback; exact
results compared with CPU, random ones checked for their distribution."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from compare_cpu import run

import torchtpu

D = "tpu"


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


def no_fallback():
    assert not torchtpu.metrics.counters()["fallbacks"]


@pytest.mark.parametrize("args", [(10,), (7, -1.0, 1.0), (4, 0.0, 0.0), (3, 2.0, 5.0)])
def test_histc(args):
    x = torch.randn(200)
    x[:5] = torch.tensor([-1.0, 1.0, 0.0, 2.0, 5.0])  # on edges and outside
    run(lambda x: torch.histc(x, *args), x)
    if args[1:] and args[1] != args[2]:
        x[7] = float("nan")  # not counted (with an explicit range)
        run(lambda x: torch.histc(x, *args), x)
    run(lambda x: torch.histc(x, 5), torch.full((6,), 3.0))  # constant: range widened
    run(lambda x: torch.histc(x, 5), torch.zeros(0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_histc_bins_by_interpolation(dtype):
    # PyTorch puts x in bin trunc((x - min) * bins / (max - min)), which near an
    # edge may disagree with linspace's edges (0 is above linspace(-2, 2, 101)[50]
    # in float32, yet lands in bin 50). A division by a broadcast width, which XLA
    # would turn into a multiplication by the reciprocal, moves some elements.
    x = torch.cat([torch.zeros(5), torch.linspace(-2, 2, 101), torch.randn(3000) * 1.5]).to(dtype)
    for args in [(100, -2.0, 2.0), (7, -1.0, 1.0), (1000,), (1000, -2.5, 2.5), (313, -1.7, 3.1)]:
        run(lambda x, a=args: torch.histc(x, *a), x)
    run(lambda x: torch.histc(x, 3, -1.0, 1.0), torch.randn(4, 5, 6).to(dtype))


def test_histc_and_multinomial_large():
    # Memory linear in the input: these needed [n, bins] / [samples, categories]
    # and [categories, categories] intermediates before (gigabytes).
    x = torch.randn(2_000_000)
    run(lambda x: torch.histc(x, 100, -3.0, 3.0), x)
    p = torch.rand(2, 20_000)
    p[:, ::3] = 0
    torchtpu.metrics.reset()
    s = torch.multinomial(p.to(D), 20_000, replacement=True).cpu()
    no_fallback()
    assert s.shape == (2, 20_000)
    assert (p.gather(1, s) > 0).all()  # categories of probability 0 are never drawn


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.int32])
def test_hash_tensor(dtype):
    x = (torch.randn(4, 5) * 100).to(dtype)
    run(torch.hash_tensor, x)
    run(lambda x: torch.hash_tensor(x, dim=1, keepdim=True), x)
    run(lambda x: torch.hash_tensor(x, dim=0), x)


def test_multinomial_with_replacement_follows_probs():
    p = torch.tensor([[0.1, 0.0, 0.6, 0.3], [1.0, 1.0, 0.0, 2.0]])
    torchtpu.metrics.reset()
    s = torch.multinomial(p.to(D), 4000, replacement=True).cpu()
    no_fallback()
    assert s.shape == (2, 4000) and s.dtype == torch.int64
    for row in range(2):
        freq = torch.bincount(s[row], minlength=4).float() / 4000
        want = p[row] / p[row].sum()
        assert freq[want == 0].sum() == 0
        torch.testing.assert_close(freq, want, atol=0.04, rtol=0)


def test_multinomial_without_replacement():
    p = torch.tensor([0.5, 0.0, 0.2, 0.3, 0.0, 1.0])
    torchtpu.metrics.reset()
    draws = torch.stack([torch.multinomial(p.to(D), 4).cpu() for _ in range(200)])
    no_fallback()
    for row in draws:
        assert len(set(row.tolist())) == 4
        assert 1 not in row.tolist() and 4 not in row.tolist()
    # The largest weight comes first most often.
    assert (draws[:, 0] == 5).float().mean() > 0.35
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(p.to(D), 7)


def test_rrelu():
    x = torch.randn(50, 4)
    run(lambda x: F.rrelu(x, 0.1, 0.3), x, grad=True)  # eval: a fixed slope
    torchtpu.metrics.reset()
    xt = x.to(D)
    y = F.rrelu(xt, 0.1, 0.3, training=True).cpu()
    no_fallback()
    neg = x < 0
    ratio = y[neg] / x[neg]
    assert ((ratio >= 0.1 - 1e-6) & (ratio <= 0.3 + 1e-6)).all()
    assert ratio.std() > 0.01  # drawn, not fixed
    torch.testing.assert_close(y[~neg], x[~neg])
