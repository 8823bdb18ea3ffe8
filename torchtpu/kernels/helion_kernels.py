"""Helion kernels (PyTorch-style tiles, compiled by Helion's Pallas backend)
as torch ops on "tpu", through the JAX path: Helion's ``Kernel.jax_fn`` is a
JAX function, exported to StableHLO like any other JAX kernel."""

from __future__ import annotations

import inspect
from typing import Any

from torchtpu.kernels._op import KernelError
from torchtpu.kernels.jax_kernels import jax_kernel
from torchtpu.kernels.stablehlo import Kernel

INSTALL_HINT = "pip install helion==1.5.1 (with --no-deps where it would touch torch) and JAX"


def helion_kernel(
    name: str,
    kernel: Any,
    *,
    static_argnames: tuple[str, ...] | list[str] = (),
    num_outputs: int = 1,
) -> Kernel:
    """Makes a Helion kernel a torch op on "tpu".

    The kernel must use Helion's Pallas backend, in interpret mode where the
    plugin has no Pallas backend::

        @helion.kernel(backend="pallas", pallas_interpret=kernels.pallas_interpret(),
                       config=helion.Config(block_sizes=[8]))
        def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor: ...

        op = kernels.helion_kernel("mylib::rmsnorm", rmsnorm)

    Give it a config: without one Helion autotunes, running many variants.
    """
    jax_fn = getattr(kernel, "jax_fn", None)
    fn = getattr(kernel, "fn", None)
    if jax_fn is None or fn is None:
        raise KernelError(
            f"kernel {name}: {kernel!r} is not a Helion kernel with a JAX view (needs "
            f"helion>=1.5 and backend='pallas'; {INSTALL_HINT})"
        )
    backend = getattr(getattr(kernel, "settings", None), "backend", "pallas")
    if backend != "pallas":
        raise KernelError(
            f"kernel {name}: Helion kernels run on tpu through Helion's Pallas backend; this "
            f"one uses {backend!r} (pass backend='pallas' to helion.kernel)"
        )

    def call(*args: Any) -> Any:
        return jax_fn(*args)

    call.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    call.__name__ = getattr(fn, "__name__", "helion_kernel")
    return jax_kernel(name, call, static_argnames=tuple(static_argnames), num_outputs=num_outputs)
