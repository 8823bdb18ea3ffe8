"""Builders of in-place writes, mostly through views: copy_ (with casts, broadcasting and
overlap), fill_/zero_, masked_fill_, index_put_, index_fill_/index_add_/index_copy_,
scatter_/scatter_add_, setitem, and in-place unary ops."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.fuzz.gen import Reject, dtype_of, fmt_num, fmt_shape
from tests.fuzz.program import Stmt

if TYPE_CHECKING:
    from tests.fuzz.gen import Gen

UNARY_INPLACE = "exp_ neg_ abs_ floor_ sigmoid_ tanh_ sqrt_ relu_ round_ sign_ reciprocal_".split()


def _target(g: Gen) -> str:
    """A tensor to write in place: a view most of the time (sometimes an expanded one)."""
    if g.probe(0.03, 0.25):
        return g.expanded()
    views = [n for n in g.views if n in g.ns]
    if views and g.chance(0.7):
        return g.rng.choice(sorted(views))
    return g.operand(reuse=0.7)


def _value(g: Gen, dst: str, shape: tuple[int, ...]) -> str:
    """A source value to write into `dst`: a number, a 0-d tensor or a broadcastable one,
    never a NaN/infinity/out-of-range float cast to an integer."""
    dtype = dtype_of(g.t(dst))
    for _ in range(4):
        r = g.rng.random()
        if r < 0.35:
            n = g.number(dtype)
            if g.cast_ok(n, dtype):
                return fmt_num(n)
        else:
            src_shape = () if r < 0.45 else g.bcast_shape(shape)
            src = g.operand(src_shape, dtype if g.chance(0.6) else None, reuse=0.4)
            if g.cast_ok(src, dtype):
                return src
    raise Reject


def copy(g: Gen) -> Stmt:
    x = _target(g)
    t = g.t(x)
    v = g.name()
    if g.probe(0.1, 0.35) and t.dim() >= 1 and t.shape[0] >= 2:
        # Partially overlapping source and destination: must raise.
        if t.dim() == 2 and t.shape[0] == t.shape[1] and g.chance(0.5):
            return Stmt(f"{v} = {x}.copy_({x}.t())", "copy_[overlap]", [v], [x])
        return Stmt(f"{v} = {x}[1:].copy_({x}[:-1])", "copy_[overlap]", [v], [x])
    src = _value(g, x, tuple(t.shape))
    if not src.startswith(("x", "v")):
        src = g.operand((), None, reuse=0.2)
        if not g.cast_ok(src, dtype_of(t)):
            raise Reject
    return Stmt(f"{v} = {x}.copy_({src})", "copy_", [v], [x])


def fill(g: Gen) -> Stmt:
    x = _target(g)
    v = g.name()
    if g.chance(0.3):
        return Stmt(f"{v} = {x}.zero_()", "zero_", [v], [x])
    val = _value(g, x, ())
    if val.startswith(("x", "v")) and g.t(val).dim() != 0:
        raise Reject
    return Stmt(f"{v} = {x}.fill_({val})", "fill_", [v], [x])


def masked_fill(g: Gen) -> Stmt:
    x = _target(g)
    t = g.t(x)
    mask = g.operand(g.bcast_shape(tuple(t.shape)), "bool", reuse=0.4)
    val = _value(g, x, ())
    v = g.name()
    if val.startswith(("x", "v")) and g.t(val).dim() != 0:
        raise Reject
    if g.chance(0.3):
        return Stmt(f"{v} = {x}.masked_fill({mask}, {val})", "masked_fill", [v])
    return Stmt(f"{v} = {x}.masked_fill_({mask}, {val})", "masked_fill_", [v], [x])


def _unique_index(g: Gen, size: int, k: int) -> str:
    """A 1-d int64 index of k distinct positions in range(size) (negative ones sometimes)."""
    neg = f".sub({size})" if g.chance(0.2) else ""
    return g.input_expr(f"torch.randperm({size}, {g.seeded()})[:{k}]{neg}")


def index_put(g: Gen) -> Stmt:
    x = _target(g)
    t = g.t(x)
    if t.dim() == 0:
        raise Reject
    accumulate = g.chance(0.4)
    n = t.shape[0]
    k = g.rng.randint(0, n)
    if accumulate:
        idx = g.index_input((g.rng.randint(0, 4),), n, negative=g.chance(0.3))
    else:
        idx = _unique_index(g, n, k)
    kk = g.t(idx).shape[0]
    vshape = (kk,) + tuple(t.shape[1:])
    dtype = dtype_of(t) if g.chance(0.9) else g.dtype()
    vals = g.operand(g.bcast_shape(vshape) if g.chance(0.3) else vshape, dtype, reuse=0.3)
    if not g.cast_ok(vals, dtype_of(t)):
        raise Reject
    v = g.name()
    acc = f", accumulate={accumulate}" if accumulate or g.chance(0.5) else ""
    if g.chance(0.25):
        return Stmt(f"{v} = {x}.index_put(({idx},), {vals}{acc})", "index_put", [v])
    if g.chance(0.25):
        return Stmt(f"{v} = torch.index_put_({x}, ({idx},), {vals}{acc})", "index_put_", [v], [x])
    return Stmt(f"{v} = {x}.index_put_(({idx},), {vals}{acc})", "index_put_", [v], [x])


def index_dim_ops(g: Gen) -> Stmt:
    """index_fill_, index_add_, index_copy_ (and their out-of-place forms) along a dim."""
    x = _target(g)
    t = g.t(x)
    if t.dim() == 0:
        raise Reject
    d = g.rng.randrange(t.dim())
    n = t.shape[d]
    op = g.rng.choice(["index_fill", "index_add", "index_copy"])
    k = g.rng.randint(0, n)
    if op == "index_copy" or n == 0:
        idx = _unique_index(g, n, k) if n else g.index_input((0,), 1)
        if ".sub(" in g.prog.inputs[-1].expr:
            raise Reject  # index_copy takes no negative indices
    else:
        idx = g.index_input((g.rng.randint(0, 4),), n)
    inplace = "_" if g.chance(0.7) else ""
    v = g.name()
    if op == "index_fill":
        val = _value(g, x, ())
        if val.startswith(("x", "v")) and g.t(val).dim() != 0:
            raise Reject
        args = f"{d}, {idx}, {val}"
    else:
        sshape = list(t.shape)
        sshape[d] = g.t(idx).shape[0]
        src = g.operand(tuple(sshape), dtype_of(t) if g.chance(0.9) else None, reuse=0.3)
        args = f"{d}, {idx}, {src}"
        if op == "index_add" and g.chance(0.3):
            args += ", alpha=2"
    writes = [x] if inplace else []
    return Stmt(f"{v} = {x}.{op}{inplace}({args})", op + inplace, [v], writes)


def scatter(g: Gen) -> Stmt:
    """scatter_/scatter_add_/scatter_reduce (in and out of place), with indices distinct
    along the scattered dim where duplicates would make the result unspecified."""
    x = _target(g) if g.chance(0.6) else g.operand()
    t = g.t(x)
    if t.dim() == 0 or t.numel() == 0:
        raise Reject
    d = g.rng.randrange(t.dim())
    op = g.rng.choice(["scatter", "scatter", "scatter_add", "scatter_reduce"])
    ishape = [g.rng.randint(1, s) for s in t.shape]
    if op == "scatter":  # distinct along d: argsort of random keys
        full = list(ishape)
        full[d] = t.shape[d]
        expr = (
            f"torch.rand({fmt_shape(full)}, {g.seeded()}).argsort({d}).narrow({d}, 0, {ishape[d]})"
        )
    else:
        expr = f"torch.randint(0, {t.shape[d]}, {fmt_shape(ishape)}, {g.seeded()})"
    name = g.input_expr(expr)
    inplace = "_" if g.chance(0.6) else ""
    v = g.name()
    if op == "scatter" and g.chance(0.3):
        val = _value(g, x, ())
        if val.startswith(("x", "v")):
            raise Reject
        args = f"{d}, {name}, {val}"
    else:
        src = g.operand(tuple(ishape), dtype_of(t) if g.chance(0.9) else None, reuse=0.3)
        args = f"{d}, {name}, {src}"
        if op == "scatter_reduce":
            red = g.rng.choice(["sum", "prod", "mean", "amax", "amin"])
            args += f', "{red}"' + (", include_self=False" if g.chance(0.4) else "")
    writes = [x] if inplace else []
    return Stmt(f"{v} = {x}.{op}{inplace}({args})", op + inplace, [v], writes)


def setitem(g: Gen) -> Stmt:
    x = _target(g)
    t = g.t(x)
    shape = tuple(t.shape)
    kind = g.rng.random()
    if kind < 0.5 or t.dim() == 0:  # basic indexing
        parts = []
        for d in shape:
            c = g.rng.random()
            if c < 0.4:
                parts.append(":")
            elif c < 0.7 and d:
                parts.append(f"{g.rng.randint(0, d - 1)}::{g.rng.choice([1, 2])}")
            elif d:
                parts.append(str(g.rng.randint(-d, d - 1)))
            else:
                parts.append(":")
        key = ", ".join(parts) or "..."
        sub_shape = tuple(eval(f"_t[{key}]", {"_t": t}).shape)
        val = _value(g, x, sub_shape)
        label = "setitem"
    elif kind < 0.75:
        mask = g.operand(shape, "bool", reuse=0.3)
        key = mask
        val = _value(g, x, ())
        label = "setitem[mask]"
    else:
        idx = _unique_index(g, shape[0], g.rng.randint(0, shape[0]))
        key = idx
        k = g.t(idx).shape[0]
        val = _value(g, x, (k,) + shape[1:])
        label = "setitem[index]"
    return Stmt(f"{x}[{key}] = {val}", label, [], [x])


def unary_inplace(g: Gen) -> Stmt:
    x = _target(g)
    op = g.rng.choice(UNARY_INPLACE)
    v = g.name()
    return Stmt(f"{v} = {x}.{op}()", op, [v], [x])


BUILDERS = {
    "copy": (copy, 5.0),
    "fill": (fill, 3.0),
    "masked_fill": (masked_fill, 3.0),
    "index_put": (index_put, 3.0),
    "index_dim_ops": (index_dim_ops, 3.0),
    "scatter": (scatter, 3.0),
    "setitem": (setitem, 6.0),
    "unary_inplace": (unary_inplace, 3.0),
}
