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

import torch.distributed as dist

from torchtpu.distributed import comm
from torchtpu.distributed.errors import CollectiveMismatchError
from torchtpu.distributed.process_group import ProcessGroupTPU, create
from torchtpu.distributed.threads import run_threads

__all__ = ["CollectiveMismatchError", "ProcessGroupTPU", "comm", "register", "run_threads"]

_registered = False


def register() -> None:
    """Register the "tpu" backend with torch.distributed (idempotent)."""
    global _registered
    if _registered:
        return
    from torchtpu.distributed import functional

    dist.Backend.register_backend("tpu", create, devices=["tpu"])
    functional.register()
    _registered = True
