"""``torch._assert_async`` on "tpu" (``aten::_assert_async`` and
``aten::_assert_async.msg``), as CUDA's device-side asserts behave: the check
never makes a program wait for the host.

Device programs cannot raise, so in strict and defer mode the assertion is
recorded as nothing at all (on CUDA it fails a later kernel, asynchronously);
in launch_blocking mode, as under ``CUDA_LAUNCH_BLOCKING=1``, the condition is
read at the op and a false one raises PyTorch's error there. Libraries call it
to check values without a synchronization (TorchTitan checks its rotary
position ids with it on every forward); before this kernel each call copied
its tensor to the host through the CPU fallback.
"""

from __future__ import annotations

import torch

import torchtpu
from torchtpu.ops._registry import impl

__all__ = ["register"]

_lib: torch.library.Library | None = None


def _check(cond: torch.Tensor, msg: str) -> None:
    if cond.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if torchtpu.get_mode() != "launch_blocking":
        return
    if not bool(cond.cpu().item()):
        raise RuntimeError(msg)


def _assert_async(cond: torch.Tensor) -> None:
    _check(cond, "Expected Tensor with single nonzero value, but got zero")


def _assert_async_msg(cond: torch.Tensor, assert_msg: str) -> None:
    _check(cond, assert_msg)


def register() -> None:
    """Registers the kernels for the "tpu" device (once)."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    impl(lib, "_assert_async", _assert_async)
    impl(lib, "_assert_async.msg", _assert_async_msg)
    _lib = lib
