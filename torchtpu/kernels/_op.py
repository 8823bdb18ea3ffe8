"""Defining a torch op whose "tpu" kernel is a call to StableHLO text.

The op is a real ``torch.library`` op: its tpu (PrivateUse1) kernel is
torchtpu's generic bridge, which describes the call, asks the op's fake
(Meta) kernel for the result types and lowers it, like an ATen op, through a
lowering registered at run time. That lowering calls the kernel's StableHLO,
added to the program being built as a private function, so the kernel runs
in strict mode, inside fused DeferAndFuse programs and in captured graphs.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import torch

from torchtpu import _C
from torchtpu.kernels._types import TensorSpec

# Static (compile-time) argument types a kernel may take besides tensors.
_STATIC_TYPES = {"int", "float", "bool", "str", "int[]", "float[]", "ScalarType", "SymInt"}
_TENSOR_TYPES = {"Tensor", "Tensor[]"}

TextProvider = Callable[[list[TensorSpec], dict[str, Any]], str]
ShapeFn = Callable[..., Any]

_lock = threading.Lock()
_libraries: dict[str, torch.library.Library] = {}
_defined: set[str] = set()


class KernelError(ValueError):
    """A kernel that cannot be defined or called as given; names the kernel."""


def split_name(qualname: str) -> tuple[str, str]:
    """("mylib", "rmsnorm") from "mylib::rmsnorm", or KernelError."""
    m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)", qualname)
    if m is None:
        raise KernelError(
            f"kernel name {qualname!r} must be 'namespace::name' (identifiers, no overload)"
        )
    if m.group(1) in ("aten", "prim", "prims", "torchtpu"):
        raise KernelError(f"kernel {qualname}: namespace {m.group(1)!r} is reserved")
    return m.group(1), m.group(2)


def check_schema(qualname: str, schema: str) -> torch._C.FunctionSchema:
    """Parses "(Tensor x, float eps=1e-6) -> Tensor" and checks its types."""
    try:
        parsed = torch._C.parse_schema(qualname + schema)
    except RuntimeError as e:
        raise KernelError(f"kernel {qualname}: bad schema {schema!r}: {e}") from None
    for a in parsed.arguments:
        t = str(a.type)
        if a.alias_info is not None and a.alias_info.is_write:
            raise KernelError(
                f"kernel {qualname}: argument {a.name!r} is mutable; kernels are pure functions"
            )
        if t not in _TENSOR_TYPES | _STATIC_TYPES:
            raise KernelError(
                f"kernel {qualname}: argument {a.name!r} has type {t}; kernels take Tensor, "
                f"Tensor[] and static {sorted(_STATIC_TYPES)} arguments"
            )
    if not parsed.returns:
        raise KernelError(f"kernel {qualname}: the schema must return at least one Tensor")
    for r in parsed.returns:
        if str(r.type) != "Tensor" or r.alias_info is not None:
            raise KernelError(
                f"kernel {qualname}: returns must be new Tensors, got {schema.split('->')[-1]}"
            )
    return parsed


def as_fake_outputs(qualname: str, out: Any, device: torch.device, n: int) -> Any:
    """A shape function's answer (tensors or TensorSpecs) as new tensors."""
    items = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(items) != n:
        raise KernelError(
            f"kernel {qualname}: the shape function returned {len(items)} output(s), "
            f"the schema declares {n}"
        )
    tensors = []
    for item in items:
        if isinstance(item, TensorSpec):
            tensors.append(torch.empty(item.shape, dtype=item.dtype, device=device))
        elif isinstance(item, torch.Tensor):
            tensors.append(torch.empty(item.shape, dtype=item.dtype, device=device))
        else:
            raise KernelError(
                f"kernel {qualname}: the shape function must return tensors or TensorSpecs, "
                f"got {type(item).__name__}"
            )
    return tensors[0] if n == 1 else tuple(tensors)


def first_device(args: Sequence[Any]) -> torch.device:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, torch.Tensor):
                    return b.device
    return torch.device("meta")


def define_op(
    qualname: str,
    schema: str,
    provider: TextProvider,
    shape_fn: ShapeFn,
    *,
    backward: Callable[..., Any] | None = None,
    setup_context: Callable[..., Any] | None = None,
) -> Any:
    """Defines `qualname` with `schema`; returns its torch.ops packet.

    provider(inputs, statics) gives the StableHLO text for one call signature;
    shape_fn(*args) gives the outputs' shapes and dtypes (tensors or TensorSpecs).
    """
    ns, name = split_name(qualname)
    parsed = check_schema(qualname, schema)
    n_out = len(parsed.returns)
    with _lock:
        if qualname in _defined:
            raise KernelError(f"kernel {qualname} is already defined in this process")
        lib = _libraries.get(ns)
        if lib is None:
            lib = torch.library.Library(ns, "FRAGMENT")
            _libraries[ns] = lib
        try:
            lib.define(name + schema)
        except RuntimeError as e:
            raise KernelError(f"kernel {qualname}: torch.library refused it: {e}") from None
        _defined.add(qualname)

    def fake(*args: Any, **kwargs: Any) -> Any:
        out = shape_fn(*args, **kwargs)
        return as_fake_outputs(qualname, out, first_device(args), n_out)

    torch.library.register_fake(qualname, fake, lib=lib)

    def cpu(*args: Any, **kwargs: Any) -> Any:
        # Reached with CPU tensors: called on the CPU, or the tpu bridge's CPU
        # fallback after the shape function failed (whose error is the answer).
        metas = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
        fake(*metas, **kwargs)
        raise KernelError(
            f"kernel {qualname} runs on 'tpu' tensors only (got CPU tensors); "
            f"move its inputs with .to('tpu')"
        )

    lib.impl(name, cpu, "CPU")

    def native_provider(inputs: list[tuple[str, tuple[int, ...]]], statics: dict[str, Any]) -> str:
        text = provider([TensorSpec.from_native(i) for i in inputs], statics)
        if not isinstance(text, str):
            raise KernelError(f"kernel {qualname}: the StableHLO provider returned {type(text)}")
        return text

    _C._register_custom_kernel(qualname, native_provider)
    if backward is not None:
        torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)
    return getattr(getattr(torch.ops, ns), name)
