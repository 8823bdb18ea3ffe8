"""Cross-rank checks: every rank must call the same collective with agreeing tensors.

Before each collective the ranks exchange a small fingerprint (collective, dtype,
shape) over Gloo; a mismatch raises ``CollectiveMismatchError`` on every rank
instead of hanging or corrupting memory. ``TORCHTPU_DIST_CHECK=0`` turns it off.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Sequence

import torch
import torch.distributed as dist

from torchtpu.distributed.errors import CollectiveMismatchError

_WIDTH = 8  # op, count, dtype, ndim, shape hash, d0, d1, d2
_OPS = (
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "all_to_all",
    "all_to_all_single",
    "gather",
    "scatter",
    "barrier",
)


def enabled() -> bool:
    return os.environ.get("TORCHTPU_DIST_CHECK", "1") != "0"


_DTYPES = (
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
    torch.complex64,
    torch.complex128,
)


def _dtype_code(dtype: torch.dtype) -> int:
    return _DTYPES.index(dtype) + 1 if dtype in _DTYPES else 0


def _describe(row: list[int]) -> str:
    if row[1] == 0:
        return "no tensors"
    dtype = str(_DTYPES[row[2] - 1]).removeprefix("torch.") if row[2] > 0 else "?"
    dims = [str(d) for d in row[5 : 5 + min(row[3], 3)]]
    more = ", ..." if row[3] > 3 else ""
    count = f"{row[1]} tensors, first " if row[1] > 1 else ""
    return f"{count}{dtype}[{', '.join(dims)}{more}]"


def fingerprint(op: str, tensors: Sequence[torch.Tensor], shapes: bool = True) -> list[int]:
    code = _OPS.index(op)
    if not tensors:
        return [code, 0, 0, 0, 0, 0, 0, 0]
    t = tensors[0]
    dims = list(t.shape) if shapes else []
    key = [(tuple(x.shape) if shapes else (), str(x.dtype)) for x in tensors]
    digest = zlib.crc32(repr(key).encode()) & 0x7FFF_FFFF
    return [code, len(tensors), _dtype_code(t.dtype), len(dims), digest, *(dims + [0, 0, 0])[:3]]


def check(
    gloo: dist.ProcessGroup,
    op: str,
    tensors: Sequence[torch.Tensor],
    shapes: bool = True,
) -> None:
    """Raise on every rank if the ranks' fingerprints differ."""
    mine = fingerprint(op, tensors, shapes)
    size = gloo.size()
    out = torch.empty(size * _WIDTH, dtype=torch.int64)
    gloo._allgather_base(out, torch.tensor(mine, dtype=torch.int64)).wait()
    rows = out.view(size, _WIDTH).tolist()
    if all(r == rows[0] for r in rows):
        return
    ops = {r[0] for r in rows}
    if len(ops) > 1:
        calls = ", ".join(f"rank {i}: {_OPS[r[0]]}" for i, r in enumerate(rows))
        raise CollectiveMismatchError(
            f"torchtpu.distributed: ranks called different collectives ({calls})"
        )
    detail = "; ".join(f"rank {i} has {_describe(r)}" for i, r in enumerate(rows))
    what = "shapes or dtypes" if shapes else "dtypes"
    raise CollectiveMismatchError(
        f"torchtpu.distributed: {op} called with mismatched {what} across ranks: {detail}"
    )
