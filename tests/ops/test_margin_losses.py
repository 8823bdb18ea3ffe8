"""multi_margin_loss and multilabel_margin_loss (p, margin, weight, reductions,
1-d and 2-d scores, target lists ended by -1) on "tpu" vs PyTorch CPU, forward
and input gradients, with no CPU fallback, in strict and defer mode."""

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


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_margin_loss(reduction):
    x = torch.randn(6, 5)
    t = torch.randint(0, 5, (6,))
    w = torch.rand(5)
    for kw in [{}, {"p": 2, "margin": 0.5}, {"p": 2, "margin": -1.0}]:
        run(
            lambda x, t, kw=kw: F.multi_margin_loss(x, t, reduction=reduction, **kw),
            x,
            t,
            grad=True,
        )
    for p in [1, 2]:
        run(
            lambda x, t, w, p=p: F.multi_margin_loss(x, t, p=p, weight=w, reduction=reduction),
            x,
            t,
            w,
            grad=True,
            nograd=(2,),
        )
    if reduction != "none":  # PyTorch's meta shape for 1-d "none" is [1], its CPU result 0-d
        run(lambda x, t: F.multi_margin_loss(x, t, reduction=reduction), x[0], t[0], grad=True)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(reduction):
    x = torch.randn(4, 5)
    t = torch.tensor([[1, 2, -1, 0, 0], [0, -1, 1, 1, 1], [4, 3, 2, 1, 0], [3, 3, 1, -1, 2]])
    run(lambda x, t: F.multilabel_margin_loss(x, t, reduction=reduction), x, t, grad=True)
    if reduction != "none":  # as above: PyTorch's meta shape differs from its CPU result
        run(lambda x, t: F.multilabel_margin_loss(x, t, reduction=reduction), x[3], t[3], grad=True)
