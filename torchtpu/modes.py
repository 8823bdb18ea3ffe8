"""Execution modes (per thread): "strict" (default), "launch_blocking" and "defer".

- ``strict``: each op is compiled (cached) and launched at once; launches are
  asynchronous and errors surface at the op.
- ``launch_blocking``: strict, and each op waits for its launch to finish (for
  debugging: an error or a slow op shows at the line that caused it).
- ``defer`` (DeferAndFuse): ops are recorded, not run; the recorded trace is
  compiled as one fused program (cached by its structure) and run when a value
  is needed on the host, at ``torchtpu.sync()``, where the op stream starts to
  repeat (the next iteration of a loop), or when the trace is full.

``TORCHTPU_MODE`` sets the default of every thread (read at import);
``torchtpu.set_mode`` changes the current thread's mode and ``torchtpu.mode``
changes it for a block.
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections.abc import Iterator

from torchtpu import _C

MODES: tuple[str, ...] = ("strict", "launch_blocking", "defer")
MODE_ENV = "TORCHTPU_MODE"

_local = threading.local()


def _check(name: object) -> str:
    if not isinstance(name, str) or name not in MODES:
        raise ValueError(f"unknown torchtpu mode {name!r}; choose one of {', '.join(MODES)}")
    return name


def _read_default() -> str:
    """The default mode from TORCHTPU_MODE. Read at import, which may run inside
    ``import torch`` (autoload): a bad value is a warning, never an error."""
    value = os.environ.get(MODE_ENV, "") or "strict"
    if value not in MODES:
        warnings.warn(
            f"{MODE_ENV}={value!r} is not a torchtpu mode (choose one of {', '.join(MODES)}); "
            "using 'strict'",
            RuntimeWarning,
            stacklevel=2,
        )
        return "strict"
    return value


_default: str = _read_default()
_C._set_mode(_default, True)


def get_mode() -> str:
    """The current thread's mode (for a thread that never chose one, the mode it
    runs in: the one chosen most recently, see set_mode)."""
    mode: str | None = getattr(_local, "mode", None)
    return mode if mode is not None else str(_C._launch_mode())


def set_mode(name: str) -> None:
    """Set the current thread's mode (work launched so far is waited for first).

    Threads that never chose a mode, such as autograd's backward workers, follow
    the mode chosen most recently, so ``loss.backward()`` runs in the mode of
    the thread that called it.
    """
    name = _check(name)
    if name != get_mode():
        # This thread's work only: cutting other threads' traces where they
        # happen to be would give them programs that never come again.
        _C._synchronize(-1, all_threads=False)
    _local.mode = name
    _C._set_mode(name, False)
    _C._set_mode(name, True)


@contextlib.contextmanager
def mode(name: str) -> Iterator[None]:
    """Run a block in another mode: ``with torchtpu.mode("launch_blocking"):``."""
    _check(name)
    prev = get_mode()
    set_mode(name)
    try:
        yield
    finally:
        set_mode(prev)


def sync() -> None:
    """Wait for all launched work (and, in deferring modes, run what is recorded).

    On a thread rank of ``torchtpu.distributed.run_threads``, the work of the
    rank's own device (as a process would).
    """
    from torchtpu.distributed.threads import rank_device

    device = rank_device()
    _C._synchronize(-1 if device is None else device)
