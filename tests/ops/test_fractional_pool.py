"""fractional_max_pool2d/3d on "tpu": with the same random samples, values,
indices and input gradients equal PyTorch CPU's, with no CPU fallback."""

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


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("batched", [True, False])
def test_fractional_max_pool(nd, batched):
    shape = ([2] if batched else []) + [3] + [8, 9, 7][:nd]
    x = torch.randn(*shape)
    samples = torch.rand(2 if batched else 1, 3, nd)
    op = getattr(torch.ops.aten, f"fractional_max_pool{nd}d")
    for kernel, out in [
        ([2, 3, 2][:nd], [5, 4, 5][:nd]),
        ([1] * nd, [1] * nd),
        ([3] * nd, [4] * nd),
    ]:
        run(
            lambda x, s, k=kernel, o=out: op(x, k, o, s.to(x.device)),
            x,
            samples,
            grad=True,
            nograd=(1,),
        )


def test_functional_api_and_errors():
    x = torch.randn(1, 2, 10, 10, device="tpu")
    y, idx = F.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)
    assert y.shape == (1, 2, 5, 5) and idx.dtype == torch.int64
    torch.testing.assert_close(
        y.cpu(), x.cpu().flatten(2).gather(2, idx.cpu().flatten(2)).view_as(y.cpu())
    )
    with pytest.raises(RuntimeError, match="too large"):
        torch.ops.aten.fractional_max_pool2d(x, [3, 3], [9, 9], torch.rand(1, 2, 2, device="tpu"))


def test_no_upload_per_call(mode):
    """The interval factor is uploaded once per shape, not on every call (a
    device tensor cached per (span, steps, dtype, device))."""
    from torchtpu.ops import fractional_pool

    x = torch.randn(2, 3, 11, 11, device="tpu")
    s = torch.rand(2, 3, 2, device="tpu")
    torch.ops.aten.fractional_max_pool2d(x, [3, 3], [5, 4], s)
    torchtpu.sync()
    misses = fractional_pool._alpha.cache_info().misses
    for _ in range(3):
        torch.ops.aten.fractional_max_pool2d(x, [3, 3], [5, 4], s)
    torchtpu.sync()
    assert fractional_pool._alpha.cache_info().misses == misses
