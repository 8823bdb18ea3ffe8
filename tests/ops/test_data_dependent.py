"""Ops with data-dependent result shapes (nonzero, masked_select, unique, ...)
run on "tpu" with no CPU fallback, in strict and defer mode, and match CPU."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import run

import torchtpu

D = "tpu"


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


def ints(*shape, hi=4):
    return torch.randint(0, hi, shape)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (), (2, 0)])
def test_nonzero(shape):
    x = ints(*shape, hi=3) if shape else torch.tensor(2)
    run(torch.nonzero, x)
    run(torch.argwhere, x.float())
    run(lambda x: torch.nonzero(x, as_tuple=True), x)
    for size in (0, 2, 9):
        run(lambda x, s=size: torch.nonzero_static(x, size=s, fill_value=-5), x)


def test_nonzero_static_rejects_negative_size():
    with pytest.raises(RuntimeError, match="size"):
        torch.nonzero_static(torch.ones(3, device=D), size=-1)


def test_masked_select_and_grad():
    x = torch.randn(4, 5)
    m = torch.randn(4, 5) > 0
    run(lambda x: torch.masked_select(x, m.to(x.device)), x, grad=True)
    run(lambda x: torch.masked_select(x, m[0].to(x.device)), x, grad=True)  # broadcast mask
    with pytest.raises(RuntimeError, match="BoolTensor"):
        torch.masked_select(x.to(D), m.to(D).int())


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_unique(dtype):
    x = ints(20, hi=5).to(dtype)
    for sort in (True, False):
        run(lambda x, s=sort: torch.unique(x, sorted=s, return_inverse=True, return_counts=True), x)
    run(lambda x: torch.unique_consecutive(x, return_inverse=True, return_counts=True), x)


def test_unique_nan_and_empty():
    x = torch.tensor([3.0, float("nan"), 1.0, float("nan"), 3.0])
    run(lambda x: torch.unique(x, return_inverse=True, return_counts=True), x)
    run(lambda x: torch.unique(x, return_counts=True), torch.zeros(0))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim(dim):
    x = ints(6, 3, hi=2)
    run(lambda x: torch.unique(x, dim=dim, return_inverse=True, return_counts=True), x)
    run(lambda x: torch.unique_consecutive(x, dim=dim, return_inverse=True, return_counts=True), x)
    run(lambda x: torch.unique(x, dim=1, return_counts=True), torch.zeros(2, 0, 3))


def test_bincount_and_repeat_interleave():
    x = ints(30, hi=6)
    run(torch.bincount, x)
    run(lambda x: torch.bincount(x, minlength=10), x)
    run(lambda x, w: torch.bincount(x, w), x, torch.rand(30))
    run(torch.bincount, torch.zeros(0, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(torch.tensor([1, -1], device=D))
    reps = torch.tensor([2, 0, 3, 1])
    run(torch.repeat_interleave, reps)
    run(lambda x, r: torch.repeat_interleave(x, r.to(x.device), dim=0), torch.randn(4, 2), reps)
    with pytest.raises(RuntimeError, match="negative"):
        torch.repeat_interleave(torch.tensor([1, -2], device=D))


def test_equal():
    a = torch.randn(3, 4)
    assert torch.equal(a.to(D), a.to(D).clone())
    assert not torch.equal(a.to(D), (a + 1).to(D))
    assert not torch.equal(a.to(D), a[:2].to(D))
    assert not torch.equal(
        torch.tensor([float("nan")], device=D), torch.tensor([float("nan")], device=D)
    )
    assert torch.equal(torch.zeros(0, device=D), torch.zeros(0, device=D))
    with pytest.raises(RuntimeError, match="same device"):
        torch.equal(a.to(D), a)
    run(lambda x: torch.corrcoef(x), torch.randn(3, 8))


def test_defer_reads_the_size_once_per_op(mode):
    if mode != "defer":
        pytest.skip("defer-mode flush behaviour")
    x = torch.randn(64, device=D)
    y = (x * 2).exp()  # pending
    torchtpu.metrics.reset()
    out = torch.nonzero(y > 1.5)
    assert out.shape[1] == 1
    flushes = torchtpu.metrics.counters()["flushes"]
    assert sum(flushes.values()) >= 1, flushes
    torch.testing.assert_close(out.cpu(), torch.nonzero((x.cpu() * 2).exp() > 1.5))
