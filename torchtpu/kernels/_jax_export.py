"""Exporting a JAX function to StableHLO text for one input signature."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from torchtpu.kernels._types import TensorSpec, name_of

INSTALL_HINT = "pip install 'torchtpu[kernels]'  (JAX: jax and jaxlib)"

# JAX's platform names for the PJRT platforms torchtpu may run on.
_PLATFORMS = {
    "cpu": "cpu",
    "host": "cpu",
    "cuda": "cuda",
    "gpu": "cuda",
    "rocm": "rocm",
    "tpu": "tpu",
}


def require_jax() -> Any:
    try:
        import jax
    except ImportError as e:
        raise ImportError(
            f"torchtpu.kernels: JAX and Pallas kernels need JAX, which is not installed "
            f"({e}); install it with: {INSTALL_HINT}"
        ) from None
    return jax


def platform() -> str:
    """The JAX platform name of the plugin torchtpu runs on."""
    import torchtpu

    name = torchtpu.client().platform_name.lower()
    return _PLATFORMS.get(name, name)


def pallas_interpret() -> bool:
    """Whether Pallas kernels must run in interpret mode on this plugin: yes
    everywhere but TPUs and GPUs, whose Pallas backends compile them natively."""
    return platform() not in ("tpu", "cuda")


def _jax_dtype(spec: TensorSpec) -> Any:
    import jax.numpy as jnp

    name = name_of(spec.dtype)
    names = {"i1": "bool", "complex<f32>": "complex64", "complex<f64>": "complex128"}
    if name in names:
        return jnp.dtype(names[name])
    if name.startswith("ui"):
        return jnp.dtype("uint" + name[2:])
    if name.startswith("i"):
        return jnp.dtype("int" + name[1:])
    if name == "bf16":
        return jnp.bfloat16
    return jnp.dtype("float" + name[1:])


def _wide(specs: Sequence[TensorSpec]) -> bool:
    return any(name_of(s.dtype) in ("f64", "i64", "ui64", "complex<f64>") for s in specs)


def _structs(specs: Sequence[TensorSpec]) -> list[Any]:
    jax = require_jax()
    return [jax.ShapeDtypeStruct(s.shape, _jax_dtype(s)) for s in specs]


def out_specs(fn: Callable[..., Any], specs: Sequence[TensorSpec]) -> list[TensorSpec]:
    """The output shapes and dtypes of fn on inputs of these types."""
    jax = require_jax()
    from torchtpu.kernels._types import dtype_from_name

    with jax.enable_x64(_wide(specs)):
        out = jax.eval_shape(fn, *_structs(specs))
    leaves = jax.tree_util.tree_leaves(out)
    result = []
    for leaf in leaves:
        name = str(leaf.dtype)
        stablehlo = {
            "bool": "i1",
            "bfloat16": "bf16",
            "complex64": "complex<f32>",
            "complex128": "complex<f64>",
        }.get(name)
        if stablehlo is None:
            kind, bits = name.rstrip("0123456789"), name[len(name.rstrip("0123456789")) :]
            stablehlo = {"float": "f", "int": "i", "uint": "ui"}[kind] + bits
        result.append(TensorSpec(tuple(int(d) for d in leaf.shape), dtype_from_name(stablehlo)))
    return result


def export_text(fn: Callable[..., Any], specs: Sequence[TensorSpec]) -> str:
    """StableHLO text (no debug locations) of fn on inputs of these types,
    exported with jax.export for the running plugin's platform."""
    jax = require_jax()
    from jax import export
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir

    with jax.enable_x64(_wide(specs)):
        exported = export.export(jax.jit(fn), platforms=[platform()])(*_structs(specs))
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(exported.mlir_module())
        return module.operation.get_asm(enable_debug_info=False)


def bind_statics(fn: Callable[..., Any], statics: dict[str, Any]) -> Callable[..., Any]:
    return functools.partial(fn, **statics) if statics else fn
