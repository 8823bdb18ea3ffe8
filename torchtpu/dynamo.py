"""``torch.compile(model, backend="tpu")``: whole-graph compilation.

Dynamo's graph goes through AOTAutograd (forward and backward graphs, with
PyTorch's core-ATen decompositions for the ops torchtpu has no lowering of).
Each graph is then *captured*: run once over the real tpu tensors in a mode
where every op is recorded through the same kernels and lowerings as eager,
and compiled as one program. Later calls with inputs of the same layout run
that program: one launch per graph call. A new input layout (shape, dtype,
strides) captures and compiles again; ``dynamic=True`` is accepted and
compiles one program per concrete shape signature the same way.

A graph that cannot be captured as one program (it reads a value on the host,
or uses an op that falls back to the CPU) runs op by op in the current mode,
with a warning; ``torchtpu.metrics`` counts it (``graph_eager_runs``). So does a
graph whose tracing raises a user error (an in-place op on a smaller target):
its op raises that error when the graph is called, as on the CPU.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from torchtpu import _C

__all__ = ["compile_backend"]

_names = itertools.count(1)
_lock = threading.Lock()


class _TensorOut:
    """Marks where a tensor output goes in a graph's outputs."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class TpuGraph:
    """One AOTAutograd graph: captured programs per input layout."""

    def __init__(self, gm: torch.fx.GraphModule, kind: str) -> None:
        # AOTAutograd then passes the arguments as one list. An instance
        # attribute: wrappers that copy __dict__ (functools.wraps) keep it.
        self._boxed_call = True
        self.gm = gm
        self.name = f"{kind}_{next(_names)}"
        self.num_nodes = sum(1 for n in gm.graph.nodes if n.op == "call_function")
        self._programs: dict[Any, tuple[Any, list[Any]]] = {}
        self._layouts: dict[Any, list[str]] = {}  # per key: its inputs, as text (explainer)
        self._eager_reason: str | None = None

    def __call__(self, *call_args: Any) -> Any:
        # Boxed (one list, which we may empty to free inputs early) or not:
        # AOTAutograd's wrappers do not always keep the _boxed_call marker.
        boxed = len(call_args) == 1 and isinstance(call_args[0], list)
        args: list[Any] = call_args[0] if boxed else list(call_args)
        tensors = [a if isinstance(a, torch.Tensor) else None for a in args]
        if self._eager_reason is None:
            if any(t is not None and t.device.type != "tpu" for t in tensors):
                self._run_eagerly("an input is not on tpu")
            else:
                others = tuple(
                    a for a in args if not isinstance(a, torch.Tensor)
                )  # ints of a specialized shape, ...
                key = (_C._graph_key(tensors), others)
                entry = self._programs.get(key)
                if entry is None:
                    if _C._explaining_recompiles():
                        self._explain(key, tensors, others)
                    entry = self._capture(args, tensors)
                    if entry is not None:
                        self._programs[key] = entry
                if entry is not None:
                    program, layout = entry
                    outs = program.run(tensors)
                    if boxed:
                        args.clear()
                    return [outs[v.index] if isinstance(v, _TensorOut) else v for v in layout]
        _C._count_graph_eager_run()
        return self.gm(*args)

    def _explain(
        self, key: Any, tensors: list[torch.Tensor | None], others: tuple[Any, ...]
    ) -> None:
        """Says what differs from the nearest input layout already compiled."""
        storages: list[int] = []
        layout = []
        for t in tensors:
            if t is None:
                layout.append("None")
                continue
            ptr = t.untyped_storage().data_ptr() if t.numel() else id(t)
            shared = f" (shares input {storages.index(ptr)}'s storage)" if ptr in storages else ""
            storages.append(ptr)
            layout.append(
                f"{str(t.dtype).removeprefix('torch.')}{list(t.shape)} strides {list(t.stride())}"
                f" offset {t.storage_offset()}{shared}"
            )
        layout.append(f"non-tensor arguments {others!r}")
        if self._layouts:

            def differences(old: list[str]) -> list[int]:
                return [k for k, (a, b) in enumerate(zip(old, layout, strict=False)) if a != b]

            nearest = min(self._layouts.values(), key=lambda old: len(differences(old)))
            diffs = differences(nearest)
            k = diffs[0] if diffs else len(layout) - 1
            before, now = nearest[k], layout[k]
            if k == len(layout) - 1:
                cause = "static argument"
            elif before.split("[")[0] != now.split("[")[0]:
                cause = "dtype"
            elif before.split(" ")[0] != now.split(" ")[0]:
                cause = "shapes"
            else:
                cause = "input layout"
            more = f" (and {len(diffs) - 1} more inputs)" if len(diffs) > 1 else ""
            _C._note_recompile("graph", self.name, cause, f"input {k}: {before} -> {now}{more}")
        self._layouts[key] = layout

    def _run_eagerly(self, reason: str) -> None:
        self._eager_reason = reason
        warnings.warn(
            f"torchtpu: compiled graph '{self.name}' runs op by op ({reason})",
            stacklevel=3,
        )

    def _capture(self, args: list[Any], tensors: list[torch.Tensor | None]) -> Any:
        device = next((t.device for t in tensors if t is not None), torch.device("tpu"))
        with _lock:  # one capture at a time (forward and backward threads)
            # Recording draws random states; the runs draw their own, so the
            # first call consumes the generator like every later one.
            rng_state = torch.tpu.get_rng_state(device)
            _C._capture_begin(tensors)
            try:
                with torch.no_grad():
                    outs = self.gm(*args)
            except Exception as e:  # noqa: BLE001 - any failure means "not capturable"
                _C._capture_abort()
                torch.tpu.set_rng_state(rng_state, device)
                self._run_eagerly(f"it cannot be captured as one program: {e}")
                return None
            if not isinstance(outs, (list, tuple)):
                outs = (outs,)
            out_tensors = [o if isinstance(o, torch.Tensor) else None for o in outs]
            layout = [
                _TensorOut(k) if isinstance(o, torch.Tensor) else o for k, o in enumerate(outs)
            ]
            del outs
            try:
                program = _C._capture_end(out_tensors, self.name)
            finally:
                torch.tpu.set_rng_state(rng_state, device)
        return program, layout


def _compiler(kind: str) -> Callable[[torch.fx.GraphModule, Sequence[Any]], TpuGraph]:
    def compile_graph(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> TpuGraph:
        return TpuGraph(gm, kind)

    return compile_graph


def _decompositions() -> dict[Any, Callable[..., Any]]:
    """PyTorch's core-ATen decompositions, except for ops torchtpu lowers
    itself (one lowering per op, the same one eager uses)."""
    from torch._decomp import core_aten_decompositions

    lowered = set(_C._lowered_ops())
    return {op: fn for op, fn in core_aten_decompositions().items() if op.name() not in lowered}


_backend: Callable[..., Any] | None = None


def compile_backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **kwargs: Any) -> Any:
    """The ``"tpu"`` backend of ``torch.compile``.

    ``torch.compile(model, backend="tpu")`` finds it by name (an entry point
    of the torchtpu package); passing ``torchtpu.compile_backend`` is the same.
    """
    global _backend
    if kwargs.get("options"):
        raise ValueError(f"torchtpu's compile backend takes no options (got {kwargs['options']})")
    if _backend is None:
        from torch._dynamo.backends.common import aot_autograd

        _backend = aot_autograd(
            fw_compiler=_compiler("forward"),
            bw_compiler=_compiler("backward"),
            inference_compiler=_compiler("inference"),
            decompositions=_decompositions(),
            keep_inference_input_mutations=True,
        )
    try:
        return _backend(gm, example_inputs)
    except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError) as e:
        # AOTAutograd's tracing ran PyTorch's own checks over the graph and one
        # refused the user's program (x[:1].fmod_(y) of a larger y). Eager runs
        # the graph's ops one by one, and the op raises its error, of its own
        # type, when the graph is called, as torch.compile does on the CPU.
        if type(e).__module__ != "builtins":
            raise
        warnings.warn(
            f"torchtpu: a compiled graph runs op by op (tracing it raised {type(e).__name__}: "
            f"{str(e).splitlines()[0] if str(e) else ''})",
            stacklevel=2,
        )

        def run_eagerly(*args: Any) -> Any:
            _C._count_graph_eager_run()
            return gm.forward(*args)

        return run_eagerly
