"""Comparing a tpu run with the CPU reference, contract by contract: raising (and the
exception's type), dtype, shape, strides and storage offset, aliasing (storage sharing and
object identity) and values. Each difference is attributed to the step that caused it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch

from tests.fuzz.execute import Error, Run, Value, run_compiled, run_mode
from tests.fuzz.program import Program, Stmt

# The order differences of one step are reported in (the first is the program's class).
CLASSES = (
    "raise-cpu-only",
    "raise-tpu-only",
    "exc-type",
    "dtype",
    "shape",
    "stride",
    "alias",
    "value",
)
TOLERANCE = {"float32": 1e-4, "bfloat16": 2e-2}
DYNAMO_WRAPPERS = ("TorchRuntimeError", "InternalTorchDynamoError", "BackendCompilerFailed")


@dataclass
class Diff:
    cls: str
    step: int
    op: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Steps:
    """Which step defines each name and which steps write it, by name and through storage
    it shares on the CPU (so a write through a view is charged to the base as well)."""

    def __init__(self, prog: Program, ref: Run) -> None:
        self.labels = ["input"] * len(prog.inputs) + [s.op for s in prog.stmts]
        self.define: dict[str, int] = {i.name: k for k, i in enumerate(prog.inputs)}
        self.writes: list[list[str]] = [[] for _ in prog.inputs]
        self.restrides = [False] * len(prog.inputs)
        for k, s in enumerate(prog.stmts, start=len(prog.inputs)):
            for d in s.defines:
                self.define.setdefault(d, k)
            self.writes.append(list(s.writes))
            self.restrides.append(s.restrides())
        self.ref = ref

    def label(self, step: int) -> str:
        return self.labels[step] if step < len(self.labels) else "sync"

    def _same(self, a: str, b: str) -> bool:
        """Whether names a and b are one object on the CPU."""
        va, vb = self.ref.values.get(a), self.ref.values.get(b)
        return a == b or (va is not None and vb is not None and va.obj == vb.obj)

    def meta_writer(self, name: str) -> int:
        """The last step that made `name` or set its shape and strides (out=, in-place
        metadata ops), under any of its names."""
        last = self.define.get(name, 0)
        for k, ws in enumerate(self.writes):
            if self.restrides[k] and any(self._same(name, w) for w in ws):
                last = max(last, k)
        return last

    def writes_to(self, name: str, k: int) -> bool:
        """Whether step k writes `name`, under any of its names or through storage it
        shares on the CPU."""
        mine = self.ref.values.get(name)
        for w in self.writes[k]:
            if self._same(name, w):
                return True
            other = self.ref.values.get(w)
            if mine is not None and mine.storage and other is not None:
                if other.storage == mine.storage:
                    return True
        return False

    def value_writer(self, name: str) -> int:
        """The last step that made `name` or wrote memory it shares."""
        last = self.meta_writer(name)
        for k in range(len(self.writes)):
            if self.writes_to(name, k):
                last = max(last, k)
        return last


def exc_name(e: Error, compiled: bool) -> str:
    """The exception's type; under torch.compile, the type Dynamo wrapped."""
    if compiled and e.type in DYNAMO_WRAPPERS:
        m = re.search(r"got (\w+)\(", e.message)
        if m:
            return m.group(1)
        return "RuntimeError" if e.type == "TorchRuntimeError" else e.type
    return e.type


def _message(e: Error) -> str:
    """An error's own message: its first line, inside Dynamo's wrapping if any."""
    text = e.message or ""
    m = re.search(r"got \w+\((['\"])(.*?)\1\)", text, re.S)
    return (m.group(2) if m else text).strip().splitlines()[0] if text.strip() else ""


def _same_error(a: Error, b: Error) -> bool:
    return exc_name(a, True) == exc_name(b, True) and _message(a) == _message(b)


def _fmt_err(e: Error) -> str:
    return f"{e.type}: {e.message.splitlines()[0][:160] if e.message else ''}"


def _errors(prog: Program, ref: Run, got: Run, s: Steps, compiled: bool) -> list[Diff]:
    out = []
    n = len(prog.inputs) + len(prog.stmts)
    if compiled:
        first = min(ref.errors, default=None)
        if first is not None:
            got_step, got_err = next(iter(got.errors.items()), (None, None))
            if got_err is not None and _same_error(ref.errors[first], got_err):
                return []  # where a compiled frame says it raised may differ; the error not
            if got_step is not None and got_step < first:
                return [Diff("raise-tpu-only", got_step, s.label(got_step), _fmt_err(got_err))]
            if got_err is None:
                return [Diff("raise-cpu-only", first, s.label(first), _fmt_err(ref.errors[first]))]
            a, b = exc_name(ref.errors[first], True), exc_name(got_err, True)
            if a != b:
                detail = f"cpu {_fmt_err(ref.errors[first])} / tpu {_fmt_err(got_err)}"
                return [Diff("exc-type", first, s.label(first), detail)]
            return []
    for i in range(n):
        a, b = ref.errors.get(i), got.errors.get(i)
        if a and not b:
            out.append(Diff("raise-cpu-only", i, s.label(i), _fmt_err(a)))
        elif b and not a:
            out.append(Diff("raise-tpu-only", i, s.label(i), _fmt_err(b)))
        elif a and b and exc_name(a, compiled) != exc_name(b, compiled):
            out.append(Diff("exc-type", i, s.label(i), f"cpu {_fmt_err(a)} / tpu {_fmt_err(b)}"))
    if got.sync_error:
        out.append(Diff("raise-tpu-only", n, "sync", _fmt_err(got.sync_error)))
    return out


def value_mismatch(ref: torch.Tensor, got: torch.Tensor, loose: bool = False) -> str | None:
    """Why `got` is not `ref` (NaN equals NaN; floats within a tolerance scaled by the
    reference's magnitude, bfloat16's when `loose`; everything else exactly), or None."""
    if ref.numel() == 0:
        return None
    dtype = "bfloat16" if loose else str(ref.dtype).removeprefix("torch.")
    if not ref.is_floating_point():
        bad = ref != got
        if not bad.any():
            return None
    else:
        r, g = ref.double(), got.double()
        tol = TOLERANCE.get(dtype, 1e-4)
        finite = torch.isfinite(r)
        scale = max(1.0, float(r[finite].abs().max())) if finite.any() else 1.0
        close = (r - g).abs() <= tol * scale + tol * r.abs()
        same = (r == g) | (torch.isnan(r) & torch.isnan(g))
        bad = ~(close & finite & torch.isfinite(g) | same)
        if not bad.any():
            return None
    where = tuple(int(i) for i in bad.nonzero()[0])
    count = int(bad.sum())
    return (
        f"{count}/{ref.numel()} elements differ; at {list(where)}: "
        f"cpu {ref[where].item()!r} tpu {got[where].item()!r}"
    )


def _py_equal(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-4)
    return type(a) is type(b) and a == b


def bfloat16_fed(prog: Program, ref: Run) -> set[str]:
    """The names whose values come from bfloat16 ones (a float32 out= of a bfloat16
    result, say): compared with bfloat16's tolerance."""
    loose = {n for n, v in ref.values.items() if v.dtype == "bfloat16"}
    for st in prog.stmts:
        if "bfloat16" in st.code or any(u in loose for u in st.uses()):
            loose.update(st.defines)
            loose.update(st.writes)
    return loose


def _tensor(name: str, r: Value, t: Value, s: Steps, loose: bool = False) -> Diff | None:
    meta = s.meta_writer(name)
    if r.dtype != t.dtype:
        return Diff("dtype", meta, s.label(meta), f"{name}: cpu {r.dtype} tpu {t.dtype}")
    if r.shape != t.shape:
        return Diff("shape", meta, s.label(meta), f"{name}: cpu {r.shape} tpu {t.shape}")
    # Strides are compared as PyTorch compares them (its meta and fake-tensor
    # checks, torch._prims_common.check_significant_strides): a dim of size 1 has
    # no significant stride.
    significant = all(a == b or n == 1 for a, b, n in zip(r.stride, t.stride, r.shape, strict=True))
    if math.prod(r.shape) and (not significant or r.offset != t.offset):
        detail = f"{name}: cpu stride {r.stride} offset {r.offset}, tpu {t.stride} {t.offset}"
        return Diff("stride", meta, s.label(meta), f"{detail} (shape {r.shape})")
    if t.read_error:  # after every step: a consequence, not a cause, when steps differ too
        end = len(s.labels)
        return Diff("raise-tpu-only", end, "read", f"reading {name}: {_fmt_err(t.read_error)}")
    w = s.value_writer(name)
    if r.data is None or t.data is None:
        return None
    why = value_mismatch(r.data, t.data, loose)
    return Diff("value", w, s.label(w), f"{name} {r.dtype}{list(r.shape)}: {why}") if why else None


def _aliasing(names: list[str], ref: Run, got: Run, s: Steps, compiled: bool) -> list[Diff]:
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ra, rb, ta, tb = ref.values[a], ref.values[b], got.values[a], got.values[b]
            later = max(s.meta_writer(a), s.meta_writer(b))
            if not compiled and (ra.obj == rb.obj) != (ta.obj == tb.obj):
                want = "the same object" if ra.obj == rb.obj else "different objects"
                out.append(Diff("alias", later, s.label(later), f"{a}, {b}: cpu {want}"))
            elif "tensor" == ra.kind == rb.kind == ta.kind == tb.kind:
                if not (ra.storage and rb.storage and ta.storage and tb.storage):
                    continue
                if (ra.storage == rb.storage) != (ta.storage == tb.storage):
                    want = "share storage" if ra.storage == rb.storage else "do not share storage"
                    out.append(
                        Diff("alias", later, s.label(later), f"{a}, {b}: on cpu they {want}")
                    )
    return out


def _reads_what_it_writes(st: Stmt, ref: Run) -> bool:
    """Whether an out= call reads memory its out= tensor was resized over (an empty
    view of an input, grown): what it writes then depends on the order the CPU's
    kernel reads and writes in, which PyTorch leaves undefined. An out= tensor that
    is its input exactly (the same view) is well defined."""
    if "out=" not in st.code:
        return False
    for w in st.writes:
        vw = ref.values.get(w)
        for u in st.uses():
            vu = ref.values.get(u)
            if u == w or vw is None or vu is None or vw.kind != "tensor" or vu.kind != "tensor":
                continue
            same_view = (vw.shape, vw.stride, vw.offset) == (vu.shape, vu.stride, vu.offset)
            if vw.storage and vw.storage == vu.storage and not same_view:
                return True
    return False


def unspecified(prog: Program, ref: Run, got: Run, s: Steps) -> tuple[set[str], set[int]]:
    """What PyTorch leaves unspecified: what a call that raises on both runs wrote (the
    CPU resizes some out= tensors before its kernel checks dtypes or overlap, and leaves
    uninitialized memory there), and what an out= call wrote over memory it reads. So
    are the names those feed, and the steps that read them. Returns (such names, such
    steps); neither is compared."""
    both = {k for k in ref.errors if k in got.errors}
    everything = prog.names()
    names: set[str] = set()
    steps: set[int] = set()
    for k, st in enumerate(prog.stmts, start=len(prog.inputs)):
        if any(u in names for u in st.uses()):
            steps.add(k)
            names.update(st.defines)
            names.update(n for n in everything if s.writes_to(n, k))
        if k in both or (k not in ref.errors and _reads_what_it_writes(st, ref)):
            names.update(n for n in everything if s.writes_to(n, k))
            if k not in both:
                names.update(st.defines)
    return names, steps


def compare(prog: Program, ref: Run, got: Run, mode: str) -> list[Diff]:
    """Every difference, the program's first (its class and op) first."""
    compiled = mode == "compile"
    s = Steps(prog, ref)
    diffs = _errors(prog, ref, got, s, compiled)
    if compiled and (ref.errors or got.errors):
        return sorted(diffs, key=lambda d: (d.step, CLASSES.index(d.cls)))
    names, steps = unspecified(prog, ref, got, s)
    diffs = [d for d in diffs if d.step not in steps]
    common = [n for n in prog.names() if n in ref.values and n in got.values and n not in names]
    loose = bfloat16_fed(prog, ref)
    for name in common:
        r, t = ref.values[name], got.values[name]
        if r.kind != t.kind:
            w = s.meta_writer(name)
            diffs.append(Diff("value", w, s.label(w), f"{name}: cpu {r.kind} tpu {t.kind}"))
        elif r.kind == "tensor":
            d = _tensor(name, r, t, s, name in loose)
            if d:
                diffs.append(d)
        elif not _py_equal(r.py, t.py):
            w = s.meta_writer(name)
            diffs.append(Diff("value", w, s.label(w), f"{name}: cpu {r.py!r} tpu {t.py!r}"))
    diffs += _aliasing(common, ref, got, s, compiled)
    return sorted(diffs, key=lambda d: (d.step, CLASSES.index(d.cls)))


def check(
    prog: Program, mode: str, on_step: Callable[[int], None] | None = None
) -> tuple[Run, Run, list[Diff], list[Diff]]:
    """Run `prog` on the CPU and on tpu in `mode` and compare: (cpu run, tpu run,
    differences, inherent). In compile mode, differences that torch.compile shows on the CPU
    too (backend "aot_eager", same class and step) are inherent to it: set aside; so is, in
    every mode but launch_blocking, an index out of range on purpose that does not raise
    (device programs cannot raise) and what follows it."""
    ref, got = run_mode(prog, mode, on_step)
    diffs = compare(prog, ref, got, mode)
    inherent: list[Diff] = []
    if mode != "launch_blocking":
        # Device programs cannot raise: an index out of range on purpose raises only in
        # launch_blocking mode (its device-side checks). What follows it is set aside.
        oob = [d.step for d in diffs if d.cls == "raise-cpu-only" and d.op.endswith("[oob]")]
        if oob:
            inherent = [d for d in diffs if d.step >= min(oob)]
            diffs = [d for d in diffs if d.step < min(oob)]
    if mode == "compile" and diffs:
        own = {
            (d.cls, d.step)
            for d in compare(prog, ref, run_compiled(prog, "cpu", "aot_eager"), mode)
        }
        inherent += [d for d in diffs if (d.cls, d.step) in own]
        diffs = [d for d in diffs if (d.cls, d.step) not in own]
    return ref, got, diffs, inherent
