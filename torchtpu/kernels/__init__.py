"""Custom kernels on "tpu": ops given as StableHLO text, or as JAX / Pallas
functions exported to StableHLO, that become real torch ops
(``torch.ops.<namespace>.<name>``) and run in every torchtpu mode.

    from torchtpu import kernels

    @kernels.jax_kernel("mylib::rmsnorm", static_argnames=("eps",), differentiable=True)
    def rmsnorm(x, w, eps: float = 1e-6):
        return x * jax.lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + eps) * w

    y = rmsnorm(x.to("tpu"), w.to("tpu"))          # or torch.ops.mylib.rmsnorm(...)

JAX is optional: ``pip install 'torchtpu[kernels]'``.
"""

from __future__ import annotations

from typing import Any

from torchtpu.kernels._op import KernelError
from torchtpu.kernels._types import TensorSpec
from torchtpu.kernels.stablehlo import Kernel, stablehlo_kernel

__all__ = [
    "Kernel",
    "KernelError",
    "TensorSpec",
    "helion_kernel",
    "jax_kernel",
    "pallas_interpret",
    "stablehlo_kernel",
]


def jax_kernel(name: str, fn: Any = None, **kwargs: Any) -> Any:
    """See torchtpu.kernels.jax_kernels.jax_kernel (needs JAX)."""
    from torchtpu.kernels._jax_export import require_jax

    require_jax()
    from torchtpu.kernels.jax_kernels import jax_kernel as impl

    return impl(name, fn, **kwargs)


def pallas_interpret() -> bool:
    """True where Pallas kernels must run in interpret mode (plugins without a
    native Pallas backend, such as the CPU plugin)."""
    from torchtpu.kernels._jax_export import pallas_interpret as impl

    return impl()


def helion_kernel(name: str, kernel: Any, **kwargs: Any) -> Any:
    """See torchtpu.kernels.helion_kernels.helion_kernel (needs Helion and JAX)."""
    from torchtpu.kernels._jax_export import require_jax

    require_jax()
    from torchtpu.kernels.helion_kernels import helion_kernel as impl

    return impl(name, kernel, **kwargs)
