"""Running a program on a device, in a mode, and recording what the comparison needs: each
step's exception, and for every kept name its dtype, shape, strides, storage offset,
storage, object identity and values (read back to the CPU after the run).

Steps are the program's input lines followed by its statements; both runs of a program
number them the same way.
"""

from __future__ import annotations

import re
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from tests.fuzz.program import Program

MODES = ("strict", "defer", "compile", "launch_blocking")
FILENAME = "<fuzz-program>"


@dataclass
class Error:
    type: str
    message: str


@dataclass
class Value:
    """A kept name after the run: a tensor's metadata and values, or a Python value."""

    kind: str  # "tensor" or the Python type's name
    obj: int = 0  # id() of the object, to compare identity within one run
    dtype: str = ""
    shape: tuple[int, ...] = ()
    stride: tuple[int, ...] = ()
    offset: int = 0
    storage: int = 0  # the storage's data pointer (0 when it has no bytes)
    data: torch.Tensor | None = None  # the values, on the CPU
    py: object = None
    read_error: Error | None = None


@dataclass
class Run:
    errors: dict[int, Error] = field(default_factory=dict)
    values: dict[str, Value] = field(default_factory=dict)
    sync_error: Error | None = None
    fallbacks: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def steps(prog: Program) -> list[str]:
    return [i.line for i in prog.inputs] + [s.code for s in prog.stmts]


def _error(e: BaseException) -> Error:
    return Error(type(e).__name__, str(e)[:500])


def _value(obj: object) -> Value:
    if not isinstance(obj, torch.Tensor):
        return Value(type(obj).__name__, id(obj), py=obj)
    v = Value(
        "tensor",
        id(obj),
        str(obj.dtype).removeprefix("torch."),
        tuple(obj.shape),
        tuple(obj.stride()),
        obj.storage_offset(),
    )
    try:
        storage = obj.untyped_storage()
        v.storage = storage.data_ptr() if storage.nbytes() else 0
        v.data = obj.detach().to("cpu", copy=True)
    except Exception as e:  # noqa: BLE001 - reading back is part of the contract
        v.read_error = _error(e)
    return v


def _collect(prog: Program, ns: dict[str, object], run: Run) -> None:
    for name in prog.names():
        if name in ns:
            run.values[name] = _value(ns[name])


def _namespace(dev: str) -> dict[str, object]:
    return {"torch": torch, "dev": dev, "g": torch.Generator()}


def _fallbacks() -> dict[str, int]:
    import torchtpu

    return dict(torchtpu.metrics.counters()["fallbacks"])


def run_eager(
    prog: Program, dev: str, mode: str = "strict", on_step: Callable[[int], None] | None = None
) -> Run:
    """Every step in order (a failing step leaves its names undefined), then read back.
    `on_step(i)` is called before step i (and with the step count before the sync)."""
    run = Run()
    start = time.perf_counter()
    ns = _namespace(dev)
    tpu = dev != "cpu"
    if tpu:
        import torchtpu

        torchtpu.metrics.reset()
        torchtpu.set_mode(mode)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for i, code in enumerate(steps(prog)):
                if on_step:
                    on_step(i)
                try:
                    exec(compile(code, FILENAME, "exec"), ns)  # noqa: S102
                except Exception as e:  # noqa: BLE001
                    run.errors[i] = _error(e)
        finally:
            if on_step:
                on_step(len(steps(prog)))
            if tpu:
                try:
                    torchtpu.sync()
                except Exception as e:  # noqa: BLE001
                    run.sync_error = _error(e)
                try:
                    torchtpu.set_mode("strict")
                except Exception as e:  # noqa: BLE001 - set_mode syncs: the same error again
                    run.sync_error = run.sync_error or _error(e)
        _collect(prog, ns, run)
    if tpu:
        run.fallbacks = _fallbacks()
    run.seconds = time.perf_counter() - start
    return run


def function_source(prog: Program) -> tuple[str, list[int]]:
    """The program as one function of its inputs (for torch.compile), up to and including
    its first statement that raises on the CPU; and the step of each source line."""
    first = prog.first_cpu_error()
    stmts = prog.stmts if first is None else prog.stmts[: first + 1]
    n_in = len(prog.inputs)
    args = ", ".join(i.name for i in prog.inputs)
    lines = [f"def fuzz_program({args}):"]
    line_step = [-1]
    for k, s in enumerate(stmts):
        lines.append("    " + s.code)
        line_step.append(n_in + k)
    kept = [i.name for i in prog.inputs] + [d for s in stmts for d in s.defines]
    lines.append("    return {" + ", ".join(f"{n!r}: {n}" for n in dict.fromkeys(kept)) + "}")
    line_step.append(-1)
    return "\n".join(lines) + "\n", line_step


def _error_step(e: BaseException, line_step: list[int]) -> int | None:
    """The step a compiled program's exception points at (its last frame in the program)."""
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == FILENAME]
    lines += [int(m) for m in re.findall(rf'File "{FILENAME}", line (\d+)', str(e))]
    for line in reversed(lines):
        if line is not None and 0 < line <= len(line_step) and line_step[line - 1] >= 0:
            return line_step[line - 1]
    return None


def run_compiled(prog: Program, dev: str, backend: str = "tpu") -> Run:
    """The inputs made eagerly, then the program as one torch.compile'd function."""
    import torch._dynamo

    run = Run()
    start = time.perf_counter()
    ns = _namespace(dev)
    tpu = dev != "cpu"
    if tpu:
        import torchtpu

        torchtpu.metrics.reset()
    src, line_step = function_source(prog)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, inp in enumerate(prog.inputs):
            try:
                exec(compile(inp.line, FILENAME + "-inputs", "exec"), ns)  # noqa: S102
            except Exception as e:  # noqa: BLE001
                run.errors[i] = _error(e)
        if not run.errors:
            exec(compile(src, FILENAME, "exec"), ns)  # noqa: S102
            fn = torch.compile(ns["fuzz_program"], backend=backend)
            try:
                out = fn(*[ns[i.name] for i in prog.inputs])
                if tpu:
                    torchtpu.sync()
                ns.update(out)
            except Exception as e:  # noqa: BLE001
                step = _error_step(e, line_step)
                if step is None:
                    first = prog.first_cpu_error()
                    step = len(prog.inputs) + (first if first is not None else len(prog.stmts))
                run.errors[step] = _error(e)
            finally:
                torch._dynamo.reset()
        _collect(prog, ns, run)
    if tpu:
        run.fallbacks = _fallbacks()
    run.seconds = time.perf_counter() - start
    return run


def run_mode(
    prog: Program, mode: str, on_step: Callable[[int], None] | None = None
) -> tuple[Run, Run]:
    """The CPU reference (eager) and the tpu run of `prog` in `mode`."""
    ref = run_eager(prog, "cpu")
    if mode == "compile":
        if on_step:
            on_step(len(prog.inputs) + len(prog.stmts))
        return ref, run_compiled(prog, "tpu")
    return ref, run_eager(prog, "tpu", mode, on_step)
