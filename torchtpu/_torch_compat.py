"""The torch releases torchtpu supports, and the one place their differences live.

``import torchtpu`` imports this module first; importing it calls :func:`check`
and then loads ``torchtpu._C`` (:func:`load_extension`): an
unsupported torch gets an ImportError that names the supported releases, and a
``_C`` built against another torch release gets one that says to rebuild (its
ATen symbols would not resolve, or would resolve to a different ABI).

Everything else in torchtpu that depends on the torch release asks this module
(``TORCH_RELEASE``, ``at_least``) rather than reading ``torch.__version__``
itself; the C++ side's counterpart is ``csrc/aten/torch_compat.h``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import torch

# (major, minor) of the torch releases torchtpu builds against and is tested on
# (README, "Torch releases"). Keep csrc/aten/torch_compat.h's list in step.
SUPPORTED: tuple[tuple[int, int], ...] = ((2, 11), (2, 13), (2, 14))

# How to rebuild the extension against the torch that is installed.
REBUILD = "pip install --no-build-isolation --no-deps -e . (`make build`) in the torchtpu checkout"


def release(version: str) -> tuple[int, int]:
    """(major, minor) of a version string such as "2.14.1+cu130" or "2.13.0a0+git"."""
    parts = version.split("+", 1)[0].split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or "-1")
    except (IndexError, ValueError):
        return (-1, -1)


def _names(releases: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{a}.{b}" for a, b in releases)


TORCH_VERSION: str = torch.__version__
TORCH_RELEASE: tuple[int, int] = release(TORCH_VERSION)


def at_least(major: int, minor: int) -> bool:
    """Whether the running torch is release major.minor or newer."""
    return TORCH_RELEASE >= (major, minor)


# torch.clamp with one scalar bound that is NaN (clamp(x, min=nan)): NaN
# everywhere in torch 2.13, as torch._refs and the two-bound form always gave;
# torch 2.11's CPU kernel returns x unchanged (pytorch/pytorch#172067, fixed in
# 2.12). torchtpu gives NaN on every release; tests compare against the
# two-bound form where the CPU does not.
CPU_CLAMP_LONE_NAN_BOUND_IS_NAN: bool = at_least(2, 12)


def premul_sum_factor(op: Any) -> Any:
    """The factor (a number or a tensor) of a ``ReduceOp.PREMUL_SUM``
    (``dist._make_nccl_premul_sum``), or None if it has none.

    torch 2.13 exposes it as ``op.factor``; in torch 2.11 only the op's pickled
    state, ``(op type, factor)``, holds it."""
    if at_least(2, 13):
        return getattr(op, "factor", None)
    state = op.__getstate__()
    return state[1] if isinstance(state, tuple) and len(state) == 2 else None


def serialize_sharding_propagation(lock: AbstractContextManager) -> Callable[[], None]:
    """Make DTensor's sharding propagation, which runs each op in a fake-tensor
    mode, take `lock` (thread ranks must take turns); returns what undoes it.

    torch 2.13 has a hook for this (ShardingPropagator._fake_mode_lock, a
    nullcontext unless set); torch 2.11 has none, so there the method that runs
    the op in the fake mode is wrapped."""
    from torch.distributed.tensor._sharding_prop import ShardingPropagator

    if at_least(2, 13):
        old_lock = ShardingPropagator._fake_mode_lock
        ShardingPropagator._fake_mode_lock = lock

        def restore() -> None:
            ShardingPropagator._fake_mode_lock = old_lock

        return restore

    name = "_propagate_tensor_meta_non_cached"
    unlocked = ShardingPropagator.__dict__[name]

    def locked(self, op_schema):
        with lock:
            return unlocked(self, op_schema)

    setattr(ShardingPropagator, name, locked)
    return lambda: setattr(ShardingPropagator, name, unlocked)


def _fix_fft_meta_strides() -> None:
    """torch 2.11's meta kernels of the FFT ops (_fft_c2c, _fft_r2c, _fft_c2r)
    lay out their result with two helpers of torch._meta_registrations that
    later releases fixed: _sort_dims sorts a copy (so the dims stay unsorted) and
    _exec_fft puts the transformed dims in ascending order instead of the order
    given. For a transform over dims out of order (fft2(x, dim=(2, 0))) the
    result's strides then run past its storage, the meta kernel raises, and
    torchtpu, which learns result shapes from meta kernels, ran the op on the
    CPU. These replacements follow the CPU kernels (aten/src/ATen/native/mkl/
    SpectralOps.cpp), as torch 2.13's helpers do."""
    import torch._meta_registrations as meta

    def sort_dims(self, dim, exclude_last=False):
        # The transformed dims by decreasing stride (all but the last one if
        # exclude_last).
        dims = list(dim)
        end = len(dims) - int(exclude_last)
        strides = self.stride()
        dims[:end] = sorted(dims[:end], key=lambda d: strides[d], reverse=True)
        return dims

    def exec_fft(out, self, out_sizes, dim, *, forward):
        # Batch dims (by decreasing stride) first, then the transformed dims in
        # the order given; the result is contiguous in that order.
        ndim = self.ndim
        batch_ndim = ndim - len(dim)
        strides = self.stride()
        batch = [d for d in range(ndim) if d not in dim]
        order = sorted(batch, key=lambda d: strides[d], reverse=True) + list(dim)
        batched = self.permute(order).reshape([-1, *[self.size(d) for d in dim]])
        out.resize_(
            [batched.size(0), *[out_sizes[d] for d in dim]],
            memory_format=torch.contiguous_format,
        )
        out_strides = [0] * ndim
        batch_numel = 1
        for i in reversed(range(batch_ndim)):
            out_strides[order[i]] = batch_numel * out.stride(0)
            batch_numel *= out_sizes[order[i]]
        for i in range(batch_ndim, ndim):
            out_strides[order[i]] = out.stride(1 + i - batch_ndim)
        out.as_strided_(out_sizes, out_strides, out.storage_offset())
        return out

    meta._sort_dims = sort_dims
    meta._exec_fft = exec_fft


def check(version: str = TORCH_VERSION) -> None:
    """Raise ImportError unless ``version`` (the running torch) is a supported release."""
    if release(version) not in SUPPORTED:
        raise ImportError(
            f"torchtpu supports torch {_names(SUPPORTED)}; this is torch {version}. "
            f"Install a supported release, e.g. pip install torch=={_names(SUPPORTED[-1:])}.*"
        )


def check_built(built: str, version: str = TORCH_VERSION) -> None:
    """Raise ImportError if torchtpu._C was built against another torch release."""
    if release(built) != release(version):
        raise ImportError(
            f"torchtpu._C was built against torch {built}, but torch {version} is running; "
            f"rebuild torchtpu against this torch: {REBUILD}"
        )


def load_error(error: ImportError, version: str = TORCH_VERSION) -> ImportError:
    """The ImportError to raise when torchtpu._C does not load."""
    if isinstance(error, ModuleNotFoundError) and error.name == "torchtpu._C":
        return ImportError(f"torchtpu._C is not built for torch {version}: {REBUILD}")
    return ImportError(
        f"torchtpu._C does not load with torch {version} ({error}); it was most likely "
        f"built against another torch release: rebuild torchtpu against this torch: {REBUILD}"
    )


def load_extension():
    """Import torchtpu._C, or raise the ImportError that says what to do."""
    # import_module, not `from torchtpu import _C`: a missing _C must be the
    # ModuleNotFoundError that load_error tells apart ("cannot import name" is not).
    try:
        _C = importlib.import_module("torchtpu._C")
    except ImportError as e:
        raise load_error(e) from e
    built = getattr(_C, "_torch_version", None)
    if built is None:
        raise ImportError(
            "torchtpu._C is older than this torchtpu (it does not say which torch it was "
            f"built against): rebuild torchtpu against this torch: {REBUILD}"
        )
    check_built(built)
    return _C


check()
load_extension()
if not at_least(2, 13):
    _fix_fft_meta_strides()
