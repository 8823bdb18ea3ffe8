"""segment_reduce (sum, mean, max, min, prod; lengths and offsets; initial;
axis 0 and 1 with per-row lengths) on "tpu" vs PyTorch CPU, forward and input
gradients, with no CPU fallback, in strict and defer mode."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import run

import torchtpu


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


def offsets_of(lengths, axis):
    zeros = list(lengths.shape)
    zeros[axis] = 1
    return torch.cat((lengths.new_zeros(zeros), lengths), axis).cumsum(axis)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce(reduce):
    x = torch.randn(7, 3)
    x[2, 0] = 0.0  # a zero inside a product
    x[3] = x[4]  # ties for max / min
    lengths = torch.tensor([2, 0, 3, 2])
    for initial in [None, 2.0]:
        kw = {} if initial is None else {"initial": initial}
        run(
            lambda x, n, kw=kw: torch.segment_reduce(x, reduce, lengths=n, **kw),
            x,
            lengths,
            grad=True,
        )
        run(
            lambda x, o, kw=kw: torch.segment_reduce(x, reduce, offsets=o, **kw),
            x,
            offsets_of(lengths, 0),
            grad=True,
        )
    rows = torch.tensor([[2, 0, 3, 0], [0, 1, 2, 2], [1, 1, 1, 2]])
    run(
        lambda x, n: torch.segment_reduce(x, reduce, lengths=n, axis=1, initial=1.0),
        torch.randn(3, 5, 2),
        rows,
        grad=True,
    )
