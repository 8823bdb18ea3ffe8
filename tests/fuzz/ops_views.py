"""Builders of view ops (each result shares storage with its base) and of the in-place
metadata ops (t_, transpose_, unsqueeze_, squeeze_)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from tests.fuzz.gen import Reject, fmt_shape
from tests.fuzz.program import Stmt

if TYPE_CHECKING:
    from tests.fuzz.gen import Gen


def _factor(g: Gen, n: int) -> tuple[int, ...]:
    """A random shape with `n` elements (rank 0-4), with -1 sometimes."""
    if n == 0:
        dims = [0, g.rng.randint(1, 3)]
        g.rng.shuffle(dims)
        return tuple(dims)
    dims: list[int] = []
    rest = n
    for _ in range(g.rng.randint(0, 3)):
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = g.rng.choice(divs)
        dims.append(d)
        rest //= d
    dims.append(rest)
    if dims == [1] and g.chance(0.5):
        dims = []
    if dims and g.chance(0.2):
        dims[g.rng.randrange(len(dims))] = -1
    return tuple(dims)


def _dim(g: Gen, rank: int) -> int:
    """A dimension of a tensor of this rank; negative sometimes, rarely out of range."""
    if g.chance(0.03):
        return rank + 1
    d = g.rng.randrange(max(rank, 1))
    return d - max(rank, 1) if g.chance(0.3) else d


def view(g: Gen) -> Stmt:
    x = g.operand(reuse=0.75)
    t = g.t(x)
    shape = tuple(t.shape)
    r = len(shape)
    v = g.name()
    kind = g.rng.choices(
        [
            "view",
            "reshape",
            "permute",
            "transpose",
            "t",
            "mT",
            "expand",
            "narrow",
            "select",
            "slice",
            "unsqueeze",
            "squeeze",
            "flatten",
            "unflatten",
            "as_strided",
            "diagonal",
            "unfold",
            "movedim",
            "split",
            "unbind",
            "broadcast_to",
            "view_as",
        ],
        weights=[3, 2, 3, 3, 1, 1, 3, 2, 2, 5, 2, 2, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1],
    )[0]
    if kind in ("view", "reshape"):
        return Stmt(f"{v} = {x}.{kind}{fmt_shape(_factor(g, t.numel()))}", kind, [v])
    if kind == "permute":
        perm = list(range(r))
        g.rng.shuffle(perm)
        return Stmt(f"{v} = {x}.permute{fmt_shape(perm)}", "permute", [v])
    if kind == "transpose":
        a, b = _dim(g, r), _dim(g, r)
        fn = "swapaxes" if g.chance(0.2) else "transpose"
        return Stmt(f"{v} = {x}.{fn}({a}, {b})", "transpose", [v])
    if kind == "t":
        return Stmt(f"{v} = {x}.t()", "t", [v])
    if kind == "mT":
        return Stmt(f"{v} = {x}.mT", "mT", [v])
    if kind in ("expand", "broadcast_to"):
        new = [d if d != 1 or g.chance(0.3) else g.rng.randint(2, 4) for d in shape]
        if g.chance(0.4):
            new = [g.rng.randint(1, 3)] + new
        if math.prod(new) > 120:
            raise Reject
        spec = [
            (-1 if g.chance(0.3) and i >= len(new) - r and new[i] == shape[i - len(new) + r] else d)
            for i, d in enumerate(new)
        ]
        if kind == "broadcast_to":
            return Stmt(f"{v} = torch.broadcast_to({x}, {fmt_shape(new)})", "expand", [v])
        return Stmt(f"{v} = {x}.expand{fmt_shape(spec)}", "expand", [v])
    if kind == "narrow" and r:
        d = g.rng.randrange(r)
        start = g.rng.randint(0, shape[d])
        length = g.rng.randint(0, shape[d] - start)
        return Stmt(f"{v} = {x}.narrow({d}, {start}, {length})", "narrow", [v])
    if kind == "select" and r and shape[0]:
        d = g.rng.randrange(r)
        if not shape[d]:
            raise Reject
        i = g.rng.randrange(shape[d])
        i = i - shape[d] if g.chance(0.3) else i
        if g.chance(0.5):
            return Stmt(f"{v} = {x}.select({d}, {i})", "select", [v])
        idx = ", ".join([":"] * d + [str(i)])
        return Stmt(f"{v} = {x}[{idx}]", "getitem", [v])
    if kind == "slice":
        parts = []
        for d in shape:
            c = g.rng.random()
            if c < 0.35:
                parts.append(":")
            elif c < 0.7:
                start = g.rng.randint(0, max(d - 1, 0))
                step = g.rng.choice([1, 2, 2, 3])
                parts.append(f"{start}::{step}" if step > 1 else f"{start}:")
            elif c < 0.85:
                stop = g.rng.randint(-d, d) if d else 0
                parts.append(f":{stop}")
            else:
                parts.append(f"{g.rng.randint(0, d)}:{g.rng.randint(0, d)}:2")
        if g.chance(0.15):
            parts.insert(g.rng.randint(0, len(parts)), "None")
        if g.chance(0.1) and parts:
            parts = ["..."] + parts[1:]
        if g.chance(0.02):
            parts.append("::-1")  # a negative step: ValueError on both
        return Stmt(f"{v} = {x}[{', '.join(parts) or '...'}]", "getitem", [v])
    if kind == "unsqueeze":
        d = g.rng.randint(-r - 1, r)
        return Stmt(f"{v} = {x}.unsqueeze({d})", "unsqueeze", [v])
    if kind == "squeeze":
        ones = [i for i, d in enumerate(shape) if d == 1]
        if ones and g.chance(0.5):
            arg = str(g.rng.choice(ones))
        elif len(ones) > 1 and g.chance(0.5):
            arg = fmt_shape(ones[:2])
        elif g.chance(0.5):
            arg = str(_dim(g, r))
        else:
            arg = ""
        return Stmt(f"{v} = {x}.squeeze({arg})", "squeeze", [v])
    if kind == "flatten":
        a = g.rng.randint(0, max(r - 1, 0))
        b = g.rng.randint(a, max(r - 1, 0))
        arg = f"{a}, {b}" if g.chance(0.7) else ""
        return Stmt(f"{v} = {x}.flatten({arg})", "flatten", [v])
    if kind == "unflatten" and r:
        d = g.rng.randrange(r)
        sizes = _factor(g, shape[d])
        if not sizes:
            sizes = (1,)
        return Stmt(f"{v} = {x}.unflatten({d}, {fmt_shape(sizes)})", "unflatten", [v])
    if kind == "as_strided":
        storage = t.untyped_storage().nbytes() // max(t.element_size(), 1)
        size = g.shape(g.rng.randint(1, 3))
        stride = [g.rng.choice([0, 1, 1, 2, 3]) for _ in size]
        span = sum((d - 1) * s for d, s in zip(size, stride, strict=True)) if all(size) else 0
        if storage - span - 1 < 0:
            raise Reject
        off = g.rng.randint(0, storage - span - 1)
        return Stmt(
            f"{v} = {x}.as_strided({fmt_shape(size)}, {fmt_shape(stride)}, {off})",
            "as_strided",
            [v],
        )
    if kind == "diagonal" and r >= 2:
        off = g.rng.randint(-2, 2)
        a, b = g.rng.sample(range(r), 2)
        fn = f"torch.diagonal({x}, {off}, {a}, {b})" if g.chance(0.5) else f"{x}.diagonal({off})"
        return Stmt(f"{v} = {fn}", "diagonal", [v])
    if kind == "unfold" and r:
        d = g.rng.randrange(r)
        size = g.rng.randint(1, max(shape[d], 1))
        step = g.rng.randint(1, 2)
        return Stmt(f"{v} = {x}.unfold({d}, {size}, {step})", "unfold", [v])
    if kind == "movedim" and r:
        a, b = g.rng.randrange(r), g.rng.randrange(r)
        return Stmt(f"{v} = {x}.movedim({a}, {b})", "movedim", [v])
    if kind == "split" and r:
        d = g.rng.randrange(r)
        size = g.rng.randint(1, max(shape[d], 1))
        n = math.ceil(shape[d] / size) if shape[d] else 1
        if n > 4:
            raise Reject
        names = [v] + [g.name() for _ in range(n - 1)]
        fn = "split" if g.chance(0.6) else "chunk"
        arg = size if fn == "split" else n
        if fn == "chunk":
            names = names[: len(g.t(x).chunk(n, d))]
        lhs = ", ".join(names) + ("," if len(names) == 1 else "")
        return Stmt(f"{lhs} = {x}.{fn}({arg}, {d})", fn, names)
    if kind == "unbind" and r and 0 < shape[0] <= 4:
        names = [v] + [g.name() for _ in range(shape[0] - 1)]
        lhs = ", ".join(names) + ("," if len(names) == 1 else "")
        return Stmt(f"{lhs} = {x}.unbind()", "unbind", names)
    if kind == "view_as":
        other = g.operand(reuse=0.8, pred=lambda o: o.numel() == t.numel())
        return Stmt(f"{v} = {x}.view_as({other})", "view_as", [v])
    raise Reject


def view_inplace(g: Gen) -> Stmt:
    """In-place metadata ops: the tensor changes shape and strides, not values."""
    views = [n for n in g.views if n in g.ns]
    x = g.rng.choice(sorted(views)) if views and g.chance(0.5) else g.operand()
    r = g.t(x).dim()
    v = g.name()
    kind = g.rng.choice(["t_", "transpose_", "unsqueeze_", "squeeze_"])
    if kind == "t_":
        return Stmt(f"{v} = {x}.t_()", "t_", [v], [x])
    if kind == "transpose_":
        return Stmt(f"{v} = {x}.transpose_({_dim(g, r)}, {_dim(g, r)})", "transpose_", [v], [x])
    if kind == "unsqueeze_":
        return Stmt(f"{v} = {x}.unsqueeze_({g.rng.randint(-r - 1, r)})", "unsqueeze_", [v], [x])
    return Stmt(f"{v} = {x}.squeeze_()", "squeeze_", [v], [x])


def _mark_views(build):  # type: ignore[no-untyped-def]
    def wrapped(g: Gen) -> Stmt:
        s = build(g)
        g.views.update(s.defines)
        return s

    return wrapped


BUILDERS = {
    "view": (_mark_views(view), 20.0),
    "view_inplace": (view_inplace, 1.5),
}
