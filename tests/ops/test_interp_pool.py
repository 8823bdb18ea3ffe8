"""Interpolation (linear, bilinear, bicubic, trilinear, antialiased), unfold /
fold, adaptive max pooling and pairwise distances on "tpu" vs PyTorch CPU,
forward and input gradients, with no CPU fallback, in strict and defer mode."""

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


INTERP = [
    ("linear", (2, 3, 6)),
    ("bilinear", (2, 3, 5, 6)),
    ("bicubic", (2, 3, 5, 6)),
    ("trilinear", (1, 2, 4, 5, 3)),
]


@pytest.mark.parametrize(("mode_name", "shape"), INTERP)
def test_interpolate(mode_name, shape):
    x = torch.randn(shape)
    k = len(shape) - 2
    calls = [
        {"size": size, "align_corners": align}
        for size in [(3,) * k, (7,) * k]
        for align in [False, True]
    ]
    calls += [{"scale_factor": s, "recompute_scale_factor": r} for s in [1.7, 0.6] for r in [0, 1]]
    for kw in calls:
        run(
            lambda x, kw=kw: F.interpolate(x, mode=mode_name, **kw),
            x,
            grad=True,
            atol=1e-4,
            rtol=1e-4,
        )


@pytest.mark.parametrize("mode_name", ["bilinear", "bicubic"])
def test_interpolate_antialias(mode_name):
    x = torch.randn(2, 3, 10, 20)
    for size in [(3, 3), (5, 7), (13, 25)]:
        run(
            lambda x, size=size: F.interpolate(x, size=size, mode=mode_name, antialias=True),
            x,
            grad=True,
            atol=1e-4,
            rtol=1e-4,
        )


def test_interpolate_bfloat16():
    x = torch.randn(2, 3, 4, 4, 4).bfloat16()
    for mode_name, k in [("linear", 1), ("bilinear", 2), ("trilinear", 3)]:
        xi = x.flatten(2, 5 - k) if k < 3 else x
        run(
            lambda x, k=k, m=mode_name: F.interpolate(x, size=(5,) * k, mode=m),
            xi,
            atol=1e-2,
            rtol=1e-2,
        )


@pytest.mark.parametrize(
    ("shape", "kw"),
    [
        ((2, 3, 6, 7), {"kernel_size": 2}),
        ((2, 3, 6, 7), {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
        ((3, 5, 5), {"kernel_size": 3, "padding": 2, "stride": 2}),
    ],
)
def test_unfold_fold(shape, kw):
    x = torch.randn(shape)
    run(lambda x: F.unfold(x, **kw), x, grad=True)
    cols = F.unfold(x, **kw)
    run(lambda c: F.fold(c, output_size=shape[-2:], **kw), cols, grad=True)
    run(lambda x: F.unfold(x, **kw), x > 0)


@pytest.mark.parametrize(
    ("fn", "shape", "out"),
    [
        (F.adaptive_max_pool1d, (2, 3, 7), 3),
        (F.adaptive_max_pool2d, (2, 3, 7, 5), (3, 4)),
        (F.adaptive_max_pool2d, (3, 6, 6), (4, 6)),
        (F.adaptive_max_pool3d, (1, 2, 5, 4, 6), (2, 3, 4)),
    ],
)
def test_adaptive_max_pool(fn, shape, out):
    x = torch.randn(shape)
    run(lambda x: fn(x, out, return_indices=True), x, grad=True)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_cdist_pdist(p):
    x1 = torch.randn(2, 4, 3)
    x2 = torch.randn(5, 3)
    x2[1] = x1[0, 0]  # a zero distance
    run(lambda a, b: torch.cdist(a, b, p=p), x1, x2, grad=True, atol=1e-4, rtol=1e-4)
    x = torch.randn(5, 3)
    run(lambda a: F.pdist(a, p=p), x, grad=True, atol=1e-4, rtol=1e-4)
