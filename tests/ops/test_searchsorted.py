"""searchsorted and bucketize on "tpu" vs PyTorch CPU (a binary search that
takes the CPU kernel's steps): left/right/side, sorter, out_int32, 1-D and
batched boundaries, NaN, unsorted boundaries, empty inputs, Scalar and 0-d
values, out= variants, dtypes and their promotion, in strict and defer mode,
with no CPU fallback; invalid calls raise PyTorch's errors; 1e6 values x 1e4
boundaries run in modest memory (a subprocess's peak RSS)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
from compare_cpu import run

import torchtpu

D = "tpu"
SIDES = [{}, {"right": True}, {"side": "left"}, {"side": "right"}, {"out_int32": True}]


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


def _seq(k: int, dtype: torch.dtype, *lead: int) -> torch.Tensor:
    # Few distinct values, so runs of equal boundaries are common.
    return torch.randint(-4, 5, (*lead, k)).sort().values.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.uint8])
def test_sizes_and_sides(dtype):
    torch.manual_seed(0)
    low = 0 if dtype == torch.uint8 else -6
    vals = torch.randint(low, 6, (5, 7)).to(dtype)
    for k in [1, 2, 3, 4, 7, 8, 9, 33]:
        seq = torch.randint(low, 5, (k,)).sort().values.to(dtype)
        run(lambda s, v: [torch.searchsorted(s, v, **kw) for kw in SIDES], seq, vals)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_batched_and_sorter(dtype):
    torch.manual_seed(1)
    vals = torch.randint(-6, 6, (2, 3, 5)).to(dtype)
    seq = _seq(6, dtype, 2, 3)
    run(lambda s, v: [torch.searchsorted(s, v, **kw) for kw in SIDES], seq, vals)
    unsorted = torch.randint(-4, 5, (2, 3, 6)).to(dtype)
    sorter = unsorted.argsort(dim=-1)
    run(lambda s, v, o: torch.searchsorted(s, v, sorter=o), unsorted, vals, sorter)
    run(lambda s, v, o: torch.searchsorted(s, v, side="right", sorter=o), unsorted, vals, sorter)
    flat = torch.randint(-4, 5, (9,)).to(dtype)
    run(lambda s, v, o: torch.searchsorted(s, v, right=True, sorter=o), flat, vals, flat.argsort())
    # Rows with one boundary, and a sequence of one row.
    run(lambda s, v: torch.searchsorted(s, v), _seq(1, dtype, 2, 3), vals)
    run(lambda s, v: torch.searchsorted(s, v, right=True), _seq(5, dtype, 1), vals[0, :1])


def test_nan_and_unsorted():
    nan, inf = float("nan"), float("inf")
    vals = torch.tensor([nan, 2.0, -1.0, inf, -inf, 0.0, 1.5])
    seqs = [
        torch.tensor([0.0, 1.0, 2.0, 2.0]),
        torch.tensor([0.0, 1.0, 2.0, nan, nan]),  # NaN sorts last, as torch.sort puts it
        torch.tensor([-inf, 1.0, inf, nan]),
        torch.tensor([0.0, nan, 2.0, 1.0, 3.0]),  # not sorted: the CPU kernel's path decides
        torch.tensor([3.0, 2.0, 1.0, 0.0, -1.0, 5.0]),
    ]
    for seq in seqs:
        run(lambda s, v: [torch.searchsorted(s, v, **kw) for kw in SIDES], seq, vals)
        run(lambda s, v: [torch.bucketize(v, s), torch.bucketize(v, s, right=True)], seq, vals)
    withnan = torch.tensor([nan, 1.0, nan, 0.0])
    run(lambda s, v, o: torch.searchsorted(s, v, sorter=o), withnan, vals, withnan.argsort())
    run(lambda s, v: torch.searchsorted(s, v), seqs[1].bfloat16(), vals.bfloat16())


def test_empty():
    vals = torch.randn(3, 4)
    run(lambda s, v: torch.searchsorted(s, v), torch.empty(0), vals)
    run(lambda s, v: torch.searchsorted(s, v, right=True), torch.empty(3, 0), vals[:, :2])
    run(lambda s, v: torch.searchsorted(s, v), torch.randn(5).sort().values, torch.empty(0))
    run(lambda s, v: torch.searchsorted(s, v), torch.randn(0, 5), torch.empty(0, 3))
    run(lambda s, v: torch.bucketize(v, s), torch.empty(0), vals)
    run(lambda s: torch.searchsorted(s, 1.0), torch.empty(0))


def test_scalar_and_0d_values():
    seq = torch.tensor([-1.5, 0.0, 0.1, 0.1, 2.0, 7.0])
    for x in [0.1, 2, -3, 7.0, float("nan"), True]:
        run(lambda s, x=x: [torch.searchsorted(s, x, **kw) for kw in SIDES], seq)
        run(lambda s, x=x: [torch.bucketize(x, s), torch.bucketize(x, s, right=True)], seq)
    ints = torch.tensor([0, 2, 2, 5])
    # A float Scalar against int boundaries compares in float32; a 0-d float64
    # tensor against float32 boundaries compares in float32 too.
    run(lambda s: [torch.searchsorted(s, 2.5), torch.searchsorted(s, 2, right=True)], ints)
    run(
        lambda s, v: torch.searchsorted(s, v, right=True),
        seq,
        torch.tensor(0.1, dtype=torch.float64),
    )
    run(lambda s, v: torch.bucketize(v, s), seq, torch.tensor(0.1))


@pytest.mark.filterwarnings("ignore:torch.searchsorted.*non-contiguous")
def test_dtype_promotion():
    torch.manual_seed(2)
    fseq = torch.tensor([0.1, 0.5, 1.0, 2.5, 3.0])
    run(
        lambda s, v: torch.searchsorted(s, v),
        fseq,
        torch.tensor([0.1, 2.5, 3.0], dtype=torch.float64),
    )
    run(
        lambda s, v: torch.searchsorted(s, v, right=True),
        torch.tensor([0, 1, 3, 3]),
        torch.tensor([0.5, 3.0]),
    )
    run(lambda s, v: torch.searchsorted(s, v), fseq, torch.tensor([True, False]))
    run(
        lambda s, v: torch.bucketize(v, s),
        torch.tensor([0, 100, 200], dtype=torch.uint8),
        torch.tensor([-1, 100, 120], dtype=torch.int8),
    )
    run(lambda s, v: torch.bucketize(v, s, out_int32=True), fseq.double(), torch.randn(4, 3))
    # Non-contiguous values and boundaries.
    run(
        lambda s, v: torch.searchsorted(s[::2], v.t()),
        torch.randn(12).sort().values,
        torch.randn(3, 4),
    )


def test_out_variants():
    seq = torch.randn(8).sort().values
    vals = torch.randn(3, 5)

    def f(s, v):
        o64 = torch.empty(3, 5, dtype=torch.long, device=s.device)
        o32 = torch.empty(0, dtype=torch.int32, device=s.device)
        torch.searchsorted(s, v, right=True, out=o64)
        torch.searchsorted(s, v, out_int32=True, out=o32)
        b = torch.empty(3, 5, dtype=torch.long, device=s.device)
        torch.bucketize(v, s, out=b)
        sc = torch.empty((), dtype=torch.long, device=s.device)
        torch.searchsorted(s, 0.25, out=sc)
        return [o64, o32, b, sc]

    run(f, seq, vals)


def test_errors():
    seq = torch.randn(5).sort().values
    vals = torch.randn(3)
    calls = [
        lambda s, v: torch.searchsorted(s, v, side="middle"),
        lambda s, v: torch.searchsorted(s, v, right=True, side="left"),
        lambda s, v: torch.searchsorted(s.reshape(1, 5), v.reshape(3, 1)),
        lambda s, v: torch.searchsorted(
            s, v, sorter=torch.zeros(4, dtype=torch.long, device=s.device)
        ),
        lambda s, v: torch.bucketize(v, s.reshape(1, 5)),
        lambda s, v: torch.searchsorted(s.bool(), v.bool()),
    ]
    for call in calls:
        with pytest.raises(RuntimeError) as want:
            call(seq, vals)
        with pytest.raises(RuntimeError) as got:
            call(seq.to(D), vals.to(D))
            torchtpu.sync()
        assert str(want.value).split("\n")[0][:40] == str(got.value).split("\n")[0][:40]
    assert (torch.searchsorted(seq.to(D), vals.to(D)).cpu() == torch.searchsorted(seq, vals)).all()


LARGE = """
import resource, sys, torch, torchtpu
torchtpu.set_mode(sys.argv[1])
torch.manual_seed(0)
seq, vals = torch.randn(10_000).sort().values, torch.randn(1_000_000)
s, v = seq.to("tpu"), vals.to("tpu")
torchtpu.sync()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
got = [torch.searchsorted(s, v).cpu(), torch.bucketize(v, s, right=True).cpu()]
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert torch.equal(got[0], torch.searchsorted(seq, vals))
assert torch.equal(got[1], torch.bucketize(vals, seq, right=True))
print((after - before) // 1024)
"""


def test_large_in_modest_memory(mode):
    # The all-pairs comparison would need ~80 GB here (8 bytes per pair).
    proc = subprocess.run(
        [sys.executable, "-c", LARGE, mode],
        env=os.environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    grew_mb = int(proc.stdout.split()[-1])
    assert grew_mb < 1024, f"peak RSS grew by {grew_mb} MB"
