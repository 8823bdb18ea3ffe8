"""Defer mode's cut at the start of a backward pass.

When ``loss.backward()`` (``torch.autograd.backward``) or
``torch.autograd.grad`` starts from a tpu tensor on a thread whose deferred
trace holds ops, the trace is cut there: the forward is compiled and launched as its own program
(a new one compiles on a thread of its own while the backward is recorded and compiled),
and the backward (with what follows it, such as the optimizer step) is
recorded into the next one, which is cut again where ``optimizer.step()``
returns (a global optimizer hook), so the forward's saved values are freed
before the next forward runs. Measured on the XLA CPU plugin, one program of the
GPT-style model's forward and backward runs 1.3-1.5x slower than the two run
one after the other (XLA fuses across the boundary and recomputes forward
values inside backward fusions), and the cut lets the device run the forward
while the host records the backward. The cut costs one launch per step.

``TORCHTPU_CUT_AT_BACKWARD=0`` (read at import) or ``set_cut_at_backward(False)``
turns it off: forward and backward then fuse into one program, as before.
"""

from __future__ import annotations

import atexit
import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from torchtpu import _C

F = TypeVar("F", bound=Callable[..., Any])

_enabled: bool = os.environ.get("TORCHTPU_CUT_AT_BACKWARD", "1") not in ("0", "false", "False")
_hooked_optimizers: bool = False


def set_cut_at_backward(on: bool) -> None:
    """Cut the deferred trace where a backward pass starts (on by default)."""
    global _enabled
    _enabled = bool(on)


def cut_at_backward() -> bool:
    """Whether deferred traces are cut where a backward pass starts."""
    return _enabled


def _hook_optimizers() -> None:
    """The cut after ``optimizer.step()``: registered at the first backward, as
    torchtpu may be imported while ``import torch`` runs (autoload), before
    torch.optim exists."""
    global _hooked_optimizers
    _hooked_optimizers = True
    from torch.optim.optimizer import register_optimizer_step_post_hook

    register_optimizer_step_post_hook(_after_optimizer_step)


def _cut(reason: str = "backward") -> None:
    if not _hooked_optimizers:
        _hook_optimizers()
    if _enabled and not torch.compiler.is_compiling() and _C._pending_own_ops() > 0:
        # At a backward pass's start, a forward program not built yet compiles
        # on a thread of its own while the backward is recorded (and its
        # program compiled): the two compiles overlap.
        background = reason == "backward"
        if torch.autograd.profiler._is_profiler_enabled:
            # Under torch.profiler, the programs' device time is listed under
            # this span (there is no ATen op here to own it).
            with torch.profiler.record_function(f"torchtpu::cut ({reason})"):
                _C._flush_own(reason, background)
        else:
            _C._flush_own(reason, background)


def _after_optimizer_step(optimizer: Any, args: Any, kwargs: Any) -> None:
    _cut("optimizer step")


def _on_tpu(roots: Any) -> bool:
    """Whether the tensors a backward pass starts from (a tensor or a sequence
    of them) include a tpu tensor: a CPU-only backward cuts nothing."""
    if isinstance(roots, torch.Tensor):
        return roots.device.type == "tpu"
    if isinstance(roots, (list, tuple)):
        return any(isinstance(t, torch.Tensor) and t.device.type == "tpu" for t in roots)
    return False


def _wrap(fn: F, roots_kwarg: str) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _on_tpu(args[0] if args else kwargs.get(roots_kwarg)):
            _cut()
        return fn(*args, **kwargs)

    wrapper.__torchtpu_backward_cut__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def install() -> None:
    """Wraps torch.autograd.backward and torch.autograd.grad (once: a wrapper
    is marked). ``Tensor.backward`` calls ``torch.autograd.backward``."""
    # Background compiles finish before the interpreter (and the plugin) goes.
    atexit.register(_C._join_background_flushes)
    for name, roots in (("backward", "tensors"), ("grad", "outputs")):
        fn = getattr(torch.autograd, name)
        if not getattr(fn, "__torchtpu_backward_cut__", False):
            setattr(torch.autograd, name, _wrap(fn, roots))
