"""tpu kernels for the functional collectives whose C++ path a Python process group misses.

``torch.ops._c10d_functional.all_gather_into_tensor`` and ``reduce_scatter_tensor``
(what DTensor and torch.compile use) call ``ProcessGroup.all_gather_single`` /
``reduce_scatter_single`` in C++, which torch 2.13's Python trampoline does not
forward to Python. These PrivateUse1 kernels call the group's Python methods
instead; the others (all_reduce, all_to_all_single, broadcast, the coalesced
forms) reach the group through the trampoline already.
"""

from __future__ import annotations

from typing import Any

import torch
import torch._C._distributed_c10d as _c10d
import torch.distributed as dist
from torch.distributed.distributed_c10d import _resolve_process_group

_lib: torch.library.Library | None = None


def _group(group_name: Any) -> Any:
    return _resolve_process_group(group_name) if isinstance(group_name, str) else group_name


def _reduce_scatter_opts(reduce_op: str) -> _c10d.ReduceScatterOptions:
    opts = _c10d.ReduceScatterOptions()
    opts.reduceOp = getattr(dist.ReduceOp, reduce_op.upper())
    return opts


def _gathered(input: torch.Tensor, group_size: int) -> torch.Tensor:
    return input.new_empty((input.shape[0] * group_size, *input.shape[1:]))


def all_gather_into_tensor(input: torch.Tensor, group_size: int, group_name: Any) -> torch.Tensor:
    out = _gathered(input, group_size)
    _group(group_name).all_gather_single(out, input.contiguous()).wait()
    return out


def all_gather_into_tensor_out(
    input: torch.Tensor, group_size: int, group_name: Any, *, out: torch.Tensor
) -> torch.Tensor:
    _group(group_name).all_gather_single(out, input.contiguous()).wait()
    return out


def reduce_scatter_tensor(
    input: torch.Tensor, reduce_op: str, group_size: int, group_name: Any
) -> torch.Tensor:
    if input.shape[0] % group_size != 0:
        raise ValueError(
            f"torchtpu.distributed: reduce_scatter_tensor needs dim 0 ({input.shape[0]}) "
            f"divisible by the group size {group_size}"
        )
    out = input.new_empty((input.shape[0] // group_size, *input.shape[1:]))
    opts = _reduce_scatter_opts(reduce_op)
    _group(group_name).reduce_scatter_single(out, input.contiguous(), opts).wait()
    return out


def register() -> None:
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("_c10d_functional", "IMPL")
    lib.impl("all_gather_into_tensor", all_gather_into_tensor, "PrivateUse1")
    lib.impl("all_gather_into_tensor_out", all_gather_into_tensor_out, "PrivateUse1")
    lib.impl("reduce_scatter_tensor", reduce_scatter_tensor, "PrivateUse1")
    _lib = lib
