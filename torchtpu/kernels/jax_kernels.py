"""Kernels written in JAX (jax.numpy, lax, Pallas): exported to StableHLO with
jax.export for the running plugin, once per input signature and static values."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from torchtpu.kernels._jax_export import bind_statics, export_text, out_specs, require_jax
from torchtpu.kernels._op import KernelError, define_op, split_name
from torchtpu.kernels._types import TensorSpec
from torchtpu.kernels.stablehlo import Kernel

_STATIC_SCHEMA = {float: "float", int: "int", bool: "bool", str: "str"}


def _static_type(qualname: str, p: inspect.Parameter) -> str:
    ann = p.annotation
    if isinstance(ann, str):
        ann = {"float": float, "int": int, "bool": bool, "str": str}.get(ann, ann)
    if ann is inspect.Parameter.empty and p.default is not inspect.Parameter.empty:
        ann = type(p.default)
    if ann not in _STATIC_SCHEMA:
        raise KernelError(
            f"kernel {qualname}: static argument {p.name!r} needs a float, int, bool or str "
            f"annotation or default"
        )
    return _STATIC_SCHEMA[ann]


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def _schema(
    qualname: str, fn: Callable[..., Any], static_argnames: tuple[str, ...], num_outputs: int
) -> tuple[str, list[str], list[str], list[str]]:
    """(schema, tensor names, static names, static schema parts)."""
    sig = inspect.signature(fn)
    parts: list[str] = []
    static_parts: list[str] = []
    tensors: list[str] = []
    statics: list[str] = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise KernelError(f"kernel {qualname}: *args / **kwargs are not supported")
        if p.name in static_argnames:
            part = f"{_static_type(qualname, p)} {p.name}"
            if p.default is not inspect.Parameter.empty:
                part += "=" + _default_text(p.default)
            statics.append(p.name)
            static_parts.append(part)
        else:
            if p.default is not inspect.Parameter.empty:
                raise KernelError(
                    f"kernel {qualname}: argument {p.name!r} has a default; list it in "
                    f"static_argnames if it is not a tensor"
                )
            part = f"Tensor {p.name}"
            tensors.append(p.name)
        parts.append(part)
    missing = set(static_argnames) - set(statics)
    if missing:
        raise KernelError(
            f"kernel {qualname}: static_argnames {sorted(missing)} are not parameters"
        )
    if num_outputs < 1:
        raise KernelError(f"kernel {qualname}: num_outputs must be at least 1")
    rets = "Tensor" if num_outputs == 1 else "(" + ", ".join(["Tensor"] * num_outputs) + ")"
    return "(" + ", ".join(parts) + ") -> " + rets, tensors, statics, static_parts


def _shape_fn(
    qualname: str, fn: Callable[..., Any], tensors: list[str], statics: list[str], n_out: int
) -> Callable[..., Any]:
    sig = inspect.signature(fn)
    cache: dict[Any, list[TensorSpec]] = {}

    def shapes(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        specs = tuple(TensorSpec.of(bound.arguments[n]) for n in tensors)
        static_values = {n: bound.arguments[n] for n in statics}
        key = (specs, tuple(sorted(static_values.items())))
        if key not in cache:
            try:
                cache[key] = out_specs(bind_statics(fn, static_values), specs)
            except Exception as e:
                raise KernelError(
                    f"kernel {qualname} for inputs {[str(s) for s in specs]}: JAX cannot trace "
                    f"it: {e}"
                ) from e
        outs = cache[key]
        if len(outs) != n_out:
            raise KernelError(
                f"kernel {qualname}: the JAX function returns {len(outs)} array(s) but "
                f"num_outputs is {n_out}"
            )
        return outs if n_out > 1 else outs[0]

    return shapes


def _provider(qualname: str, fn: Callable[..., Any]) -> Callable[..., str]:
    def provider(inputs: list[TensorSpec], statics: dict[str, Any]) -> str:
        return export_text(bind_statics(fn, statics), inputs)

    return provider


def _vjp_function(fn: Callable[..., Any], n_in: int, n_out: int) -> Callable[..., Any]:
    """(primals..., cotangents..., **statics) -> one gradient per primal (zeros
    for integer primals), from JAX's own VJP."""
    jax = require_jax()
    import jax.numpy as jnp

    def vjp(*args: Any, **statics: Any) -> Any:
        primals, cts = args[:n_in], args[n_in:]
        f = bind_statics(fn, statics)
        inexact = [i for i, p in enumerate(primals) if jnp.issubdtype(p.dtype, jnp.inexact)]

        def g(*diff: Any) -> Any:
            full = list(primals)
            for i, v in zip(inexact, diff, strict=True):
                full[i] = v
            return f(*full)

        _, pull = jax.vjp(g, *[primals[i] for i in inexact])
        grads = iter(pull(cts[0] if n_out == 1 else tuple(cts)))
        out = [next(grads) if i in inexact else jnp.zeros_like(p) for i, p in enumerate(primals)]
        return tuple(out) if n_in > 1 else out[0]

    return vjp


def jax_kernel(
    name: str,
    fn: Callable[..., Any] | None = None,
    *,
    static_argnames: tuple[str, ...] | list[str] = (),
    num_outputs: int = 1,
    differentiable: bool = False,
) -> Any:
    """Makes a JAX function a torch op on "tpu" (usable as a decorator).

    Its positional parameters are tensors; the parameters named in
    static_argnames are Python numbers, bools or strings baked into the
    program (give them an annotation or a default). The function is exported
    with jax.export for the running plugin once per input shapes, dtypes and
    static values, and called from the program torchtpu builds, in every mode.
    Pallas kernels work the same way (pass ``interpret=pallas_interpret()`` to
    ``pl.pallas_call`` so that they run on plugins without a Pallas backend).

    differentiable=True gives the op a backward from JAX's VJP of the function
    (jax.custom_vjp rules are honoured), itself a kernel op "<name>_vjp".
    """
    if fn is None:
        return lambda f: jax_kernel(
            name,
            f,
            static_argnames=static_argnames,
            num_outputs=num_outputs,
            differentiable=differentiable,
        )
    require_jax()
    ns, base = split_name(name)
    statics_t = tuple(static_argnames)
    schema, tensors, statics, static_parts = _schema(name, fn, statics_t, num_outputs)
    backward = setup = None
    if differentiable:
        vjp_name = f"{ns}::{base}_vjp"
        sig = inspect.signature(fn)
        vjp_parts = [f"Tensor {t}" for t in tensors]
        vjp_parts += [f"Tensor grad{k}" for k in range(num_outputs)]
        vjp_parts += static_parts
        n_in = len(tensors)
        vjp_rets = "Tensor" if n_in == 1 else "(" + ", ".join(["Tensor"] * n_in) + ")"
        vjp_schema = "(" + ", ".join(vjp_parts) + ") -> " + vjp_rets

        def vjp_shapes(*args: Any, **kwargs: Any) -> Any:
            outs = [TensorSpec.of(a) for a in args[:n_in]]
            return outs if n_in > 1 else outs[0]

        vjp_op = define_op(
            vjp_name,
            vjp_schema,
            _provider(vjp_name, _vjp_function(fn, n_in, num_outputs)),
            vjp_shapes,
        )

        def setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
            bound = sig.bind(*inputs)
            bound.apply_defaults()
            ctx.save_for_backward(*[bound.arguments[t] for t in tensors])
            ctx.statics = {s: bound.arguments[s] for s in statics}
            ctx.order = list(sig.parameters)

        def backward(ctx: Any, *grads: Any) -> Any:
            saved = ctx.saved_tensors
            out = vjp_op(*saved, *grads, **ctx.statics)
            out = out if isinstance(out, tuple) else (out,)
            by_name = dict(zip(tensors, out, strict=True))
            result = []
            for pname in ctx.order:
                g = by_name.get(pname)
                keep = g is not None and (g.is_floating_point() or g.is_complex())
                result.append(g if keep else None)
            return tuple(result) if len(result) > 1 else result[0]

    op = define_op(
        name,
        schema,
        _provider(name, fn),
        _shape_fn(name, fn, tensors, statics, num_outputs),
        backward=backward,
        setup_context=setup,
    )
    kernel = Kernel(name, op)
    kernel.jax_fn = fn  # type: ignore[attr-defined]
    return kernel
