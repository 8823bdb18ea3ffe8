"""Builders of elementwise ops: unary, binary (broadcasting, type promotion, Python numbers,
in-place and out= forms) and ternary (where, clamp, lerp, addcmul/addcdiv)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.fuzz.program import Stmt

if TYPE_CHECKING:
    from tests.fuzz.gen import Gen

UNARY = (
    "abs neg sign sgn floor ceil round trunc frac exp exp2 expm1 log log2 log10 log1p sqrt "
    "rsqrt reciprocal sin cos tan tanh sigmoid erf erfc relu square bitwise_not logical_not "
    "isnan isinf isfinite signbit nan_to_num positive asin atan sinh"
).split()
NO_INPLACE = {"isnan", "isinf", "isfinite", "signbit", "positive"}
NO_OUT = {"relu", "isnan", "isinf", "isfinite", "positive"}

# name: (operator or "", accepts a Python number as the second operand)
BINARY: dict[str, tuple[str, bool]] = {
    "add": ("+", True),
    "sub": ("-", True),
    "mul": ("*", True),
    "div": ("/", True),
    "floor_divide": ("//", True),
    "true_divide": ("", True),
    "pow": ("**", True),
    "atan2": ("", False),
    "hypot": ("", False),
    "fmod": ("", True),
    "remainder": ("%", True),
    "maximum": ("", False),
    "minimum": ("", False),
    "fmax": ("", False),
    "fmin": ("", False),
    "eq": ("==", True),
    "ne": ("!=", True),
    "lt": ("<", True),
    "le": ("<=", True),
    "gt": (">", True),
    "ge": (">=", True),
    "bitwise_and": ("&", True),
    "bitwise_or": ("|", True),
    "bitwise_xor": ("^", True),
    "bitwise_left_shift": ("<<", True),
    "bitwise_right_shift": (">>", True),
    "logical_and": ("", False),
    "logical_or": ("", False),
    "logical_xor": ("", False),
    "copysign": ("", True),
    "xlogy": ("", True),
}
AUGMENTED = {"+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"}
NO_INPLACE_BINARY = {"maximum", "minimum", "fmax", "fmin"}
WEIGHTS = {"add": 4, "sub": 3, "mul": 4, "div": 3, "pow": 2, "remainder": 2, "fmod": 2}


def _fmt(x: object) -> str:
    from tests.fuzz.gen import fmt_num

    return fmt_num(x) if isinstance(x, int | float | bool) else str(x)


def _target(g: Gen) -> str:
    """A tensor to write in place: a view most of the time (sometimes an expanded one)."""
    if g.probe(0.03, 0.25):
        return g.expanded()
    views = [n for n in g.views if n in g.ns]
    if views and g.chance(0.6):
        return g.rng.choice(sorted(views))
    return g.operand()


def unary(g: Gen) -> Stmt:
    op = g.rng.choice(UNARY)
    form = g.rng.choices(["func", "method", "inplace", "out"], weights=[4, 3, 3, 1])[0]
    if op in NO_INPLACE and form == "inplace" or op in NO_OUT and form == "out":
        form = "func"
    x = _target(g) if form == "inplace" else g.operand()
    extra = ", decimals=1" if op == "round" and g.chance(0.3) else ""
    v = g.name()
    if form == "func":
        return Stmt(f"{v} = torch.{op}({x}{extra})", op, [v])
    if form == "method":
        return Stmt(f"{v} = {x}.{op}({extra.lstrip(', ')})", op, [v])
    if form == "inplace":
        return Stmt(f"{v} = {x}.{op}_({extra.lstrip(', ')})", op + "_", [v], [x])
    t = g.t(x)
    o = g.out_tensor(tuple(t.shape), str(t.dtype).removeprefix("torch."))
    return Stmt(f"{v} = torch.{op}({x}{extra}, out={o})", op + "(out=)", [v], [o])


def _second(g: Gen, x: str, accepts_number: bool, inplace: bool = False) -> str:
    """The second operand of a binary op with first operand `x`; for in-place ops, sometimes
    one self cannot take: larger than self, or a float number for an integer self."""
    t = g.t(x)
    dtype = str(t.dtype).removeprefix("torch.")
    if inplace and accepts_number and not t.is_floating_point() and g.probe(0.05, 0.3):
        return _fmt(g.rng.choice([0.5, -1.5, 2.0]))
    if accepts_number and g.chance(0.25):
        return _fmt(g.number(dtype))
    dtype = dtype if g.chance(0.5) else g.dtype()
    if inplace and g.probe(0.05, 0.3):
        return g.operand(g.larger_shape(tuple(t.shape)), dtype, reuse=0.2)
    return g.operand(g.bcast_shape(tuple(t.shape)), dtype, reuse=0.4)


def binary(g: Gen) -> Stmt:
    ops = list(BINARY)
    op = g.rng.choices(ops, weights=[WEIGHTS.get(o, 1) for o in ops])[0]
    sym, accepts_number = BINARY[op]
    forms = ["func", "method", "operator", "rop", "inplace", "augmented", "out"]
    weights = [4, 2, 3 if sym else 0, 1 if sym and accepts_number else 0, 3, 1 if sym else 0, 1]
    if op in NO_INPLACE_BINARY:
        weights[4] = weights[5] = 0
    form = g.rng.choices(forms, weights=weights)[0]
    kw = ""
    label = op
    if op == "div" and g.chance(0.4):
        mode = g.rng.choice(["trunc", "floor"])
        kw = f', rounding_mode="{mode}"'
        label = f"div(rounding_mode={mode})"
    elif op in ("add", "sub") and g.chance(0.2):
        kw = f", alpha={_fmt(g.rng.choice([2, -1, 0.5]))}"
    if kw and form in ("operator", "rop", "augmented"):
        form = "func"
    if form == "augmented" and sym not in AUGMENTED:
        form = "inplace"
    inplace = form in ("inplace", "augmented")
    if op == "sub" and not inplace and g.probe(0.02, 0.2):
        x = g.operand(dtype="bool")  # bool - anything must raise
    else:
        x = _target(g) if inplace else g.operand()
    y = _second(g, x, accepts_number, inplace) if form != "rop" else ""
    v = g.name()
    if form == "func":
        return Stmt(f"{v} = torch.{op}({x}, {y}{kw})", label, [v])
    if form == "method":
        return Stmt(f"{v} = {x}.{op}({y}{kw})", label, [v])
    if form == "operator":
        return Stmt(f"{v} = {x} {sym} {y}", label, [v])
    if form == "rop":
        n = _fmt(g.number(str(g.t(x).dtype).removeprefix("torch.")))
        n = f"({n})" if n.startswith("-") else n
        return Stmt(f"{v} = {n} {sym} {x}", f"r{label}", [v])
    if form == "inplace":
        return Stmt(f"{v} = {x}.{op}_({y}{kw})", label + "_", [v], [x])
    if form == "augmented":
        return Stmt(f"{x} {sym}= {y}", label + "_", [], [x])
    shape = tuple(g.t(x).shape)
    o = g.out_tensor(shape, g.dtype())
    return Stmt(f"{v} = torch.{op}({x}, {y}{kw}, out={o})", label + "(out=)", [v], [o])


def where(g: Gen) -> Stmt:
    x = g.operand()
    shape = tuple(g.t(x).shape)
    cond = g.operand(g.bcast_shape(shape), "bool", reuse=0.5)
    y = _fmt(g.number()) if g.chance(0.3) else g.operand(g.bcast_shape(shape), reuse=0.4)
    v = g.name()
    if g.chance(0.2):
        return Stmt(f"{v} = {x}.where({cond}, {y})", "where", [v])
    if g.chance(0.2):
        a, b = (y, x) if g.chance(0.5) else (_fmt(g.number()), x)
        return Stmt(f"{v} = torch.where({cond}, {a}, {b})", "where", [v])
    return Stmt(f"{v} = torch.where({cond}, {x}, {y})", "where", [v])


def clamp(g: Gen) -> Stmt:
    inplace = g.chance(0.35)
    x = _target(g) if inplace else g.operand()
    t = g.t(x)
    dtype = str(t.dtype).removeprefix("torch.")

    def bound() -> str:
        r = g.rng.random()
        if r < 0.2:
            return "None"
        if r < 0.6:
            return _fmt(g.number(dtype))
        return g.operand(g.bcast_shape(tuple(t.shape)), dtype if g.chance(0.7) else None, 0.3)

    lo, hi = bound(), bound()
    if lo == hi == "None":
        lo = "0"
    v = g.name()
    which = g.rng.random()
    if which < 0.2 and lo != "None":
        fn = "clamp_min"
        args = lo
    elif which < 0.35 and hi != "None":
        fn = "clamp_max"
        args = hi
    else:
        fn = "clamp"
        args = f"{lo}, {hi}" if g.chance(0.6) else f"min={lo}, max={hi}"
    if inplace:
        return Stmt(f"{v} = {x}.{fn}_({args})", fn + "_", [v], [x])
    if g.chance(0.5):
        return Stmt(f"{v} = torch.{fn}({x}, {args})", fn, [v])
    return Stmt(f"{v} = {x}.{fn}({args})", fn, [v])


def pointwise3(g: Gen) -> Stmt:
    """lerp, addcmul and addcdiv, out of place and in place."""
    op = g.rng.choice(["lerp", "addcmul", "addcdiv"])
    inplace = g.chance(0.35)
    x = _target(g) if inplace else g.operand(dtype=g.rng.choice(["float32", "bfloat16"]))
    t = g.t(x)
    dtype = str(t.dtype).removeprefix("torch.") if g.chance(0.8) else None
    a = g.operand(g.bcast_shape(tuple(t.shape)), dtype, reuse=0.4)
    v = g.name()
    if op == "lerp":
        w = _fmt(g.rng.choice([0.5, 0.25, 2.0])) if g.chance(0.5) else None
        w = w or g.operand(g.bcast_shape(tuple(t.shape)), dtype, reuse=0.3)
        args = f"{a}, {w}"
    else:
        b = g.operand(g.bcast_shape(tuple(t.shape)), dtype, reuse=0.3)
        args = f"{a}, {b}" + (f", value={_fmt(g.rng.choice([2, -0.5]))}" if g.chance(0.4) else "")
    if inplace:
        return Stmt(f"{v} = {x}.{op}_({args})", op + "_", [v], [x])
    return Stmt(f"{v} = torch.{op}({x}, {args})", op, [v])


BUILDERS = {
    "unary": (unary, 12.0),
    "binary": (binary, 24.0),
    "where": (where, 3.0),
    "clamp": (clamp, 3.0),
    "pointwise3": (pointwise3, 2.0),
}
