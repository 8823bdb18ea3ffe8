"""Collectives over tensors on several tpu devices of this process.

One call runs one replicated device program across the devices: the plugin
exchanges the data (no host staging). Like ``torch.cuda.nccl``, each function
takes one tensor per device::

    xs = [torch.randn(4, device=f"tpu:{i}") for i in range(torch.tpu.device_count())]
    torchtpu.distributed.comm.all_reduce(xs)          # every xs[i] is now the sum

On the CPU plugin, ``TORCHTPU_CPU_DEVICE_COUNT=N`` (set before torchtpu starts)
gives N devices. In defer mode a collective is a flush point of each device's
trace. ``torchtpu.metrics.counters()["compiled_collectives"]`` counts the
launches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.distributed as dist

from torchtpu import _C, _torch_compat

__all__ = [
    "all_gather",
    "all_reduce",
    "all_to_all",
    "broadcast",
    "reduce_op_name",
    "reduce_scatter",
]

_REDUCE_NAMES = ("sum", "avg", "product", "min", "max")


def reduce_op_name(op: Any) -> str | None:
    """The compiled collectives' name of a ``dist.ReduceOp`` (or string), or None
    when they do not implement it (bitwise ops, PREMUL_SUM)."""
    if isinstance(op, str):
        name = op.lower()
        return name if name in _REDUCE_NAMES else None
    # ReduceOp compares equal to its RedOpType member, whose name is e.g. "SUM".
    for name in _REDUCE_NAMES:
        if op == getattr(dist.ReduceOp, name.upper()):
            return name
    return None


def premul_factor(op: Any) -> Any:
    """The factor of a ``ReduceOp.PREMUL_SUM`` (``dist._make_nccl_premul_sum``):
    a number or a tensor; None for any other op."""
    if isinstance(op, str) or getattr(op, "op", None) != dist.ReduceOp.PREMUL_SUM:
        return None
    factor = _torch_compat.premul_sum_factor(op)
    if factor is None:
        raise ValueError("torchtpu.distributed: ReduceOp.PREMUL_SUM without a factor")
    return factor


def _check(name: str, tensors: Sequence[torch.Tensor]) -> None:
    if len(tensors) == 0:
        raise ValueError(f"torchtpu.distributed.comm.{name}: no tensors")
    devices = set()
    for t in tensors:
        if not isinstance(t, torch.Tensor) or t.device.type != "tpu":
            where = t.device if isinstance(t, torch.Tensor) else type(t).__name__
            raise TypeError(
                f"torchtpu.distributed.comm.{name}: every tensor must be on a tpu device, "
                f"got {where}"
            )
        if t.device.index in devices:
            raise ValueError(
                f"torchtpu.distributed.comm.{name}: two tensors are on {t.device}; "
                "give one tensor per device"
            )
        devices.add(t.device.index)


def _flush() -> None:
    _C._flush("collective")


def run(
    kind: str,
    per_device: Sequence[Sequence[torch.Tensor]],
    op: str = "sum",
    dim: int = 0,
    root: int = 0,
) -> list[list[torch.Tensor]]:
    """One replicated program: ``per_device[d]`` are participant d's tensors.

    Returns new contiguous tensors in the same layout, each on its participant's
    device. Raises ValueError for tensors that do not agree between participants.
    """
    _flush()
    inputs = [[t.detach() for t in ts] for ts in per_device]
    return _C._collective(kind, inputs, op, dim, root)


def copy_into(dst: torch.Tensor, src: torch.Tensor) -> None:
    """dst takes src's values: by taking over its device array when dst is a
    whole storage (no copy), else by a device copy."""
    if not _C._adopt(dst, src):
        with torch.no_grad():
            dst.copy_(src.view(dst.shape))


def all_reduce(tensors: Sequence[torch.Tensor], op: Any = "sum") -> Sequence[torch.Tensor]:
    """Reduces the tensors elementwise (sum, avg, product, min, max) into every one, in place."""
    _check("all_reduce", tensors)
    name = reduce_op_name(op)
    if name is None:
        raise ValueError(f"torchtpu.distributed.comm.all_reduce: unsupported reduce op {op}")
    out = run("all_reduce", [[t] for t in tensors], name)
    for t, o in zip(tensors, out, strict=True):
        copy_into(t, o[0])
    return tensors


def broadcast(tensors: Sequence[torch.Tensor], root: int = 0) -> Sequence[torch.Tensor]:
    """Copies ``tensors[root]`` into every tensor, in place (bit for bit)."""
    _check("broadcast", tensors)
    if not 0 <= root < len(tensors):
        raise ValueError(f"torchtpu.distributed.comm.broadcast: root {root} is out of range")
    out = run("broadcast", [[t] for t in tensors], root=root)
    for i, (t, o) in enumerate(zip(tensors, out, strict=True)):
        if i != root:
            copy_into(t, o[0])
    return tensors


def all_gather(tensors: Sequence[torch.Tensor], dim: int = 0) -> list[torch.Tensor]:
    """Every device gets the tensors concatenated along `dim`, in list order."""
    _check("all_gather", tensors)
    return [o[0] for o in run("all_gather", [[t] for t in tensors], dim=dim)]


def reduce_scatter(
    tensors: Sequence[torch.Tensor], dim: int = 0, op: Any = "sum"
) -> list[torch.Tensor]:
    """Device i gets block i (of len(tensors) equal blocks along `dim`) of the reduction."""
    _check("reduce_scatter", tensors)
    name = reduce_op_name(op)
    if name is None:
        raise ValueError(f"torchtpu.distributed.comm.reduce_scatter: unsupported reduce op {op}")
    return [o[0] for o in run("reduce_scatter", [[t] for t in tensors], name, dim=dim)]


def all_to_all(tensors: Sequence[torch.Tensor], dim: int = 0) -> list[torch.Tensor]:
    """Block j (along `dim`) of tensor i goes to device j, where it is block i."""
    _check("all_to_all", tensors)
    return [o[0] for o in run("all_to_all", [[t] for t in tensors], dim=dim)]
