"""Ops whose result shape depends on the data: ``nonzero``, ``masked_select``,
``unique`` and friends, ``bincount``, ``repeat_interleave``, and ``equal``,
whose result is a Python bool.

A compiled program has static shapes, so each of these runs in two steps on
the device: one reads the size it needs back to the host (a single integer:
the number of nonzeros, of unique values, ...), the rest is a fixed-shape
computation made of lowered ops (``nonzero_static``, cumulative sums, scatters
and sorts). Nothing runs on the CPU fallback. In defer mode the size read is a
flush point, as the design says for ops with data-dependent output shapes.

The kernels are registered for the PrivateUse1 ("tpu") dispatch key, below
autograd, so PyTorch's own derivative formulas apply.
"""

from __future__ import annotations

import torch

from torchtpu.ops._registry import impl

__all__ = ["register"]

_lib: torch.library.Library | None = None


def _count(mask: torch.Tensor) -> int:
    """The number of true elements of a tpu mask, read on the host."""
    return int(mask.sum().item())


def _positions(mask: torch.Tensor) -> torch.Tensor:
    """For a 1-d bool mask, each element's rank among the true ones (0-based)."""
    return torch.cumsum(mask.to(torch.int64), 0) - 1


def _compact(mask: torch.Tensor, size: int) -> torch.Tensor:
    """The flat indices of the first ``size`` true elements of a 1-d mask, in
    order; -1 where there are fewer."""
    n = mask.numel()
    idx = torch.arange(n, device=mask.device, dtype=torch.int64)
    pos = _positions(mask)
    slot = torch.where(mask & (pos < size), pos, torch.full_like(pos, size))
    out = torch.full((size + 1,), -1, device=mask.device, dtype=torch.int64)
    out.scatter_(0, slot, idx)
    return out[:size]


def _coords(mask: torch.Tensor, shape: list[int], size: int, fill_value: int) -> torch.Tensor:
    """The coordinates in `shape` of the first `size` true elements of the flat
    mask, one row each; rows past the last true element hold `fill_value`."""
    flat = _compact(mask, size)
    if not shape:  # a 0-d input: one row of no columns per nonzero
        return torch.empty((size, 0), device=mask.device, dtype=torch.int64)
    cols = []
    stride = 1
    for dim in reversed(shape):
        cols.append(torch.remainder(torch.div(flat, stride, rounding_mode="floor"), max(dim, 1)))
        stride *= dim
    coords = torch.stack(list(reversed(cols)), dim=1)
    valid = (flat >= 0).unsqueeze(1)
    return torch.where(valid, coords, torch.full_like(coords, fill_value))


def _nonzero_static(self: torch.Tensor, *, size: int, fill_value: int = -1) -> torch.Tensor:
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be a non-negative integer, got {size}")
    return _coords((self != 0).reshape(-1), list(self.shape), size, fill_value)


def _nonzero(self: torch.Tensor) -> torch.Tensor:
    mask = (self != 0).reshape(-1)
    n = _count(mask)
    coords = _coords(mask, list(self.shape), n, -1)
    # The CPU's layout: column-major, strides (1, n).
    out = torch.empty_strided(coords.shape, (1, n), dtype=coords.dtype, device=coords.device)
    return out.copy_(coords)


def _nonzero_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    res = _nonzero(self)
    out.resize_(res.shape)
    out.copy_(res)
    return out


def _masked_select(self: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    shape = torch.broadcast_shapes(self.shape, mask.shape)
    values = self.expand(shape).reshape(-1)
    flat = mask.expand(shape).reshape(-1)
    return values.index_select(0, _compact(flat, _count(flat)))


def _masked_scatter_(self: torch.Tensor, mask: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_scatter_: expected BoolTensor for mask, got {mask.dtype}")
    if source.dtype != self.dtype:
        raise RuntimeError(
            "masked_scatter_: expected self and source to have same dtypes but got "
            f"{self.dtype} and {source.dtype}"
        )
    m = mask.expand(self.shape).reshape(-1)
    src = source.reshape(-1)
    if src.numel() == 0:
        if _count(m):
            raise RuntimeError("masked_scatter_: expected source to have as many elements as mask")
        return self
    take = src.index_select(0, _positions(m).clamp(0, src.numel() - 1))
    self.copy_(torch.where(m, take, self.reshape(-1)).reshape(self.shape))
    return self


def _empty_i64(like: torch.Tensor) -> torch.Tensor:
    return torch.empty(0, device=like.device, dtype=torch.int64)


def _group_runs(
    values: torch.Tensor, starts: torch.Tensor, order: torch.Tensor | None, shape: torch.Size
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Given rows in run order (``values[i]`` is a slice), the start mask of each
    run and the permutation that put them in that order, returns the first row
    of each run, each original row's run index, and the run lengths."""
    k = _count(starts)
    group = torch.cumsum(starts.to(torch.int64), 0) - 1
    uniq = values.index_select(0, _compact(starts, k))
    if order is None:
        inverse = group
    else:
        inverse = torch.empty_like(group).scatter_(0, order, group)
    counts = torch.zeros(k, device=values.device, dtype=torch.int64)
    counts.scatter_add_(0, group, torch.ones_like(group))
    return uniq, inverse.reshape(shape), counts


def _requested(
    self: torch.Tensor,
    runs: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    return_inverse: bool,
    return_counts: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(values, inverse, counts) with empty tensors for the parts not asked
    for, as PyTorch's kernels return them."""
    uniq, inverse, counts = runs
    return (
        uniq,
        inverse if return_inverse else _empty_i64(self),
        counts if return_counts else _empty_i64(self),
    )


def _run_starts(rows: torch.Tensor) -> torch.Tensor:
    """True where a row differs from the one before it (always at row 0)."""
    n = rows.shape[0]
    if n == 0:
        return torch.zeros(0, device=rows.device, dtype=torch.bool)
    diff = rows[1:] != rows[:-1]
    if diff.dim() > 1:
        diff = diff.flatten(1).any(dim=1)
    head = torch.ones(1, device=rows.device, dtype=torch.bool)
    return torch.cat([head, diff])


def _unique2(
    self: torch.Tensor,
    sorted: bool = True,  # noqa: A002 - ATen's argument name
    return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    # PyTorch's CPU kernel returns sorted values whether or not `sorted` is set.
    flat = self.reshape(-1)
    values, order = torch.sort(flat, stable=True)
    runs = _group_runs(values, _run_starts(values), order, self.shape)
    return _requested(self, runs, return_inverse, return_counts)


def _unique(
    self: torch.Tensor,
    sorted: bool = True,  # noqa: A002 - ATen's argument name
    return_inverse: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    uniq, inverse, _ = _unique2(self, sorted, return_inverse, False)
    return uniq, inverse


def _rows(self: torch.Tensor, dim: int) -> tuple[torch.Tensor, list[int]]:
    moved = self.movedim(dim, 0)
    return moved.reshape(moved.shape[0], -1), list(moved.shape)


def _lex_order(rows: torch.Tensor) -> torch.Tensor:
    """The stable permutation sorting the rows of a 2-d tensor lexicographically."""
    order = torch.arange(rows.shape[0], device=rows.device, dtype=torch.int64)
    for col in range(rows.shape[1] - 1, -1, -1):
        key = rows[:, col].index_select(0, order)
        _, perm = torch.sort(key, stable=True)
        order = order.index_select(0, perm)
    return order


def _unique_dim_impl(
    self: torch.Tensor, dim: int, sort: bool, return_inverse: bool, return_counts: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    dim = dim % max(self.dim(), 1)
    if self.numel() == 0:
        # No values to read: PyTorch's own kernel on an empty host tensor of the
        # same shape gives the result shapes (and its errors).
        empty = torch.empty(self.shape, dtype=self.dtype)
        res = torch.ops.aten.unique_dim_consecutive(empty, dim, return_inverse, return_counts)
        return tuple(t.to(self.device) for t in res)  # type: ignore[return-value]
    rows, moved_shape = _rows(self, dim)
    order = _lex_order(rows) if sort else None
    ordered = rows if order is None else rows.index_select(0, order)
    uniq, inverse, counts = _group_runs(
        ordered, _run_starts(ordered), order, torch.Size([rows.shape[0]])
    )
    out = uniq.reshape([uniq.shape[0], *moved_shape[1:]]).movedim(0, dim)
    return _requested(self, (out, inverse, counts), return_inverse, return_counts)


def _unique_dim(
    self: torch.Tensor,
    dim: int,
    sorted: bool = True,  # noqa: A002 - ATen's argument name
    return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _unique_dim_impl(self, dim, True, return_inverse, return_counts)


def _unique_dim_consecutive(
    self: torch.Tensor, dim: int, return_inverse: bool = False, return_counts: bool = False
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _unique_dim_impl(self, dim, False, return_inverse, return_counts)


def _unique_consecutive(
    self: torch.Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    if dim is not None:
        return _unique_dim_impl(self, dim, False, return_inverse, return_counts)
    flat = self.reshape(-1)
    runs = _group_runs(flat, _run_starts(flat), None, self.shape)
    return _requested(self, runs, return_inverse, return_counts)


def _bincount(
    self: torch.Tensor, weights: torch.Tensor | None = None, minlength: int = 0
) -> torch.Tensor:
    if self.dim() != 1 or self.is_floating_point() or self.is_complex():
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and weights.shape != self.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    size = minlength
    if self.numel():
        lo, hi = torch.aminmax(self)
        lo_v, hi_v = (int(v) for v in torch.stack([lo, hi]).cpu().tolist())
        if lo_v < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        size = max(size, hi_v + 1)
    idx = self.to(torch.int64)
    if weights is None:
        out = torch.zeros(size, device=self.device, dtype=torch.int64)
        return out.scatter_add_(0, idx, torch.ones_like(idx))
    dtype = torch.float32 if weights.dtype == torch.float32 else torch.float64
    out = torch.zeros(size, device=self.device, dtype=dtype)
    return out.scatter_add_(0, idx, weights.to(dtype))


def _repeat_interleave(repeats: torch.Tensor, *, output_size: int | None = None) -> torch.Tensor:
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.is_floating_point() or repeats.is_complex():
        raise RuntimeError("repeats has to be Long or Int tensor")
    reps = repeats.to(torch.int64)
    if reps.numel() and bool((reps < 0).any().item()):
        raise RuntimeError("repeats can not be negative")
    total = int(reps.sum().item()) if output_size is None else int(output_size)
    ends = torch.cumsum(reps, 0).clamp(max=total)
    marks = torch.zeros(total + 1, device=repeats.device, dtype=torch.int64)
    marks.scatter_add_(0, ends, torch.ones_like(ends))
    return torch.cumsum(marks, 0)[:total].to(repeats.dtype)


def _equal(self: torch.Tensor, other: torch.Tensor) -> bool:
    if self.device != other.device:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found "
            f"{self.device} and {other.device}"
        )
    if self.shape != other.shape:
        return False
    if self.numel() == 0:
        return True
    return bool(torch.eq(self, other).all().item())


def register() -> None:
    """Registers the kernels for the "tpu" device (once)."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    impl(lib, "nonzero", _nonzero)
    impl(lib, "nonzero.out", _nonzero_out)
    impl(lib, "nonzero_static", _nonzero_static)
    impl(lib, "masked_select", _masked_select)
    impl(lib, "masked_scatter_", _masked_scatter_)
    impl(lib, "_unique2", _unique2)
    impl(lib, "_unique", _unique)
    impl(lib, "unique_dim", _unique_dim)
    impl(lib, "unique_consecutive", _unique_consecutive)
    impl(lib, "unique_dim_consecutive", _unique_dim_consecutive)
    impl(lib, "bincount", _bincount)
    impl(lib, "repeat_interleave.Tensor", _repeat_interleave)
    impl(lib, "equal", _equal)
    _lib = lib
