"""Builders of joining and indexing ops: cat/stack, advanced indexing, index_select, gather,
take_along_dim, take, masked_select, nonzero."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.fuzz.gen import Reject, dtype_of, fmt_shape
from tests.fuzz.program import Stmt

if TYPE_CHECKING:
    from tests.fuzz.gen import Gen


def _oob(g: Gen) -> bool:
    """Whether to draw an index out of range on purpose (rare; an error contract)."""
    return g.allow_error and g.chance(0.1)


def _index(g: Gen, shape: tuple[int, ...], size: int, negative: bool = False) -> tuple[str, bool]:
    if _oob(g):
        expr = f"torch.randint({size}, {size + 3}, {fmt_shape(shape)}, {g.seeded()})"
        return g.input_expr(expr), True
    if size == 0 and shape and 0 not in shape:
        raise Reject
    return g.index_input(shape, size, negative), False


def cat(g: Gen) -> Stmt:
    x = g.operand()
    t = g.t(x)
    shape = list(t.shape)
    stack = g.chance(0.3)
    r = len(shape)
    if r == 0 and not stack:
        raise Reject
    d = g.rng.randrange(r + 1 if stack else r) if r or stack else 0
    parts = [x]
    for _ in range(g.rng.randint(0, 3)):
        s = list(shape)
        if not stack and g.chance(0.7):
            s[d] = g.rng.randint(0, 3)
        if g.chance(0.05):
            s = [0]  # legacy: 1-d empty tensors are skipped by cat
        dtype = dtype_of(t) if g.chance(0.7) else None
        parts.append(g.operand(tuple(s), dtype, reuse=0.3))
    fn = "stack" if stack else g.rng.choice(["cat", "cat", "concat"])
    v = g.name()
    if g.chance(0.15):
        o = g.out_tensor((), g.dtype())
        return Stmt(
            f"{v} = torch.{fn}([{', '.join(parts)}], {d}, out={o})", fn + "(out=)", [v], [o]
        )
    return Stmt(f"{v} = torch.{fn}([{', '.join(parts)}], {d})", fn, [v])


def advanced_index(g: Gen) -> Stmt:
    x = g.operand(reuse=0.7)
    t = g.t(x)
    shape = tuple(t.shape)
    if not shape:
        raise Reject
    v = g.name()
    kind = g.rng.random()
    oob = False
    if kind < 0.2:
        mask = g.operand(shape[: g.rng.randint(1, len(shape))], "bool", reuse=0.3)
        key = mask
        label = "getitem[mask]"
    elif kind < 0.6 or len(shape) < 2:
        idx, oob = _index(g, g.shape(g.rng.randint(0, 2)), shape[0], negative=True)
        key = idx if g.chance(0.6) else f"{idx}, ..."
        label = "getitem[index]"
    else:
        i0, o0 = _index(g, g.shape(g.rng.randint(1, 2)), shape[0], negative=True)
        ishape = tuple(g.t(i0).shape)
        i1, o1 = _index(g, g.bcast_shape(ishape), shape[1], negative=True)
        oob = o0 or o1
        key = g.rng.choice([f"{i0}, {i1}", f":, {i1}", f"{i0}, 1:", f"None, {i0}, {i1}"])
        label = "getitem[index]"
    return Stmt(f"{v} = {x}[{key}]", label + ("[oob]" if oob else ""), [v])


def dim_index(g: Gen) -> Stmt:
    """index_select, gather, take_along_dim, take."""
    x = g.operand(reuse=0.7)
    t = g.t(x)
    shape = tuple(t.shape)
    r = len(shape)
    op = g.rng.choice(["index_select", "gather", "take_along_dim", "take"])
    d = g.rng.randrange(r) if r else 0
    size = shape[d] if r else 1
    v = g.name()
    if op == "index_select":
        idx, oob = _index(g, (g.rng.randint(0, 5),) if g.chance(0.9) else (), size)
        code = (
            f"{v} = torch.index_select({x}, {d}, {idx})"
            if g.chance(0.5)
            else f"{v} = {x}.index_select({d}, {idx})"
        )
    elif op in ("gather", "take_along_dim"):
        ishape = [g.rng.randint(1, max(s, 1)) for s in shape]
        if r:
            ishape[d] = g.rng.randint(0, 4)
        idx, oob = _index(g, tuple(ishape), size)
        if op == "gather":
            code = f"{v} = torch.gather({x}, {d}, {idx})"
        else:
            code = f"{v} = torch.take_along_dim({x}, {idx}, {d})"
    else:
        idx, oob = _index(g, g.shape(g.rng.randint(0, 2)), t.numel(), negative=True)
        code = f"{v} = torch.take({x}, {idx})"
    return Stmt(code, op + ("[oob]" if oob else ""), [v])


def data_dependent(g: Gen) -> Stmt:
    """Ops whose result shape depends on the values: masked_select, nonzero."""
    x = g.operand()
    t = g.t(x)
    v = g.name()
    if g.chance(0.5):
        mask = g.operand(g.bcast_shape(tuple(t.shape)), "bool", reuse=0.5)
        return Stmt(f"{v} = torch.masked_select({x}, {mask})", "masked_select", [v])
    if g.chance(0.3):
        return Stmt(f"{v} = torch.nonzero({x}, as_tuple=False)", "nonzero", [v])
    return Stmt(f"{v} = {x}.nonzero()", "nonzero", [v])


BUILDERS = {
    "cat": (cat, 5.0),
    "advanced_index": (advanced_index, 5.0),
    "dim_index": (dim_index, 5.0),
    "data_dependent": (data_dependent, 1.5),
}
