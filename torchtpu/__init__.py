"""torchtpu: run PyTorch on TPUs and any device with a PJRT plugin.

``import torchtpu`` (or plain ``import torch`` once torchtpu is installed, through
torch's backend autoload, see ``torchtpu_autoload``) registers the "tpu" device.
"""

from __future__ import annotations

import os
import warnings

import torch

# First of all (plain imports sort first): refuses an unsupported torch, or a _C
# built against another torch release, with an ImportError that says what to do.
import torchtpu._torch_compat as _torch_compat  # noqa: F401
from torchtpu import (
    _C,  # noqa: I001 - loads the ATen kernels; needs torch first
    debug,
    metrics,
)
from torchtpu import device as _device_module
from torchtpu import ops as _ops
from torchtpu._plugin import PluginInfo, client, info, resolve
from torchtpu.backward_cut import cut_at_backward, set_cut_at_backward
from torchtpu.backward_cut import install as _install_backward_cut
from torchtpu.dynamo import compile_backend
from torchtpu.modes import get_mode, mode, set_mode, sync

__all__ = [
    "PluginInfo",
    "client",
    "compile_backend",
    "cut_at_backward",
    "debug",
    "devices",
    "get_mode",
    "info",
    "metrics",
    "mode",
    "resolve",
    "set_cpu_fallback",
    "set_cut_at_backward",
    "set_mode",
    "sync",
]
__version__ = "0.1.0"


_install_backward_cut()


def devices() -> list[_C.runtime.DeviceInfo]:
    """The devices of the plugin torchtpu runs on."""
    return list(client().devices())


def set_cpu_fallback(enabled: bool) -> None:
    """Allow (default) or forbid running ops without a tpu lowering on the CPU."""
    _C._set_cpu_fallback(bool(enabled))


def _register() -> None:
    name = torch._C._get_privateuse1_backend_name()
    if name != "tpu":
        if name != "privateuseone":
            raise RuntimeError(
                f"torchtpu cannot register the 'tpu' device: another package already renamed "
                f"PyTorch's PrivateUse1 backend to {name!r} in this process"
            )
        torch.utils.rename_privateuse1_backend("tpu")
    if not hasattr(torch, "tpu"):
        torch._register_device_module("tpu", _device_module)
    if not hasattr(torch.Tensor, "is_tpu"):
        torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)
    fallback = os.environ.get("TORCHTPU_CPU_FALLBACK", "1")
    if fallback == "0":
        set_cpu_fallback(False)
    elif fallback != "1":
        warnings.warn(
            f"TORCHTPU_CPU_FALLBACK={fallback!r} is neither 0 nor 1; the CPU fallback stays on",
            RuntimeWarning,
            stacklevel=2,
        )


def _patch_printing() -> None:
    """Print tpu tensors from a host copy: formatting slices and reduces the
    tensor many times, which would otherwise run (and compile) on the device."""
    import torch._tensor_str as ts

    original = ts._tensor_str
    if getattr(original, "_torchtpu", False):
        return

    def _tensor_str(self: torch.Tensor, indent: int) -> str:
        if self.device.type == "tpu":
            self = self.cpu()
        return original(self, indent)

    _tensor_str._torchtpu = True  # type: ignore[attr-defined]
    ts._tensor_str = _tensor_str


_register()
_C._register_lowered_overrides()
# PyTorch may count devices before any tpu tensor exists (autograd's engine at
# the first backward): that starts the runtime.
_C._set_lazy_init(_device_module._lazy_init)
_patch_printing()
_ops.register()


def _register_distributed() -> None:
    import torch.distributed as dist

    if dist.is_available():
        from torchtpu import distributed

        distributed.register()


_register_distributed()
