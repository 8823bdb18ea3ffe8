"""searchsorted (left/right/side, sorter, Scalar values, batched sequences)
and mode on "tpu" vs PyTorch CPU, with no CPU fallback, in strict and defer
mode."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import run

import torchtpu


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_searchsorted(dtype):
    seq = torch.randint(-5, 5, (10,)).sort().values.to(dtype)
    vals = torch.randint(-6, 6, (3, 4)).to(dtype)
    for kw in [{}, {"right": True}, {"side": "right"}, {"out_int32": True}]:
        run(lambda s, v, kw=kw: torch.searchsorted(s, v, **kw), seq, vals)
    bseq = torch.randint(-5, 5, (3, 6)).sort().values.to(dtype)
    run(lambda s, v: torch.searchsorted(s, v, right=True), bseq, vals)
    unsorted = torch.randint(-5, 5, (7,)).to(dtype)
    sorter = unsorted.argsort()
    run(lambda s, v, o: torch.searchsorted(s, v, sorter=o), unsorted, vals, sorter)
    run(lambda s: torch.searchsorted(s, 2), seq)


def test_searchsorted_nan():
    seq = torch.tensor([0.0, 1.0, 2.0, 2.0])
    vals = torch.tensor([float("nan"), 2.0, -1.0, float("inf")])
    run(lambda s, v: torch.searchsorted(s, v), seq, vals)
    run(lambda s, v: torch.searchsorted(s, v, right=True), seq, vals)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_mode(dtype):
    x = torch.randint(0, 3, (4, 5, 6)).to(dtype)
    for dim in [0, 1, -1]:
        for keepdim in [False, True]:
            run(lambda x, d=dim, k=keepdim: torch.mode(x, d, k), x)
    run(lambda x: torch.mode(x), torch.tensor(3).to(dtype))


def test_mode_grad():
    x = torch.randint(0, 3, (4, 6)).float()
    run(lambda x: torch.mode(x, 1)[0], x, grad=True)
