"""Execution modes (per thread): "strict" (default) and "launch_blocking".

``TORCHTPU_MODE`` sets the default of every thread.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from torchtpu import _C

MODES = ("strict", "launch_blocking")
MODE_ENV = "TORCHTPU_MODE"

_local = threading.local()


def _check(name: str) -> str:
    if name not in MODES:
        raise ValueError(f"unknown torchtpu mode {name!r}; choose one of {', '.join(MODES)}")
    return name


def _default() -> str:
    return _check(os.environ.get(MODE_ENV, "strict"))


def get_mode() -> str:
    """The current thread's mode."""
    mode = getattr(_local, "mode", None)
    if mode is None:
        mode = _default()
        _apply(mode)
    return mode


def _apply(name: str) -> None:
    _local.mode = name
    _C._set_launch_blocking(name == "launch_blocking")


def set_mode(name: str) -> None:
    """Set the current thread's mode."""
    if getattr(_local, "mode", None) is not None:
        sync()
    _apply(_check(name))


@contextlib.contextmanager
def mode(name: str) -> Iterator[None]:
    """Run a block in another mode: ``with torchtpu.mode("launch_blocking"):``."""
    prev = get_mode()
    set_mode(name)
    try:
        yield
    finally:
        set_mode(prev)


def sync() -> None:
    """Wait for all launched work (and, in deferring modes, run what is recorded)."""
    _C._synchronize(-1)
