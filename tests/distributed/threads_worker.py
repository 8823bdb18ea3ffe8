"""Thread-rank scenarios (``torchtpu.distributed.run_threads``), run in a subprocess
by test_compiled.py with ``TORCHTPU_CPU_DEVICE_COUNT`` set, so that the ranks are
threads of one process, each on its own CPU-plugin device, and the "tpu" backend
compiles their collectives into device programs.

``python threads_worker.py OUT_JSON N scenario...``: the scenarios of worker.py
(collectives, ddp, fsdp2, their defer forms, distributed checkpoints, dtensor) run on N
thread ranks and check themselves against single-process CPU results; rank 0's
figures go to OUT_JSON. The "faults" scenario checks errors instead.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import tempfile
import threading
import time
import warnings
from typing import Any

import torch
import torch.distributed as dist
import worker

import torchtpu
from torchtpu.distributed import CollectiveMismatchError, run_threads

# The ranks share the process's default CPU generator: build the seeded models
# one at a time so every rank (and the reference) gets the same weights.
_seed_lock = threading.Lock()
_make_mlp = worker.make_mlp


def _locked_make_mlp(seed: int = 0) -> torch.nn.Module:
    with _seed_lock:
        return _make_mlp(seed)


worker.make_mlp = _locked_make_mlp
_make_tp_pair = worker.make_tp_pair


def _locked_make_tp_pair(n: int) -> tuple[torch.nn.Module, torch.nn.Module]:
    with _seed_lock:
        return _make_tp_pair(n)


worker.make_tp_pair = _locked_make_tp_pair


def check_compiled(rank: int) -> dict[str, Any]:
    pg = dist.group.WORLD
    assert pg is not None and pg.compiled, "the thread ranks did not take the compiled path"
    before = torchtpu.metrics.counters()["compiled_collectives"]
    t = torch.ones(3, device="tpu") * (rank + 1)
    dist.all_reduce(t)
    n = dist.get_world_size()
    worker.close(t, torch.full((3,), float(n * (n + 1) // 2)), "compiled all_reduce")
    assert t.device == torch.device("tpu", rank)
    return {"launches": torchtpu.metrics.counters()["compiled_collectives"] - before}


def defer_steady() -> None:
    """A DDP training loop in defer mode on thread ranks settles into compiling
    nothing: each rank's flushes cut only its own device's trace."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = DDP(worker.make_mlp().to("tpu"))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(8, 16).to("tpu")

    def step() -> None:
        with torchtpu.mode("defer"):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
            torchtpu.sync()

    for _ in range(3):
        step()
    # Which values are still referenced when a rank's trace is cut can depend
    # on how the rank threads and autograd's worker threads interleave (on a
    # loaded machine a gradient bucket is sometimes still held): each such
    # variant is one more program, compiled once and then cached. The loop
    # must settle: within 4 windows of 4 steps, one window compiles nothing.
    counts = []
    for _ in range(4):
        dist.barrier()
        before = torchtpu.metrics.counters()["compiles"]
        dist.barrier()
        for _ in range(4):
            step()
        dist.barrier()
        counts.append(torchtpu.metrics.counters()["compiles"] - before)
        dist.barrier()
        if counts[-1] == 0:
            break
    compiles = counts[-1]
    assert compiles == 0, f"compiles per 4-step window after warm-up, in defer mode: {counts}"
    worker.RESULTS["defer_steady_compiles"] = compiles
    worker.RESULTS["defer_steady_windows"] = counts


worker.SCENARIOS["defer_steady"] = defer_steady


def launcher_env() -> None:
    """What torchrun gives a rank process, a rank thread has too: its own RANK,
    LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE in os.environ (written per
    thread as well), and torch.distributed.set_timeout (torch 2.14's) on the
    "tpu" group."""
    rank, n = dist.get_rank(), dist.get_world_size()
    want = {"RANK": rank, "LOCAL_RANK": rank, "WORLD_SIZE": n, "LOCAL_WORLD_SIZE": n}
    for key, value in want.items():
        assert os.environ[key] == str(value) and os.getenv(key) == str(value), key
        assert key in os.environ and key in dict(os.environ), key
    os.environ["LOCAL_RANK"] = str(100 + rank)
    dist.barrier()  # every rank has written its own
    assert os.environ["LOCAL_RANK"] == str(100 + rank)
    os.environ["LOCAL_RANK"] = str(rank)
    dist.set_timeout(datetime.timedelta(seconds=90))
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    worker.close(t, torch.full((2,), float(n)), "all_reduce after set_timeout")
    worker.RESULTS["launcher_env"] = True


worker.SCENARIOS["launcher_env"] = launcher_env


def scenarios(names: list[str]) -> Any:
    def fn(rank: int) -> dict[str, Any]:
        out: dict[str, Any] = {"compiled": check_compiled(rank)}
        for name in names:
            start = time.perf_counter()
            worker.SCENARIOS[name]()
            out[name] = round(time.perf_counter() - start, 2)
        dist.barrier()
        return out

    return fn


def faults(rank: int) -> dict[str, str]:
    """Errors on thread ranks: every rank raises, nothing waits forever."""
    seen: dict[str, str] = {}
    n = dist.get_world_size()
    # mismatched shapes
    try:
        dist.all_reduce(torch.ones(3 + rank, device="tpu"))
        raise AssertionError("mismatched shapes did not raise")
    except CollectiveMismatchError as e:
        seen["shapes"] = str(e)
    # mismatched dtypes
    try:
        dist.all_reduce(torch.ones(3, device="tpu", dtype=torch.float32 if rank else torch.int32))
        raise AssertionError("mismatched dtypes did not raise")
    except CollectiveMismatchError as e:
        seen["dtypes"] = str(e)
    # different collectives at the same point
    try:
        t = torch.ones(4 * n, device="tpu")
        if rank == 0:
            dist.broadcast(t, src=0)
        else:
            dist.all_reduce(t)
        raise AssertionError("different collectives did not raise")
    except CollectiveMismatchError as e:
        seen["ops"] = str(e)
    # the group still works afterwards
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    worker.close(t, torch.full((2,), float(n)), "all_reduce after errors")
    # a rank that skips a collective: the others fail at the timeout
    pg = dist.new_group(list(range(n)), timeout=datetime.timedelta(seconds=2))
    start = time.perf_counter()
    if rank != n - 1:
        try:
            dist.all_reduce(torch.ones(2, device="tpu"), group=pg)
            raise AssertionError("a missing rank did not time out")
        except RuntimeError as e:
            seen["timeout"] = str(e)
            seen["timeout_seconds"] = f"{time.perf_counter() - start:.1f}"
    dist.barrier()
    return seen


def dead_rank(rank: int) -> None:
    """Rank 1 raises; the others must fail at their next collective, not hang."""
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    if rank == 1:
        raise ValueError("rank 1 gives up")
    dist.all_reduce(t)


def main() -> None:
    warnings.filterwarnings("ignore", category=FutureWarning)
    out_path, n, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    result: dict[str, Any] = {}
    os.environ.setdefault("TORCHTPU_DIST_CKPT", tempfile.mkdtemp(prefix="torchtpu_ckpt_"))
    if names == ["faults"]:
        result["faults"] = run_threads(faults, n, timeout=datetime.timedelta(seconds=60))
        start = time.perf_counter()
        try:
            run_threads(dead_rank, n, timeout=datetime.timedelta(seconds=60))
            raise AssertionError("a dead rank was not reported")
        except RuntimeError as e:
            result["dead_rank"] = {"error": str(e), "seconds": time.perf_counter() - start}
    else:
        result["ranks"] = run_threads(scenarios(names), n, timeout=datetime.timedelta(seconds=120))
        result["checks"] = worker.RESULTS
        # The rank variables were the threads' own: the process's are back as they were.
        assert "LOCAL_RANK" not in os.environ and type(os.environ).__name__ == "_Environ"
    result["compiled_collectives"] = torchtpu.metrics.counters()["compiled_collectives"]
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1, default=str)


if __name__ == "__main__":
    main()
