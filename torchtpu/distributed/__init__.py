"""torch.distributed on "tpu": the "tpu" c10d backend.

``import torchtpu`` registers it; then ``dist.init_process_group("tpu")`` (or
``"cpu:gloo,tpu:tpu"``, or no backend at all: "tpu" is the default for the tpu
device) gives a process group whose collectives take tpu tensors. On the CPU
plugin across processes they are staged through the host and run by Gloo;
between ranks that are threads of one process (``run_threads``), each on its
own device, they are compiled into device programs. ``comm`` runs collectives
over tensors on several devices from one thread.
"""

from __future__ import annotations

import datetime

import torch.distributed as dist

from torchtpu.distributed import comm
from torchtpu.distributed.errors import CollectiveMismatchError
from torchtpu.distributed.process_group import ProcessGroupTPU, create
from torchtpu.distributed.threads import run_threads

__all__ = [
    "CollectiveMismatchError",
    "ProcessGroupTPU",
    "comm",
    "register",
    "run_threads",
    "set_timeout",
]

_registered = False


def register() -> None:
    """Register the "tpu" backend with torch.distributed (idempotent)."""
    global _registered
    if _registered:
        return
    from torchtpu.distributed import functional

    dist.Backend.register_backend("tpu", create, devices=["tpu"])
    functional.register()
    if not hasattr(dist, "set_timeout"):
        dist.set_timeout = set_timeout  # type: ignore[attr-defined]
    _registered = True


def set_timeout(timeout: datetime.timedelta, group: dist.ProcessGroup | None = None) -> None:
    """``torch.distributed.set_timeout`` for torch releases that lack it (2.11,
    2.13; torch 2.14 has its own, which calls ``ProcessGroupTPU.set_timeout``):
    sets the timeout of later collectives on `group` (default: the default
    group). Libraries written for torch 2.14 call it (TorchTitan after its first
    step); before 2.14 torch had only the private ``_set_pg_timeout``, which
    knows Gloo and NCCL groups."""
    from torch.distributed import distributed_c10d as c10d

    if group is None:
        group = c10d._get_default_group()
    if c10d._rank_not_in_group(group):
        raise ValueError("Invalid process group specified")
    if isinstance(group, ProcessGroupTPU):
        group.set_timeout(timeout)
    else:
        c10d._set_pg_timeout(timeout, group)
