"""ATen ops implemented in Python on top of tpu ops: PrivateUse1 kernels for ops
with data-dependent result shapes or host logic, composed of ops that have
lowerings (nothing runs on the CPU fallback).

- ``data_dependent``: nonzero, masked_select, unique and friends, bincount,
  repeat_interleave, equal;
- ``batch_norm``: native_batch_norm and _native_batch_norm_legit with the result
  shapes and dtypes of PyTorch's own kernels;
- ``fractional_pool``: fractional_max_pool2d/3d and their backward ops;
- ``fused_adam``: _fused_adam_ and _fused_adamw_ (``Adam(fused=True)``);
- ``asserts``: _assert_async (``torch._assert_async``: checked in launch_blocking
  mode only, as CUDA's device-side asserts).

``register()`` registers them all (once; ``import torchtpu`` does it);
``kernels()`` says which op each kernel serves (``docs/ops.md`` lists them).
"""

from __future__ import annotations

from torchtpu.ops import asserts, batch_norm, data_dependent, fractional_pool, fused_adam
from torchtpu.ops._registry import kernels

__all__ = ["kernels", "register"]


def register() -> None:
    """Registers every Python kernel for the "tpu" device (once)."""
    data_dependent.register()
    batch_norm.register()
    fractional_pool.register()
    fused_adam.register()
    asserts.register()
