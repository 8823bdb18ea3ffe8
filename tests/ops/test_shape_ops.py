"""Shape/copy ops and device factories on "tpu" vs PyTorch CPU, forward and
backward, with no CPU fallback: cat, stack, constant_pad_nd, flip, roll,
tril/triu, repeat, clone, dtype conversion, expand copies, arange/range,
linspace, eye, full."""

from functools import partial

import compare_cpu
import pytest
import torch
import torch.nn.functional as F

import torchtpu

D = "tpu"
# The shared CPU comparison, with this file's defaults.
run = partial(compare_cpu.run, grad=True, atol=1e-6, rtol=1e-6)


def r(*shape):
    return torch.randn(*shape)


def ints(*shape):
    return torch.randint(-100, 100, shape)


def test_cat():
    run(lambda a, b: torch.cat([a, b], 1), r(2, 3, 4), r(2, 1, 4))
    run(lambda a, b, c: torch.cat([a, b, c], 0), ints(2, 3), ints(1, 3), ints(2, 3), grad=False)
    # Legacy rule: 1-d empty tensors are skipped whatever the other shapes.
    run(lambda a, b: torch.cat([a, b], 0), r(0), r(2, 3))
    # Mixed dtypes promote.
    run(lambda a, b: torch.cat([a, b]), ints(3), r(2), grad=False)


def test_cat_empty_2d():
    run(lambda a, b, c: torch.cat([a, b, c], -1), ints(2, 3), ints(2, 0), ints(2, 5), grad=False)


def test_stack():
    run(lambda a, b: torch.stack([a, b], 1), r(2, 3), r(2, 3))
    run(lambda a, b: torch.stack([a, b], -1), ints(4), ints(4), grad=False)


@pytest.mark.parametrize("pad", [(1, 2), (0, 1, 2, 0), (-1, 2, 1, -2), (1, 1, 1, 1, 1, 1)])
def test_constant_pad(pad):
    run(lambda x: F.pad(x, pad, value=1.5), r(2, 3, 4))
    run(lambda x: F.pad(x, pad), ints(2, 3, 4), grad=False)


def test_flip_roll():
    run(lambda x: x.flip(0, 2), r(2, 3, 4))
    run(lambda x: x.flip(-1), ints(5), grad=False)
    run(lambda x: x.roll(2, 1), r(2, 5))
    run(lambda x: x.roll((-1, 7), (0, 1)), r(3, 5))
    run(lambda x: x.roll(4), r(3, 5))  # flattened
    run(lambda x: x.roll(-3, 0), ints(7), grad=False)


@pytest.mark.parametrize("diag", [0, 1, -2])
def test_tril_triu(diag):
    run(lambda x: x.tril(diag), r(4, 6))
    run(lambda x: x.triu(diag), r(2, 5, 3))
    run(lambda x: x.triu(diag), ints(4, 4), grad=False)
    x = r(4, 4)
    t = x.to(D)
    torchtpu.metrics.reset()
    t.tril_(diag)
    torch.testing.assert_close(t.cpu(), x.tril(diag))
    torchtpu.metrics.counters()["fallbacks"]


def test_repeat_expand():
    run(lambda x: x.repeat(2, 3), r(2, 3))
    run(lambda x: x.repeat(2, 1, 3), r(4))
    run(lambda x: x.repeat(2, 2), ints(1, 3), grad=False)
    run(lambda x: x.expand(3, 2, 4).contiguous(), r(2, 1))


def test_clone_and_dtype_conversion():
    run(lambda x: x.clone(), r(3, 4))
    run(lambda x: x.t().clone(), r(3, 4))
    run(lambda x: x.to(torch.float64), r(3, 4))
    run(lambda x: x.to(torch.int32), r(3, 4) * 10, grad=False)
    run(lambda x: x.to(torch.float32), ints(3, 4), grad=False)
    run(lambda x: x.to(torch.bfloat16), r(3, 4), grad=False)
    run(lambda x: x.to(torch.bool), ints(3, 4), grad=False)


@pytest.mark.parametrize(
    "args,kw",
    [
        ((10,), {}),
        ((2, 11, 3), {}),
        ((0.0, 1.0, 0.1), {}),
        ((-3, 3.5, 0.5), {}),
        ((5, -5, -2), {}),
        ((1.5, 7.2), {"dtype": torch.int64}),
        ((0, 10, 3), {"dtype": torch.float64}),
    ],
)
def test_arange(args, kw):
    torchtpu.metrics.reset()
    got = torch.arange(*args, device=D, **kw)
    want = torch.arange(*args, **kw)
    assert got.dtype == want.dtype
    torch.testing.assert_close(got.cpu(), want)
    torchtpu.metrics.counters()["fallbacks"]


@pytest.mark.parametrize(
    "args,kw",
    [
        ((0, 1, 7), {}),
        ((-2.5, 3, 10), {}),
        ((3, -1, 5), {"dtype": torch.int64}),
        ((1, 1, 1), {}),
        ((0, 1, 6), {"dtype": torch.float64}),
    ],
)
def test_linspace(args, kw):
    torchtpu.metrics.reset()
    got = torch.linspace(*args, device=D, **kw)
    want = torch.linspace(*args, **kw)
    assert got.dtype == want.dtype
    torch.testing.assert_close(got.cpu(), want)
    torchtpu.metrics.counters()["fallbacks"]


def test_range_eye_full():
    torchtpu.metrics.reset()
    torch.testing.assert_close(torch.range(0, 2, 0.5, device=D).cpu(), torch.range(0, 2, 0.5))
    torch.testing.assert_close(torch.eye(3, device=D).cpu(), torch.eye(3))
    torch.testing.assert_close(
        torch.eye(2, 4, dtype=torch.int64, device=D).cpu(), torch.eye(2, 4, dtype=torch.int64)
    )
    torch.testing.assert_close(torch.full((2, 3), 2.5, device=D).cpu(), torch.full((2, 3), 2.5))
    torch.testing.assert_close(torch.full((2,), 7, device=D).cpu(), torch.full((2,), 7))
    torchtpu.metrics.counters()["fallbacks"]
