"""embedding_bag (sum, mean, max; offsets with an empty bag,
include_last_offset, 2-d indices, per_sample_weights, padding_idx) on "tpu"
vs PyTorch CPU, forward and the weight and per-sample-weight gradients, with no
CPU fallback, in strict and defer mode."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from compare_cpu import run

import torchtpu


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


@pytest.mark.parametrize("bag_mode", ["sum", "mean", "max"])
def test_embedding_bag(bag_mode):
    w = torch.randn(8, 3)
    idx = torch.tensor([1, 4, 4, 2, 7, 0, 2])
    offsets = torch.tensor([0, 0, 3, 5])
    run(lambda w, i, o: F.embedding_bag(i, w, o, mode=bag_mode), w, idx, offsets, grad=True)
    run(
        lambda w, i, o: F.embedding_bag(i, w, o, mode=bag_mode, include_last_offset=True),
        w,
        idx,
        torch.tensor([0, 2, 5, 7]),
        grad=True,
    )
    run(
        lambda w, i: F.embedding_bag(i, w, mode=bag_mode, padding_idx=4),
        w,
        idx[:6].reshape(2, 3),
        grad=True,
    )


def test_embedding_bag_per_sample_weights():
    w = torch.randn(8, 3)
    idx = torch.tensor([1, 4, 4, 2, 7, 0, 2])
    psw = torch.randn(7)
    run(
        lambda w, i, o, p: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
        w,
        idx,
        torch.tensor([0, 3, 3]),
        psw,
        grad=True,
    )


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
def test_embedding_max_norm(norm_type):
    idx = torch.tensor([[1, 4, 4], [2, 7, 0]])

    def fn(w, i):
        w = w.clone()
        out = F.embedding(i, w, max_norm=1.0, norm_type=norm_type)
        bag = F.embedding_bag(i, w.clone(), max_norm=0.5, norm_type=norm_type)
        return out, w, bag

    run(fn, torch.randn(8, 3), idx)
    run(fn, torch.randn(8, 3).bfloat16(), idx, atol=1e-2, rtol=1e-2)
