"""native_batch_norm and _native_batch_norm_legit on "tpu", with the result
shapes and dtypes of PyTorch's own CPU and CUDA kernels.

PyTorch's meta function for these ops promises ``save_mean``/``save_invstd`` of
shape [C] in float32 even in eval mode, where the real kernels return empty
tensors (and, for reduced-precision inputs, tensors of the input's dtype). The
kernels here route each case to a lowered op whose meta function is right
(``_native_batch_norm_legit_no_training`` in eval mode,
``_native_batch_norm_legit_functional`` otherwise, whose updated running
statistics are written back in place) so results match those of other devices.
"""

from __future__ import annotations

import torch

from torchtpu.ops._registry import impl

__all__ = ["register"]

_lib: torch.library.Library | None = None

_Out = tuple[torch.Tensor, torch.Tensor, torch.Tensor]


def _native_batch_norm(
    input: torch.Tensor,  # noqa: A002 - ATen's argument name
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> _Out:
    aten = torch.ops.aten
    stats = running_mean is not None and running_var is not None
    if not training and stats:
        out = aten._native_batch_norm_legit_no_training(
            input, weight, bias, running_mean, running_var, momentum, eps
        )[0]
        empty = input.new_empty(0)
        return out, empty, input.new_empty(0)
    channels = input.shape[1] if input.dim() > 1 else 0
    # Without running statistics, placeholders in the statistics' dtype.
    reduced = input.dtype in (torch.bfloat16, torch.float16)
    stat_dtype = torch.float32 if reduced else input.dtype
    rm = running_mean if stats else input.new_zeros(channels, dtype=stat_dtype)
    rv = running_var if stats else input.new_ones(channels, dtype=stat_dtype)
    out, mean, invstd, new_rm, new_rv = aten._native_batch_norm_legit_functional(
        input, weight, bias, rm, rv, True, momentum, eps
    )
    if stats and training:
        assert running_mean is not None and running_var is not None
        running_mean.copy_(new_rm)
        running_var.copy_(new_rv)
    return out, mean.to(input.dtype), invstd.to(input.dtype)


def _legit_no_stats(
    input: torch.Tensor,  # noqa: A002 - ATen's argument name
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> _Out:
    return _native_batch_norm(input, weight, bias, None, None, training, momentum, eps)


def register() -> None:
    """Registers the kernels for the "tpu" device (once)."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    impl(lib, "native_batch_norm", _native_batch_norm)
    impl(lib, "_native_batch_norm_legit", _native_batch_norm)
    impl(lib, "_native_batch_norm_legit.no_stats", _legit_no_stats)
    _lib = lib
