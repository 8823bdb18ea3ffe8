"""The record of the Python kernels torchtpu registers (for ``torchtpu.ops.kernels``)."""

from __future__ import annotations

from collections.abc import Callable

import torch

_kernels: dict[str, Callable[..., object]] = {}


def impl(lib: torch.library.Library, name: str, fn: Callable[..., object]) -> None:
    """``lib.impl(name, fn, "PrivateUse1")``, recorded under ``"aten::" + name``."""
    lib.impl(name, fn, "PrivateUse1")
    _kernels["aten::" + name] = fn


def kernels() -> dict[str, Callable[..., object]]:
    """Each registered op ("aten::nonzero") and its kernel."""
    return dict(_kernels)
