"""Kernels written as StableHLO text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from torchtpu import _C
from torchtpu.kernels._op import KernelError, ShapeFn, check_schema, define_op
from torchtpu.kernels._types import TensorSpec


class Kernel:
    """A custom op on "tpu". Call it like the op (``kernel(x, w, eps=1e-6)``)."""

    def __init__(self, name: str, op: Any) -> None:
        self.name = name
        self.op = op

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<torchtpu kernel {self.name}>"


def _signature(name: str, text: str) -> tuple[list[TensorSpec], list[TensorSpec]]:
    try:
        params, results = _C._stablehlo_signature(text)
    except ValueError as e:
        raise KernelError(f"kernel {name}: {e}") from None
    return [TensorSpec.from_native(p) for p in params], [TensorSpec.from_native(r) for r in results]


def _check_compiles(name: str, text: str) -> None:
    import torchtpu

    try:
        torchtpu.client().compile(text)
    except Exception as e:  # the plugin's parse / verify error
        raise KernelError(f"kernel {name}: the plugin cannot compile its StableHLO: {e}") from None


def _default_schema(name: str, params: list[TensorSpec], results: list[TensorSpec]) -> str:
    args = ", ".join(f"Tensor x{i}" for i in range(len(params)))
    rets = "Tensor" if len(results) == 1 else "(" + ", ".join("Tensor" for _ in results) + ")"
    return f"({args}) -> {rets}"


def stablehlo_kernel(
    name: str,
    stablehlo: str | Callable[..., str],
    *,
    schema: str | None = None,
    shapes: ShapeFn | None = None,
    backward: Callable[..., Any] | None = None,
    setup_context: Callable[..., Any] | None = None,
) -> Kernel:
    """Defines the torch op `name` ("mylib::scale_add") from StableHLO.

    stablehlo: a module whose ``func.func @main`` is the kernel (its other
      functions come along), or a function ``(*inputs: TensorSpec, **statics)
      -> str`` giving the text for each input signature.
    schema: the op's torch schema, "(Tensor x, Tensor y, float alpha) -> Tensor";
      int/float/bool/str arguments are static (part of the compiled program).
      Default for fixed text: one Tensor per parameter of @main.
    shapes: ``(*args) -> tensor(s) or TensorSpec(s)``, the outputs' shapes and
      dtypes (called with meta/fake tensors). Default for fixed text: @main's
      result types.
    backward, setup_context: as for ``torch.library.register_autograd``.

    Fixed text is checked here: it must parse, have a static @main and compile
    on the running plugin, and ``shapes`` must agree with what it returns.
    """
    if isinstance(stablehlo, str):
        return _fixed(name, stablehlo, schema, shapes, backward, setup_context)
    if not callable(stablehlo):
        raise KernelError(f"kernel {name}: stablehlo must be text or a function returning text")
    if schema is None or shapes is None:
        raise KernelError(
            f"kernel {name}: a StableHLO generator needs a schema and a shapes function"
        )
    generator = stablehlo

    def provider(inputs: list[TensorSpec], statics: dict[str, Any]) -> str:
        return generator(*inputs, **statics)

    op = define_op(name, schema, provider, shapes, backward=backward, setup_context=setup_context)
    return Kernel(name, op)


def _fixed(
    name: str,
    text: str,
    schema: str | None,
    shapes: ShapeFn | None,
    backward: Callable[..., Any] | None,
    setup_context: Callable[..., Any] | None,
) -> Kernel:
    params, results = _signature(name, text)
    if schema is None:
        schema = _default_schema(name, params, results)
    parsed = check_schema(name, schema)
    tensor_args = [a for a in parsed.arguments if str(a.type) == "Tensor"]
    if len(tensor_args) != len(params) and all(str(a.type) != "Tensor[]" for a in parsed.arguments):
        raise KernelError(
            f"kernel {name}: the schema has {len(tensor_args)} Tensor argument(s) but @main "
            f"takes {len(params)}"
        )
    if len(parsed.returns) != len(results):
        raise KernelError(
            f"kernel {name}: the schema returns {len(parsed.returns)} Tensor(s) but @main "
            f"returns {len(results)}"
        )
    _check_compiles(name, text)
    if shapes is not None and len(tensor_args) == len(parsed.arguments):
        metas = [torch.empty(p.shape, dtype=p.dtype, device="meta") for p in params]
        out = shapes(*metas)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        got = [TensorSpec(tuple(o.shape), o.dtype) for o in outs]
        if got != results:
            raise KernelError(
                f"kernel {name}: its shape function declares {[str(g) for g in got]} but its "
                f"StableHLO returns {[str(r) for r in results]}"
            )
    if shapes is None:

        def fixed_shapes(*args: Any, **kwargs: Any) -> Any:
            return results if len(results) > 1 else results[0]

        shapes = fixed_shapes

    def provider(inputs: list[TensorSpec], statics: dict[str, Any]) -> str:
        return text

    op = define_op(name, schema, provider, shapes, backward=backward, setup_context=setup_context)
    return Kernel(name, op)
