"""Fault and setup scenarios (one process per rank, started by test_distributed.py).

Prints ``OK <what>`` lines the test looks for; exits non-zero on an unexpected result.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist

import torchtpu
from torchtpu.distributed import CollectiveMismatchError, ProcessGroupTPU


def say(msg: str) -> None:
    print(f"rank {os.environ['RANK']}: {msg}", flush=True)


def init_forms() -> None:
    r = int(os.environ["RANK"])
    # no backend, a tpu device: the default device-to-backend map gives "tpu"
    assert dist.Backend.default_device_backend_map["tpu"] == "tpu"
    dist.init_process_group(
        device_id=torch.device("tpu", 0), timeout=datetime.timedelta(seconds=30)
    )
    assert isinstance(dist.group.WORLD, ProcessGroupTPU), type(dist.group.WORLD)
    assert dist.get_backend() == "tpu", dist.get_backend()
    sub = dist.new_group([0, 1])
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t, group=sub)
    assert t.cpu().tolist() == [2.0, 2.0]
    solo = dist.new_group([0])  # rank 1 is not a member
    if r == 0:
        dist.all_reduce(t, group=solo)
    dist.destroy_process_group()
    # a second group in the same processes, on a file store (no port reuse race)
    dist.init_process_group(
        "cpu:gloo,tpu:tpu",
        init_method=f"file://{os.environ['TORCHTPU_TEST_STORE']}",
        rank=r,
        world_size=int(os.environ["WORLD_SIZE"]),
        timeout=datetime.timedelta(seconds=30),
    )
    t = torch.full((3,), float(r + 1), device="tpu")
    c = torch.full((3,), float(r + 1))
    dist.all_reduce(t)
    dist.all_reduce(c)
    n = dist.get_world_size()
    assert t.cpu().tolist() == [n * (n + 1) / 2] * 3 and c.tolist() == t.cpu().tolist()
    dist.destroy_process_group()
    # neither a backend nor a device: c10d's default device map gives the tpu group
    dist.init_process_group(
        init_method=f"file://{os.environ['TORCHTPU_TEST_STORE']}.default",
        rank=r,
        world_size=n,
        timeout=datetime.timedelta(seconds=30),
    )
    assert isinstance(dist.group.WORLD, ProcessGroupTPU), type(dist.group.WORLD)
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    assert t.cpu().tolist() == [float(n)] * 2
    dist.destroy_process_group()
    say("OK init forms")


def mismatch() -> None:
    r = int(os.environ["RANK"])
    dist.init_process_group("tpu", timeout=datetime.timedelta(seconds=30))
    t = torch.ones(4 + r, device="tpu")
    try:
        dist.all_reduce(t)
        raise SystemExit("shape mismatch not detected")
    except CollectiveMismatchError as e:
        say(f"OK shape mismatch: {e}")
    t = torch.ones(4, device="tpu", dtype=torch.float32 if r == 0 else torch.int32)
    try:
        dist.all_gather_into_tensor(torch.empty(8, device="tpu", dtype=t.dtype), t)
        raise SystemExit("dtype mismatch not detected")
    except CollectiveMismatchError as e:
        say(f"OK dtype mismatch: {e}")
    try:
        if r == 0:
            dist.all_reduce(torch.ones(2, device="tpu"))
        else:
            dist.broadcast(torch.ones(2, device="tpu"), src=0)
        raise SystemExit("collective mismatch not detected")
    except CollectiveMismatchError as e:
        say(f"OK op mismatch: {e}")
    # the group is still usable afterwards
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    assert t.cpu().tolist() == [2.0, 2.0]
    dist.destroy_process_group()
    say("OK usable after mismatch")


def dead_rank() -> None:
    r = int(os.environ["RANK"])
    dist.init_process_group("tpu", timeout=datetime.timedelta(seconds=10))
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    if r == 1:
        say("exiting on purpose")
        os._exit(3)
    start = time.monotonic()
    try:
        for _ in range(3):
            dist.all_reduce(t)
            time.sleep(0.5)
        raise SystemExit("the dead rank was not noticed")
    except RuntimeError as e:
        say(f"OK dead rank noticed after {time.monotonic() - start:.1f} s: {e}")
    os._exit(0)


def timeout() -> None:
    r = int(os.environ["RANK"])
    dist.init_process_group("tpu", timeout=datetime.timedelta(seconds=3))
    t = torch.ones(2, device="tpu")
    dist.all_reduce(t)
    if r == 1:
        time.sleep(12)  # alive but never joins the next collective in time
        os._exit(0)
    start = time.monotonic()
    try:
        dist.all_reduce(t)
        raise SystemExit("the timeout did not fire")
    except RuntimeError as e:
        say(f"OK timeout after {time.monotonic() - start:.1f} s: {e}")
    os._exit(0)


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=FutureWarning)
    assert torchtpu.distributed is not None
    {"init": init_forms, "mismatch": mismatch, "dead": dead_rank, "timeout": timeout}[sys.argv[1]]()
