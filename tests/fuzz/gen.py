"""The program generator: random straight-line programs of 1-8 ops, deterministic from a
seed, dry-run on the CPU while they are built.

The dry run is what keeps most programs valid: each candidate op is run on the CPU over the
values the program has so far; one that raises is kept only in the fraction of programs that
are allowed an error (so error contracts are exercised), else another candidate is drawn.
Candidates whose CPU result depends on undefined behaviour (NaN cast to an integer, integer
division by zero, an index out of range that was not meant) are never kept.

    python tests/fuzz/gen.py SEED [INDEX]     # print one program
"""

from __future__ import annotations

import math
import random
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.program import NAME_RE, Input, Program, Stmt  # noqa: E402

DTYPES = ("float32", "bfloat16", "int64", "bool")
DTYPE_WEIGHTS = (0.5, 0.15, 0.2, 0.15)
FLOATS = ("float32", "bfloat16")
MAX_NUMEL = 60
MAX_TRIES = 25
ERROR_PROGRAM_FRACTION = 0.45
MAX_ERRORS = 2  # statements that raise, in a program allowed errors

# CPU errors that depend on the data, not on shapes or dtypes: an accelerator need not
# check them synchronously (CUDA does not), so a candidate raising one is never kept
# unless its builder meant it (its op label then ends in "[oob]").
DATA_DEPENDENT = re.compile(
    r"ZeroDivisionError|out of bounds|index out of range|tried to access index"
)


def numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


def fmt_num(x: float | int | bool) -> str:
    if isinstance(x, bool) or isinstance(x, int):
        return repr(x)
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else '-float("inf")'
    return repr(x)


def fmt_shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def dtype_of(t: object) -> str:
    return str(t.dtype).removeprefix("torch.") if isinstance(t, torch.Tensor) else ""


def exec_line(code: str, ns: dict[str, object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, ns)  # noqa: S102 - the program is ours


def new_namespace(dev: str) -> dict[str, object]:
    return {"torch": torch, "dev": dev, "g": torch.Generator()}


class Reject(Exception):
    """A builder found no sensible candidate here."""


class Gen:
    """Builds one program; the builders (tests/fuzz/ops_*.py) call its helpers."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.prog = Program(seed)
        self.ns = new_namespace("cpu")
        self.pending: list[Stmt] = []
        self.counter = 0
        self.allow_error = self.rng.random() < ERROR_PROGRAM_FRACTION
        self.errors = 0
        self.views: set[str] = set()  # names made by view ops (targets for in-place writes)

    # ---- names and values ---------------------------------------------------------------

    def name(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def t(self, name: str) -> torch.Tensor:
        v = self.ns[name]
        assert isinstance(v, torch.Tensor)
        return v

    def tensors(self) -> list[str]:
        return [n for n, v in self.ns.items() if isinstance(v, torch.Tensor) and n[0] in "xv"]

    # ---- random choices -----------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def choice(self, seq: Sequence[object]) -> object:
        return self.rng.choice(list(seq))

    def probe(self, p_valid: float, p_invalid: float) -> bool:
        """A chance to take an invalid variant (an error contract): higher in the programs
        that are allowed an error."""
        return self.chance(p_invalid if self.allow_error else p_valid)

    def larger_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """A shape that `shape` broadcasts up to (other operand larger than self)."""
        dims = list(shape)
        bigger = [d if d != 1 else self.rng.randint(2, 3) for d in dims]
        if self.chance(0.5) or bigger == dims:
            bigger = [self.rng.randint(2, 3)] + bigger
        return tuple(bigger) if numel(bigger) <= MAX_NUMEL else tuple(dims)

    def expanded(self) -> str:
        """A view with internal overlap (writing into it must raise)."""
        names = [
            n
            for n in sorted(self.views)
            if n in self.ns and torch._debug_has_internal_overlap(self.t(n)) == 1
        ]
        if names and self.chance(0.5):
            return self.rng.choice(names)
        shape = self.shape(self.rng.randint(1, 3))
        small = [1] + list(shape[1:])
        big = [self.rng.randint(2, 3)] + list(shape[1:])
        base = self.input(small, self.dtype())
        v = self.name()
        self.prep(f"{v} = {base}.expand{fmt_shape(big)}", "expand", [v])
        return v

    def dtype(self, weights: Sequence[float] = DTYPE_WEIGHTS) -> str:
        return self.rng.choices(DTYPES, weights=weights)[0]

    def shape(self, rank: int | None = None) -> tuple[int, ...]:
        if rank is None:
            rank = self.rng.choices([0, 1, 2, 3, 4], weights=[1, 3, 4, 3, 1])[0]
        dims = [self.rng.choices([1, 2, 3, 4, 5], weights=[2, 3, 3, 2, 1])[0] for _ in range(rank)]
        if rank and self.chance(0.05):
            dims[self.rng.randrange(rank)] = 0
        while numel(dims) > MAX_NUMEL:
            i = max(range(rank), key=lambda j: dims[j])
            dims[i] -= 1
        return tuple(dims)

    def bcast_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """A shape that broadcasts with `shape` (or, rarely, a larger or incompatible one)."""
        r = self.rng.random()
        dims = list(shape)
        if r < 0.45:
            return tuple(dims)
        if r < 0.75:
            dims = [1 if self.chance(0.35) else d for d in dims]
            drop = self.rng.randint(0, len(dims))
            return tuple(dims[drop:]) if self.chance(0.5) else tuple(dims)
        if r < 0.85:
            return ()
        if r < 0.95:  # larger than `shape`: broadcasting other up to it
            return self.larger_shape(dims)
        if dims:  # incompatible
            i = self.rng.randrange(len(dims))
            dims[i] = dims[i] + self.rng.randint(1, 2) if dims[i] > 1 else 3
        return tuple(dims)

    def number(self, dtype: str | None = None) -> float | int | bool:
        """A Python number; mostly of `dtype`'s kind when it is given."""
        kind = self.rng.random()
        if dtype == "bool" and kind < 0.5:
            return self.chance(0.5)
        if dtype == "int64" and kind < 0.6 or kind < 0.35:
            return self.choice([0, 1, -1, 2, 3, -2, 5])  # type: ignore[return-value]
        if kind < 0.9:
            return self.choice([0.5, -1.5, 2.5, 0.25, -0.75, 3.0, 1e-3])  # type: ignore[return-value]
        if kind < 0.95:
            return self.chance(0.5)
        return self.choice([math.inf, -math.inf, math.nan])  # type: ignore[return-value]

    # ---- inputs and operands ------------------------------------------------------------

    def input(self, shape: Sequence[int], dtype: str, kind: str | None = None) -> str:
        """A new input of this shape and dtype (drawn on the CPU); returns its name."""
        s = fmt_shape(shape)
        gen = self.seeded()
        if dtype in FLOATS:
            kind = (
                kind
                or self.rng.choices(
                    ["normal", "wide", "dyadic", "positive", "special"], weights=[5, 1, 3, 2, 1]
                )[0]
            )
            expr = {
                "normal": f"torch.randn({s}, {gen})",
                "wide": f"torch.randn({s}, {gen}).mul(100)",
                "dyadic": f"torch.randint(-8, 9, {s}, {gen}).div(4)",
                "positive": f"torch.rand({s}, {gen}).add(0.25)",
                "special": f"torch.randn({s}, {gen}).where(torch.rand({s}, generator=g) > 0.3, "
                f'torch.tensor([0.0, -0.0, 1.0, float("inf"), -float("inf"), float("nan")])'
                f"[torch.randint(0, 6, {s}, generator=g)])",
            }[kind]
            if dtype == "bfloat16":
                expr += ".bfloat16()"
        elif dtype == "int64":
            kind = kind or self.rng.choices(["small", "positive", "wide"], weights=[6, 3, 1])[0]
            lo, hi = {"small": (-8, 9), "positive": (1, 6), "wide": (-(2**40), 2**40)}[kind]
            expr = f"torch.randint({lo}, {hi}, {s}, {gen})"
        else:
            expr = f"torch.rand({s}, {gen}).lt(0.5)"
        return self.input_expr(expr)

    def seeded(self) -> str:
        """The generator argument of a new input: g, reseeded."""
        return f"generator=g.manual_seed({self.rng.randrange(10**6)})"

    def input_expr(self, expr: str) -> str:
        """A new input made by this CPU expression (which draws from g); returns its name."""
        name = self.name("x")
        inp = Input(name, expr)
        exec_line(inp.line, self.ns)
        t = self.t(name)
        if not t.is_contiguous():
            # .to(dev) is a no-op on the CPU but a (contiguous) copy elsewhere: inputs are
            # contiguous, non-contiguous operands are views the program makes on the device.
            inp.expr += ".contiguous()"
            exec_line(inp.line, self.ns)
        elif t.storage_offset() or t.untyped_storage().nbytes() != t.numel() * t.element_size():
            # A view of a larger storage (x.narrow(...)): the copy elsewhere has only its
            # elements, so as_strided over the rest would differ. Inputs own their storage.
            inp.expr += ".clone()"
            exec_line(inp.line, self.ns)
        self.prog.inputs.append(inp)
        return name

    def index_input(self, shape: Sequence[int], size: int, negative: bool = False) -> str:
        """An int64 index tensor with values valid for a dimension of `size`."""
        lo = -size if negative else 0
        hi = max(size, 1)
        return self.input_expr(f"torch.randint({lo}, {hi}, {fmt_shape(shape)}, {self.seeded()})")

    def prep(self, code: str, op: str, defines: list[str]) -> None:
        """A statement that builds an operand of the candidate (kept only with it)."""
        s = Stmt(code, op, defines)
        exec_line(code, self.ns)
        self.pending.append(s)
        self.views.update(defines)

    def noncontig(self, shape: tuple[int, ...], dtype: str) -> str:
        """A non-contiguous view of this shape, made on the device from a new input."""
        r = len(shape)
        how = self.rng.choice(["t", "permute", "step", "expand", "narrow", "as_strided"])
        v = self.name()
        if how in ("t", "permute") and r >= 2:
            perm = list(range(r))
            while perm == list(range(r)):
                self.rng.shuffle(perm)
            inv = [perm.index(i) for i in range(r)]
            base = self.input([shape[p] for p in inv], dtype)
            if how == "t" and r == 2:
                self.prep(f"{v} = {base}.t()", "t", [v])
            else:
                self.prep(f"{v} = {base}.permute{fmt_shape(perm)}", "permute", [v])
        elif how == "expand" and any(d > 1 for d in shape):
            small = [d if self.chance(0.5) else 1 for d in shape]
            base = self.input(small, dtype)
            self.prep(f"{v} = {base}.expand{fmt_shape(shape)}", "expand", [v])
        elif how == "narrow" and r >= 1:
            d = self.rng.randrange(r)
            big = list(shape)
            big[d] += self.rng.randint(1, 2)
            base = self.input(big, dtype)
            start = self.rng.randint(0, big[d] - shape[d])
            self.prep(f"{v} = {base}.narrow({d}, {start}, {shape[d]})", "narrow", [v])
        elif how == "as_strided" and r >= 1:
            stride = []
            acc = 1
            for dim in reversed(shape):
                stride.append(acc * self.rng.choice([1, 2]))
                acc = stride[-1] * max(dim, 1)
            stride.reverse()
            off = self.rng.randint(0, 2)
            size_needed = off + sum((d - 1) * s for d, s in zip(shape, stride, strict=True)) + 1
            base = self.input((size_needed,), dtype)
            self.prep(
                f"{v} = {base}.as_strided({fmt_shape(shape)}, {fmt_shape(stride)}, {off})",
                "as_strided",
                [v],
            )
        elif r >= 1:
            d = self.rng.randrange(r)
            big = list(shape)
            big[d] = shape[d] * 2
            base = self.input(big, dtype)
            idx = ", ".join("::2" if i == d else ":" for i in range(r))
            self.prep(f"{v} = {base}[{idx}]", "getitem", [v])
        else:
            base = self.input((3,), dtype)
            self.prep(f"{v} = {base}[1]", "getitem", [v])
        return v

    def operand(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: str | None = None,
        reuse: float = 0.6,
        pred: Callable[[torch.Tensor], bool] | None = None,
    ) -> str:
        """A tensor operand: an existing value (matching `shape`/`dtype` when given, and
        `pred`), a new input, or a new non-contiguous view."""
        if self.chance(reuse):
            names = [
                n
                for n in self.tensors()
                if (shape is None or tuple(self.t(n).shape) == tuple(shape))
                and (dtype is None or dtype_of(self.t(n)) == dtype)
                and (pred is None or pred(self.t(n)))
            ]
            if names:
                # Recent values first: programs should chain.
                return names[-1] if self.chance(0.5) else self.rng.choice(names)
        shape = self.shape() if shape is None else shape
        dtype = dtype or self.dtype()
        if self.chance(0.3) and numel(shape) > 1:
            return self.noncontig(tuple(shape), dtype)
        return self.input(shape, dtype)

    def out_tensor(self, shape: Sequence[int], dtype: str, fresh: bool = False) -> str:
        """A tensor to pass as out=: an existing one (unless `fresh`), zeros of the right or a
        wrong shape, or an empty one (resized without a warning)."""
        r = self.rng.random()
        if r < 0.2 and not fresh:
            names = [n for n in self.tensors() if n in self.views or self.chance(0.3)]
            if names:
                return self.rng.choice(names)
        if r < 0.3:
            shape = (0,)
        elif r < 0.4:
            shape = self.shape()
        if self.chance(0.15):
            dtype = self.dtype()
        o = self.name()
        self.prep(
            f"{o} = torch.zeros({fmt_shape(shape)}, dtype=torch.{dtype}, device=dev)", "zeros", [o]
        )
        return o

    # ---- checks that keep CPU results well defined ---------------------------------------

    def cast_ok(self, src: object, dst_dtype: str) -> bool:
        """Whether casting `src` (a name or a number) to `dst_dtype` is well defined on the
        CPU (a float NaN, infinity or out-of-range value cast to an integer is not)."""
        if dst_dtype not in ("int64",):
            return True
        if isinstance(src, str):
            t = self.t(src)
            if not t.is_floating_point() or t.numel() == 0:
                return True
            f = t.float()
            return bool(torch.isfinite(f).all()) and bool(f.abs().max() < 2**62)
        if isinstance(src, float):
            return math.isfinite(src)
        return True

    def _elements(self, t: torch.Tensor) -> list[int]:
        """The storage positions of t's elements, in order."""
        n = t.untyped_storage().nbytes() // max(t.element_size(), 1)
        pos = torch.arange(n).as_strided(t.shape, t.stride(), t.storage_offset())
        return pos.flatten().tolist()

    def risky_write(self, stmt: Stmt) -> bool:
        """Whether `stmt` writes memory whose result PyTorch leaves to the implementation
        when it does not raise: a target with internal overlap (an expanded view), or one
        that partly overlaps another operand (the CPU only checks the easy cases)."""
        refs = [n for n in NAME_RE.findall(stmt.code) if n not in stmt.defines]
        for w in stmt.writes:
            dst = self.ns.get(w)
            if not isinstance(dst, torch.Tensor) or dst.numel() == 0:
                continue
            if torch._debug_has_internal_overlap(dst) != 0 or refs.count(w) > 1:
                return True
            mine = self._elements(dst)
            for r in set(refs) - {w}:
                src = self.ns.get(r)
                if not isinstance(src, torch.Tensor) or src.numel() == 0:
                    continue
                if src.untyped_storage().data_ptr() != dst.untyped_storage().data_ptr():
                    continue
                theirs = self._elements(src)
                if theirs != mine and set(theirs) & set(mine):
                    return True
        return False

    # ---- building the program -----------------------------------------------------------

    def replay(self) -> None:
        self.ns = new_namespace("cpu")
        for i in self.prog.inputs:
            exec_line(i.line, self.ns)
        for s in self.prog.stmts:
            try:
                exec_line(s.code, self.ns)
            except Exception:
                pass

    def attempt(self, build: Callable[[Gen], Stmt]) -> bool:
        """Build and dry-run one candidate; keep it or roll back. True when kept."""
        self.pending = []
        views_before = set(self.views)
        try:
            stmt: Stmt | None = build(self)
        except Reject:
            stmt = None
        except Exception:  # noqa: BLE001 - a builder's operand did not fit; draw again
            stmt = None
        raised: Exception | None = None
        risky = stmt is not None and self.risky_write(stmt)
        if stmt is not None:
            try:
                exec_line(stmt.code, self.ns)
            except Exception as e:  # noqa: BLE001 - any error is a contract to compare
                raised = e
        keep = stmt is not None
        if raised is not None:
            meant = stmt is not None and stmt.op.endswith("[oob]")
            data_dependent = bool(DATA_DEPENDENT.search(f"{type(raised).__name__}: {raised}"))
            keep = self.allow_error and (meant or not data_dependent)
        elif stmt is not None and (stmt.op.endswith(("[oob]", "[overlap]")) or risky):
            keep = False  # meant to raise, or unspecified when it does not
        if not keep:
            self.views = views_before
            self.replay()
            return False
        assert stmt is not None
        if raised is not None:
            stmt.raises = type(raised).__name__
            self.errors += 1
            self.allow_error = self.errors < MAX_ERRORS
            for d in stmt.defines:
                self.ns.pop(d, None)
        self.prog.stmts += self.pending + [stmt]
        self.pending = []
        return True


def generate(seed: str) -> Program:
    """The program for `seed` (a string such as "1:42", the run's seed and index)."""
    from tests.fuzz import ops  # the builders register themselves there

    g = Gen(seed)
    target = g.rng.randint(1, 8)
    tries = 0
    while len(g.prog.stmts) < target and tries < target * MAX_TRIES:
        tries += 1
        names, weights = zip(*[(b, w) for b, w in ops.BUILDERS.items()], strict=True)
        build = g.rng.choices(names, weights=weights)[0]
        g.attempt(ops.FUNCTIONS[build])
    return g.prog.pruned().renumbered()


def program_seed(seed: int, index: int) -> str:
    return f"{seed}:{index}"


if __name__ == "__main__":
    s = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    i = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    print(generate(program_seed(s, i)).source(), end="")
