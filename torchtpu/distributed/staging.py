"""Host staging: tpu tensors go to the CPU for Gloo and their results come back."""

from __future__ import annotations

from collections.abc import Sequence

import torch


def is_tpu(t: torch.Tensor) -> bool:
    return t.device.type == "tpu"


def to_host(tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """Contiguous CPU copies of the tpu tensors (CPU tensors pass through).

    A defer-mode trace is run first (one flush, counted as "collective"); the
    copies then read materialized arrays.
    """
    if any(is_tpu(t) for t in tensors):
        from torchtpu import _C

        _C._flush("collective")
    out: list[torch.Tensor] = []
    for t in tensors:
        if is_tpu(t):
            out.append(t.detach().to("cpu").contiguous())
        elif t.is_contiguous():
            out.append(t)
        else:
            out.append(t.contiguous())
    return out


def empty_host(tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """CPU buffers to receive results for `tensors` (CPU contiguous tensors are reused)."""
    return [
        t if (not is_tpu(t) and t.is_contiguous()) else torch.empty(t.shape, dtype=t.dtype)
        for t in tensors
    ]


def copy_back(dst: Sequence[torch.Tensor], src: Sequence[torch.Tensor]) -> None:
    """Write host results into the caller's tensors, in place (views update their base)."""
    for d, s in zip(dst, src, strict=True):
        if d is not s:
            with torch.no_grad():
                d.copy_(s)
