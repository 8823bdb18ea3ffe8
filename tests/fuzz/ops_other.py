"""Builders of reductions, the matmul family, sorting and scans, softmax, and the ops that
make new tensors from one (contiguous, clone, to, *_like, flip, roll, tril, repeat)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.fuzz.gen import Reject, dtype_of, fmt_num, fmt_shape
from tests.fuzz.program import Stmt

if TYPE_CHECKING:
    from tests.fuzz.gen import Gen

# name: (takes a tuple of dims, takes dtype=, returns (values, indices) with a dim)
REDUCTIONS: dict[str, tuple[bool, bool, bool]] = {
    "sum": (True, True, False),
    "mean": (True, True, False),
    "nansum": (True, True, False),
    "prod": (False, True, False),
    "amax": (True, False, False),
    "amin": (True, False, False),
    "argmax": (False, False, False),
    "argmin": (False, False, False),
    "any": (True, False, False),
    "all": (True, False, False),
    "std": (True, False, False),
    "var": (True, False, False),
    "logsumexp": (True, False, False),
    "count_nonzero": (True, False, False),
    "max": (False, False, True),
    "min": (False, False, True),
    "norm": (True, False, False),
}


def _dims(g: Gen, r: int, tuple_ok: bool) -> str:
    if r == 0:
        return g.rng.choice(["0", "-1", "()"]) if tuple_ok else g.rng.choice(["0", "-1"])
    d = g.rng.randrange(r)
    if g.chance(0.03):
        d = r + 1  # out of range
    elif g.chance(0.3):
        d -= r
    if tuple_ok and r >= 2 and g.chance(0.35):
        e = g.rng.randrange(r)
        return fmt_shape((d, e) if e != d % r else (d,))
    return str(d)


def reduction(g: Gen) -> Stmt:
    x = g.operand(reuse=0.7)
    t = g.t(x)
    r = t.dim()
    op = g.rng.choice(list(REDUCTIONS))
    tuple_ok, dtype_ok, pair = REDUCTIONS[op]
    v = g.name()
    if op == "logsumexp" or (pair and g.chance(0.8)) or g.chance(0.7):
        args = [_dims(g, r, tuple_ok)]
        keep = g.chance(0.4)
        if op == "count_nonzero":
            keep = False
        elif keep or g.chance(0.3):
            args.append(f"keepdim={keep}")
    else:
        args = []
    if op in ("std", "var") and g.chance(0.5):
        args.append(f"correction={g.rng.choice([0, 1, 2])}")
    if dtype_ok and g.chance(0.2):
        want = g.rng.choice(["float32", "bfloat16", "int64"])
        if want == "int64" and t.is_floating_point():
            want = "float32"
        args.append(f"dtype=torch.{want}")
    if op == "norm" and g.chance(0.5):
        args.insert(0, fmt_num(g.rng.choice([1, 2, 3.0, float("inf")])))
    joined = ", ".join(args)
    if pair and args:
        i = g.name()
        return Stmt(f"{v}, {i} = torch.{op}({x}, {joined})", op, [v, i])
    if g.chance(0.12) and args and not pair:
        # A new out= tensor: reductions do not check that it overlaps the input on the CPU,
        # and what they write through such an alias is undefined there.
        o = g.out_tensor((), dtype_of(t) if g.chance(0.7) else g.dtype(), fresh=True)
        return Stmt(f"{v} = torch.{op}({x}, {joined}, out={o})", op + "(out=)", [v], [o])
    if g.chance(0.5):
        return Stmt(f"{v} = torch.{op}({x}{', ' if joined else ''}{joined})", op, [v])
    return Stmt(f"{v} = {x}.{op}({joined})", op, [v])


def matmul(g: Gen) -> Stmt:
    dtype = g.rng.choices(["float32", "bfloat16", "int64"], weights=[6, 2, 1])[0]
    other = g.dtype() if g.probe(0.1, 0.4) else dtype  # mixed dtypes must raise
    op = g.rng.choice(
        [
            "matmul",
            "matmul",
            "mm",
            "bmm",
            "linear",
            "addmm",
            "mv",
            "dot",
            "outer",
            "baddbmm",
            "operator",
        ]
    )
    n, k, m, b = (g.rng.randint(1, 4) for _ in range(4))
    if g.chance(0.05):
        k = 0
    v = g.name()

    def opnd(shape: tuple[int, ...], dt: str) -> str:
        return g.operand(shape, dt, reuse=0.3)

    if op in ("matmul", "operator"):
        ra, rb = g.rng.randint(1, 4), g.rng.randint(1, 4)
        batch = [g.rng.randint(1, 3) for _ in range(max(ra, rb) - 2)]
        sa = (tuple(batch[len(batch) - (ra - 2) :]) if ra > 2 else ()) + (
            (n, k) if ra > 1 else (k,)
        )
        sb = (tuple(batch[len(batch) - (rb - 2) :]) if rb > 2 else ()) + (
            (k, m) if rb > 1 else (k,)
        )
        if g.chance(0.3) and len(sb) > 2:
            sb = (1,) + sb[1:]
        a, bb = opnd(sa, dtype), opnd(sb, other)
        if op == "operator":
            return Stmt(f"{v} = {a} @ {bb}", "matmul", [v])
        return Stmt(f"{v} = torch.matmul({a}, {bb})", "matmul", [v])
    if op == "mm":
        a, bb = opnd((n, k), dtype), opnd((k, m), other)
        if g.chance(0.15):
            o = g.out_tensor((n, m), dtype, fresh=True)  # mm does not check overlap either
            return Stmt(f"{v} = torch.mm({a}, {bb}, out={o})", "mm(out=)", [v], [o])
        return Stmt(f"{v} = torch.mm({a}, {bb})", "mm", [v])
    if op == "bmm":
        a, bb = opnd((b, n, k), dtype), opnd((b, k, m), other)
        return Stmt(f"{v} = torch.bmm({a}, {bb})", "bmm", [v])
    if op == "linear":
        lead = g.shape(g.rng.randint(0, 2))
        a, w = opnd(lead + (k,), dtype), opnd((m, k), other)
        bias = opnd((m,), dtype) if g.chance(0.6) else None
        extra = f", {bias}" if bias else ""
        return Stmt(f"{v} = torch.nn.functional.linear({a}, {w}{extra})", "linear", [v])
    if op == "addmm":
        c = opnd(g.bcast_shape((n, m)), dtype)
        a, bb = opnd((n, k), dtype), opnd((k, m), other)
        kw = ", beta=0.5, alpha=2" if g.chance(0.4) and dtype != "int64" else ""
        return Stmt(f"{v} = torch.addmm({c}, {a}, {bb}{kw})", "addmm", [v])
    if op == "baddbmm":
        c = opnd(g.bcast_shape((b, n, m)), dtype)
        a, bb = opnd((b, n, k), dtype), opnd((b, k, m), other)
        return Stmt(f"{v} = torch.baddbmm({c}, {a}, {bb})", "baddbmm", [v])
    if op == "mv":
        a, x = opnd((n, k), dtype), opnd((k,), other)
        return Stmt(f"{v} = torch.mv({a}, {x})", "mv", [v])
    if op == "dot":
        a, x = opnd((k,), dtype), opnd((k,), other)
        return Stmt(f"{v} = torch.dot({a}, {x})", "dot", [v])
    a, x = opnd((n,), dtype), opnd((m,), other)
    return Stmt(f"{v} = torch.outer({a}, {x})", "outer", [v])


def sort_scan(g: Gen) -> Stmt:
    x = g.operand(reuse=0.7)
    t = g.t(x)
    r = t.dim()
    d = g.rng.randrange(r) - (r if g.chance(0.3) else 0) if r else g.rng.choice([0, -1])
    op = g.rng.choice(
        [
            "sort",
            "argsort",
            "topk",
            "cumsum",
            "cumprod",
            "logcumsumexp",
            "cummax",
            "msort",
            "kthvalue",
            "cumsum",
        ]
    )
    v = g.name()
    desc = g.chance(0.4)
    if op == "sort":
        i = g.name()
        return Stmt(
            f"{v}, {i} = torch.sort({x}, dim={d}, descending={desc}, stable=True)", "sort", [v, i]
        )
    if op == "argsort":
        return Stmt(f"{v} = {x}.argsort(dim={d}, descending={desc}, stable=True)", "argsort", [v])
    if op == "msort":
        return Stmt(f"{v} = torch.msort({x})", "msort", [v])
    if op in ("topk", "kthvalue"):
        size = t.shape[d] if r else 1
        k = g.rng.randint(0 if op == "topk" else 1, max(size, 1))
        if op == "kthvalue":
            return Stmt(f"{v} = torch.kthvalue({x}, {k}, {d}).values", "kthvalue", [v])
        largest = "" if g.chance(0.5) else f", largest={not desc}"
        return Stmt(f"{v} = torch.topk({x}, {k}, dim={d}{largest}).values", "topk", [v])
    if op == "cummax":
        return Stmt(f"{v} = torch.cummax({x}, {d}).values", "cummax", [v])
    kw = ""
    if op in ("cumsum", "cumprod") and g.chance(0.2):
        kw = f", dtype=torch.{g.rng.choice(['float32', 'int64'])}"
        if "int64" in kw and t.is_floating_point():
            raise Reject
    if g.chance(0.3):
        return Stmt(f"{v} = {x}.{op}({d}{kw})", op, [v])
    return Stmt(f"{v} = torch.{op}({x}, {d}{kw})", op, [v])


def softmax(g: Gen) -> Stmt:
    x = g.operand(reuse=0.7)
    r = g.t(x).dim()
    d = (g.rng.randrange(r) - (r if g.chance(0.3) else 0)) if r else 0
    op = g.rng.choice(["softmax", "log_softmax"])
    v = g.name()
    kw = f", dtype=torch.{g.rng.choice(['float32', 'bfloat16'])}" if g.chance(0.2) else ""
    form = g.rng.random()
    if form < 0.4:
        return Stmt(f"{v} = torch.{op}({x}, {d}{kw})", op, [v])
    if form < 0.7:
        return Stmt(f"{v} = {x}.{op}({d}{kw})", op, [v])
    return Stmt(f"{v} = torch.nn.functional.{op}({x}, dim={d}{kw})", op, [v])


def new_tensor(g: Gen) -> Stmt:
    """Copies and conversions: their strides follow PyTorch's memory-format rules."""
    x = g.operand(reuse=0.8)
    t = g.t(x)
    v = g.name()
    op = g.rng.choice(
        [
            "contiguous",
            "clone",
            "clone_fmt",
            "to",
            "conv",
            "zeros_like",
            "ones_like",
            "full_like",
            "new_zeros",
            "detach",
            "flip",
            "roll",
            "tril",
            "repeat",
            "item",
        ]
    )
    if op == "contiguous":
        return Stmt(f"{v} = {x}.contiguous()", "contiguous", [v])
    if op == "clone":
        return Stmt(f"{v} = {x}.clone()", "clone", [v])
    if op == "clone_fmt":
        fmt = g.rng.choice(["preserve_format", "contiguous_format"])
        return Stmt(f"{v} = {x}.clone(memory_format=torch.{fmt})", "clone", [v])
    if op in ("to", "conv"):
        want = g.dtype()
        if not g.cast_ok(x, want):
            raise Reject
        if op == "to":
            copy = ", copy=True" if g.chance(0.2) else ""
            return Stmt(f"{v} = {x}.to(torch.{want}{copy})", "to", [v])
        meth = {"float32": "float", "bfloat16": "bfloat16", "int64": "long", "bool": "bool"}[want]
        return Stmt(f"{v} = {x}.{meth}()", "to", [v])
    if op in ("zeros_like", "ones_like"):
        kw = f", dtype=torch.{g.dtype()}" if g.chance(0.3) else ""
        return Stmt(f"{v} = torch.{op}({x}{kw})", op, [v])
    if op == "full_like":
        return Stmt(f"{v} = torch.full_like({x}, {fmt_num(g.number(dtype_of(t)))})", op, [v])
    if op == "new_zeros":
        return Stmt(f"{v} = {x}.new_zeros({fmt_shape(g.shape())})", op, [v])
    if op == "detach":
        return Stmt(f"{v} = {x}.detach()", "detach", [v])
    r = t.dim()
    if op == "flip":
        dims = fmt_shape(sorted(set(g.rng.sample(range(r), g.rng.randint(1, r))))) if r else "(0,)"
        return Stmt(f"{v} = torch.flip({x}, {dims})", "flip", [v])
    if op == "roll":
        d = g.rng.randrange(r) if r else 0
        return Stmt(f"{v} = torch.roll({x}, {g.rng.randint(-3, 3)}, {d})", "roll", [v])
    if op == "tril":
        fn = g.rng.choice(["tril", "triu"])
        return Stmt(f"{v} = torch.{fn}({x}, {g.rng.randint(-1, 1)})", fn, [v])
    if op == "repeat":
        reps = [g.rng.randint(1, 2) for _ in range(max(r, 1) + g.rng.randint(0, 1))]
        return Stmt(f"{v} = {x}.repeat{fmt_shape(reps)}", "repeat", [v])
    if t.numel() != 1:
        raise Reject
    return Stmt(f"{v} = {x}.item()", "item", [v])


BUILDERS = {
    "reduction": (reduction, 10.0),
    "matmul": (matmul, 6.0),
    "sort_scan": (sort_scan, 5.0),
    "softmax": (softmax, 3.0),
    "new_tensor": (new_tensor, 6.0),
}
