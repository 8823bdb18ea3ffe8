"""Checks torchtpu.distributed.comm (collectives over tensors on several tpu
devices, from one thread) against CPU results; run by test_compiled.py with
TORCHTPU_CPU_DEVICE_COUNT=4. ``python comm_worker.py OUT_JSON``.
"""

from __future__ import annotations

import json
import sys

import torch

import torchtpu
from torchtpu.distributed import comm

N = torch.tpu.device_count()
checked = 0


def same(got: torch.Tensor, want: torch.Tensor, what: str, exact: bool = False) -> None:
    global checked
    got = got.cpu()
    if exact:
        assert got.dtype == want.dtype and torch.equal(got, want), f"{what}:\n{got}\n{want}"
    else:
        tol = 1e-2 if want.dtype in (torch.bfloat16, torch.float16) else 1e-5
        torch.testing.assert_close(got, want, rtol=tol, atol=tol, msg=what)
    checked += 1


def inputs(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return [torch.rand(shape, generator=g) > 0.5 for _ in range(N)]
    if dtype.is_floating_point or dtype.is_complex:
        return [(torch.randn(shape, generator=g) * 3).to(dtype) for _ in range(N)]
    return [torch.randint(-20, 20, shape, generator=g).to(dtype) for _ in range(N)]


def on_devices(xs: list[torch.Tensor]) -> list[torch.Tensor]:
    return [x.to(f"tpu:{i}") for i, x in enumerate(xs)]


def check_dtype(dtype: torch.dtype, mode: str) -> None:
    xs = inputs((6, 4), dtype, 0)
    stack = torch.stack(xs)
    what = f"{dtype} {mode}"
    ops = {"max": stack.amax(0), "min": stack.amin(0)} if dtype != torch.complex64 else {}
    if dtype != torch.bool:
        acc = stack.double() if not dtype.is_complex else stack
        ops |= {"sum": acc.sum(0).to(dtype), "product": acc.prod(0).to(dtype)}
        if dtype.is_floating_point or dtype.is_complex:
            ops["avg"] = (acc.sum(0) / N).to(dtype)
    for op, want in ops.items():
        ts = on_devices(xs)
        comm.all_reduce(ts, op)
        for i, t in enumerate(ts):
            assert t.device == torch.device("tpu", i)
            same(t, want, f"all_reduce {op} {what}", exact=not dtype.is_floating_point)
    ts = on_devices(xs)
    comm.broadcast(ts, root=N - 1)
    for t in ts:
        same(t, xs[N - 1], f"broadcast {what}", exact=True)
    for dim in (0, 1):
        for i, g in enumerate(comm.all_gather(on_devices(xs), dim=dim)):
            assert g.device == torch.device("tpu", i)
            same(g, torch.cat(xs, dim), f"all_gather dim {dim} {what}", exact=True)
    big = inputs((N * 2, 3), dtype, 1)
    for i, o in enumerate(comm.all_to_all(on_devices(big))):
        want = torch.cat([b[2 * i : 2 * i + 2] for b in big])
        same(o, want, f"all_to_all {what}", exact=True)
    if dtype != torch.bool:
        total = torch.stack(big).double().sum(0).to(dtype) if not dtype.is_complex else sum(big)
        for i, o in enumerate(comm.reduce_scatter(on_devices(big))):
            same(
                o,
                total[2 * i : 2 * i + 2],
                f"reduce_scatter {what}",
                exact=not dtype.is_floating_point,
            )


def check_views_and_defer() -> None:
    # a view is reduced in place and its base sees it; defer mode flushes first
    with torchtpu.mode("defer"):
        bases = [torch.zeros(3, 4, device=f"tpu:{i}") for i in range(N)]
        views = [b[1, 1:3] for b in bases]
        for i, v in enumerate(views):
            v.add_(float(i + 1))  # deferred work, flushed by the collective
        comm.all_reduce(views)
        want = torch.zeros(3, 4)
        want[1, 1:3] = N * (N + 1) / 2
        for b in bases:
            same(b, want, "all_reduce into a view, defer mode")
        # non-contiguous inputs
        xs = inputs((4, 6), torch.float32, 2)
        ts = [x.to(f"tpu:{i}").t() for i, x in enumerate(xs)]
        for g in comm.all_gather(ts):
            same(g, torch.cat([x.t() for x in xs]), "all_gather of transposed inputs")


def check_errors() -> None:
    global checked
    x0, x1 = torch.ones(3, device="tpu:0"), torch.ones(3, device="tpu:1")
    cases = [
        (TypeError, lambda: comm.all_reduce([x0, torch.ones(3)])),
        (ValueError, lambda: comm.all_reduce([x0, torch.ones(3, device="tpu:0")])),
        (ValueError, lambda: comm.all_reduce([x0, torch.ones(4, device="tpu:1")])),
        (ValueError, lambda: comm.all_reduce([x0, x1.int()])),
        (ValueError, lambda: comm.all_reduce([x0, x1], op="bxor")),
        (ValueError, lambda: comm.all_reduce([x0.int(), x1.int()], op="avg")),
        (ValueError, lambda: comm.reduce_scatter([x0, x1])),  # 3 does not divide by 2
        (ValueError, lambda: comm.broadcast([x0, x1], root=2)),
        (ValueError, lambda: comm.all_gather([])),
    ]
    for exc, fn in cases:
        try:
            fn()
        except exc as e:
            assert "torchtpu.distributed" in str(e), str(e)
            checked += 1
        else:
            raise AssertionError(f"no {exc.__name__}")
    # the process is still usable
    ts = [x0.clone(), x1.clone()]
    comm.all_reduce(ts)
    same(ts[1], torch.full((3,), 2.0), "all_reduce after errors")


def main() -> None:
    assert N >= 4, f"needs TORCHTPU_CPU_DEVICE_COUNT=4, have {N} devices"
    torchtpu.metrics.reset()
    dtypes = [torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int64]
    dtypes += [torch.int32, torch.uint8, torch.bool, torch.complex64]
    for dtype in dtypes:
        check_dtype(dtype, "strict")
    with torchtpu.mode("defer"):
        check_dtype(torch.float32, "defer")
    check_views_and_defer()
    check_errors()
    counters = torchtpu.metrics.counters()
    assert not counters["fallbacks"], counters["fallbacks"]
    with open(sys.argv[1], "w") as f:
        json.dump({"checked": checked, "compiled_collectives": counters["compiled_collectives"]}, f)


if __name__ == "__main__":
    main()
