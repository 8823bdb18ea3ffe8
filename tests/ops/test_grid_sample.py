"""grid_sample (2-d and 3-d; bilinear, nearest, bicubic; zeros, border and
reflection padding; both align_corners) on "tpu" vs PyTorch CPU, forward and
the input and grid gradients, with no CPU fallback, in strict and defer mode."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from compare_cpu import run

import torchtpu

CASES = [
    ("bilinear", "zeros", False),
    ("bilinear", "border", True),
    ("bilinear", "reflection", False),
    ("bilinear", "reflection", True),
    ("nearest", "zeros", True),
    ("nearest", "reflection", False),
    ("bicubic", "zeros", False),
    ("bicubic", "border", True),
    ("bicubic", "reflection", False),
]


def check(shape, grid_shape, interp, padding, align):
    x = torch.randn(shape)
    grid = torch.rand(grid_shape) * 2.6 - 1.3  # some points outside [-1, 1]
    run(
        lambda x, g: F.grid_sample(x, g, mode=interp, padding_mode=padding, align_corners=align),
        x,
        grid,
        grad=True,
        atol=1e-4,
        rtol=1e-4,
    )


@pytest.mark.parametrize(("interp", "padding", "align"), CASES)
def test_grid_sample_2d(interp, padding, align):
    check((2, 3, 5, 6), (2, 4, 3, 2), interp, padding, align)


@pytest.mark.parametrize(("interp", "padding", "align"), CASES[:6])
def test_grid_sample_3d(interp, padding, align):
    check((1, 2, 3, 4, 5), (1, 2, 3, 2, 3), interp, padding, align)


@pytest.mark.parametrize("interp", ["bilinear", "bicubic"])
def test_grid_sample_defer(interp):
    with torchtpu.mode("defer"):
        check((1, 2, 4, 4), (1, 3, 3, 2), interp, "reflection", True)
