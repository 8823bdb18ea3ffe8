"""Elementwise binary/unary ops, comparisons, clamp/where/fill on "tpu" against PyTorch CPU."""

import math

import pytest
import torch
from compare_cpu import clamp_nan_min

import torchtpu

DEV = "tpu"


def to_dev(v):
    if isinstance(v, torch.Tensor):
        return v.to(DEV)
    if isinstance(v, (list, tuple)):
        return type(v)(to_dev(x) for x in v)
    return v


def to_cpu(v):
    if isinstance(v, torch.Tensor):
        return v.cpu()
    if isinstance(v, (list, tuple)):
        return type(v)(to_cpu(x) for x in v)
    return v


def check(fn, *args, rtol=None, atol=None, **kwargs):
    """Runs fn on CPU and on tpu copies of the arguments, compares results (and
    the in-place-mutated arguments), and asserts that nothing fell back to the CPU."""
    cpu_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    dev_args = [to_dev(a) for a in args]
    expected = fn(*cpu_args, **kwargs)
    torchtpu.metrics.reset()
    got = fn(*dev_args, **kwargs)
    got_cpu = to_cpu(got)
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not fallbacks, f"CPU fallback: {fallbacks}"
    tol = {} if rtol is None else {"rtol": rtol, "atol": atol}
    torch.testing.assert_close(got_cpu, expected, equal_nan=True, **tol, msg=lambda m: f"{fn}: {m}")
    for c, d in zip(cpu_args, dev_args, strict=False):
        if isinstance(c, torch.Tensor):
            torch.testing.assert_close(d.cpu(), c, equal_nan=True, **tol)
    return got


def rand(*shape, dtype=torch.float32, low=-3.0, high=3.0):
    if dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    if dtype.is_floating_point:
        return (torch.rand(*shape) * (high - low) + low).to(dtype)
    if dtype == torch.uint8:
        return torch.randint(0, 250, shape, dtype=dtype)
    return torch.randint(int(low) - 2, int(high) + 3, shape, dtype=dtype)


def nonzero(*shape, dtype=torch.float32):
    x = rand(*shape, dtype=dtype)
    return torch.where(x == 0, torch.ones((), dtype=dtype), x)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


# ---------------------------------------------------------------- arithmetic


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.float64])
def test_add_sub_mul_alpha_broadcast(dtype):
    a, b = rand(4, 3, dtype=dtype), rand(3, dtype=dtype)
    check(torch.add, a, b)
    check(lambda x, y: torch.add(x, y, alpha=2), a, b)
    check(lambda x, y: torch.sub(x, y, alpha=3), a, b)
    check(torch.mul, a, b)
    check(lambda x, y: torch.rsub(x, y, alpha=2), a, b)


def test_python_scalars_and_promotion():
    f, i, b = rand(5), rand(5, dtype=torch.int32), rand(5, dtype=torch.bool)
    check(lambda x: x + 2, f)
    check(lambda x: x * 2.5, i)  # int tensor * float -> float32
    check(lambda x: x + 1, i)  # stays int32
    check(lambda x: x + 1, b)  # bool + int -> int64
    check(lambda x, y: x + y, b, b)  # bool add is or
    check(lambda x, y: x * y, b, b)
    check(lambda x: 3 - x, f)
    check(lambda x, y: x + y, i, f)  # int32 + float32 -> float32
    check(lambda x, y: x * y, i, torch.tensor(2.5))  # 0-d float tensor wins category
    check(lambda x: torch.add(x, 2, alpha=3), i)
    check(lambda x: torch.mul(x, True), i)
    h = rand(5, dtype=torch.bfloat16)
    check(lambda x: x * 0.1, h)
    check(lambda x, y: x + y, h, f)  # bf16 + f32 -> f32


def test_inplace_and_out():
    a, b = rand(4, 3), rand(4, 3)
    check(lambda x, y: x.add_(y, alpha=0.5), a, b)
    check(lambda x, y: x.mul_(y), a, b)
    check(lambda x, y: x.sub_(2.0), a, b)
    check(lambda x, y: x.div_(y), a, nonzero(4, 3))
    check(lambda x, y: torch.add(x, y, out=torch.empty_like(x)), a, b)
    check(
        lambda x, y: torch.mul(x, y, out=torch.empty(4, 3, dtype=torch.float64, device=x.device)),
        a,
        b,
    )
    i = rand(4, 3, dtype=torch.int64)
    check(lambda x: x.add_(3), i)
    check(lambda x, y: x.add_(y), a, i)  # float += int
    # in-place on a view writes through to the base
    check(lambda x: (x[1].mul_(3), x)[1], a)
    check(lambda x: (x.t().add_(1), x)[1], a)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16])
def test_div_modes(dtype):
    a, b = rand(6, 5, dtype=dtype, low=-9, high=9), nonzero(5, dtype=dtype)
    check(torch.div, a, b)
    check(lambda x, y: torch.div(x, y, rounding_mode="trunc"), a, b)
    check(lambda x, y: torch.div(x, y, rounding_mode="floor"), a, b)
    check(torch.floor_divide, a, b)
    check(lambda x: torch.div(x, -3, rounding_mode="floor"), a)
    check(lambda x: x / 3, a)
    check(torch.remainder, a, b)
    check(torch.fmod, a, b)
    check(lambda x: x % -4, a)
    check(lambda x: torch.fmod(x, 2.5), a)
    check(lambda x: torch.remainder(7, x), b)


def test_div_float_special_values():
    a = torch.tensor([5.0, -5.0, 7.0, -7.0, 0.0, -0.0, 1.0, -1.0, math.inf, math.nan, 3.0])
    b = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 0.0, 2.0, 1.0, math.inf])
    for mode in (None, "trunc", "floor"):
        check(lambda x, y, mode=mode: torch.div(x, y, rounding_mode=mode), a, b)
    check(torch.remainder, a, b)
    check(torch.fmod, a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float64])
def test_pow(dtype):
    if dtype.is_floating_point:
        a, e = rand(4, 5, dtype=dtype, low=0.1, high=3), rand(5, dtype=dtype)
    else:
        a, e = rand(4, 5, dtype=dtype), torch.randint(0, 5, (5,), dtype=dtype)
    check(torch.pow, a, e)
    check(lambda x: x**2, a)
    check(lambda x: x**3, a)
    check(lambda x: torch.pow(2, x), e)
    if dtype.is_floating_point:
        check(lambda x: x**0.5, a)
        check(lambda x: x**-1.5, a)
        check(lambda x: 2.5**x, e)
    check(lambda x, y: x.pow_(y), a, e)


def test_pow_integer_negative_exponent():
    a = torch.tensor([2, -1, 1, 0, -2, -1, 3])
    e = torch.tensor([-1, -3, -2, -1, -2, -4, 0])
    check(torch.pow, a, e)
    check(lambda x: x**2.5, torch.tensor([1, 2, 3]))  # int ** float -> float


def test_minmax_nan():
    a = torch.tensor([1.0, math.nan, 3.0, math.nan, -0.5])
    b = torch.tensor([2.0, 1.0, math.nan, math.nan, -1.0])
    for f in (torch.maximum, torch.minimum, torch.fmax, torch.fmin):
        check(f, a, b)
    check(torch.maximum, rand(3, 4, dtype=torch.int64), rand(4, dtype=torch.int64))
    check(torch.minimum, rand(3, 4, dtype=torch.bool), rand(4, dtype=torch.bool))


def test_atan2_hypot_copysign():
    a, b = rand(4, 5), rand(5)
    check(torch.atan2, a, b)
    check(torch.hypot, a, b)
    check(torch.copysign, a, b)
    check(lambda x: torch.copysign(x, -1.0), a)
    s = torch.tensor([1.0, -0.0, 0.0, math.inf, -math.inf, math.nan])
    check(torch.copysign, torch.ones(6), s)
    check(torch.hypot, s, torch.tensor([math.nan, 3.0, 0.0, math.nan, 1.0, 2.0]))
    check(torch.atan2, rand(5, dtype=torch.int64), rand(5, dtype=torch.int64))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.uint8])
def test_bitwise(dtype):
    a, b = rand(4, 5, dtype=dtype), rand(5, dtype=dtype)
    check(torch.bitwise_and, a, b)
    check(torch.bitwise_or, a, b)
    check(torch.bitwise_xor, a, b)
    check(torch.bitwise_not, a)
    check(lambda x: x & 1 if dtype != torch.bool else x & True, a)


def test_logical():
    a, b = torch.tensor([0.0, 1.5, math.nan, -2.0]), torch.tensor([0, 0, 3, 1])
    check(torch.logical_and, a, b)
    check(torch.logical_or, a, b)
    check(torch.logical_xor, a, b)
    check(torch.logical_not, a)
    check(torch.logical_not, b)
    check(lambda x, y: x.logical_and_(y), rand(4, dtype=torch.bool), rand(4, dtype=torch.bool))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_lerp_addcmul_addcdiv(dtype):
    a, b, c = rand(4, 5, dtype=dtype), rand(4, 5, dtype=dtype), nonzero(5, dtype=dtype)
    check(lambda x, y: torch.lerp(x, y, 0.3), a, b)
    check(lambda x, y: torch.lerp(x, y, 0.7), a, b)
    check(lambda x, y, w: torch.lerp(x, y, w), a, b, torch.rand(5).to(dtype))
    check(lambda x, y, z: torch.addcmul(x, y, z, value=0.5), a, b, c)
    check(lambda x, y, z: torch.addcdiv(x, y, z, value=-2), a, b, c)
    check(lambda x, y, z: x.addcdiv_(y, z, value=0.1), a, b, c)
    check(lambda x, y, z: x.addcmul_(y, z), a, b, c)


def test_addcmul_int():
    check(
        lambda x, y, z: torch.addcmul(x, y, z, value=2),
        *(rand(3, 4, dtype=torch.int64) for _ in range(3)),
    )


# ---------------------------------------------------------------- unary


UNARY_ANY = ["abs", "neg", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac"]
UNARY_FLOAT = [
    "exp",
    "exp2",
    "expm1",
    "sin",
    "cos",
    "tan",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "erf",
    "erfc",
    "sigmoid",
    "reciprocal",
]
UNARY_POS = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "acosh"]
UNARY_UNIT = ["asin", "acos", "atanh", "erfinv"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_unary_float(dtype):
    x = rand(64, dtype=dtype, low=-4, high=4)
    x[:4] = torch.tensor([0.0, -0.0, 0.5, -2.5])
    for name in UNARY_ANY + UNARY_FLOAT:
        check(getattr(torch, name), x)
    p = rand(64, dtype=dtype, low=1.0, high=50.0)
    for name in UNARY_POS:
        check(getattr(torch, name), p)
    u = rand(64, dtype=dtype, low=-0.999, high=0.999)
    for name in UNARY_UNIT:
        check(getattr(torch, name), u)


def test_unary_wide_range_f32():
    x = torch.cat([torch.randn(200) * s for s in (1e-6, 1.0, 10.0, 80.0)])
    x = torch.cat([x, torch.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0])])
    for name in [
        "erf",
        "erfc",
        "sinh",
        "cosh",
        "asinh",
        "atan",
        "tanh",
        "sigmoid",
        "expm1",
        "sign",
    ]:
        check(getattr(torch, name), x)
    u = torch.tensor([-1.0, 1.0, 0.0, 1e-30, 0.9999999, -0.9999999, 1.5, math.nan])
    for name in ["erfinv", "asin", "acos", "atanh"]:
        check(getattr(torch, name), u)
    check(torch.acosh, torch.tensor([1.0, 1.0000001, 2.0, 1e10, 1e30, 0.5, math.inf]))
    check(torch.asinh, torch.tensor([1e10, -1e30, 1e-20]))


def test_unary_float64():
    x = rand(32, dtype=torch.float64)
    for name in [
        "abs",
        "exp",
        "log1p",
        "sin",
        "tanh",
        "sinh",
        "atan",
        "sqrt",
        "sigmoid",
        "round",
        "frac",
    ]:
        check(getattr(torch, name), x.abs() if name == "sqrt" else x)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_unary_integer(dtype):
    x = rand(16, dtype=dtype)
    for name in [
        "abs",
        "sign",
        "sqrt",
        "exp",
        "sin",
        "sigmoid",
        "reciprocal",
        "floor",
        "round",
        "trunc",
    ]:
        if dtype == torch.bool and name in ("abs", "floor", "round", "trunc"):
            continue
        check(getattr(torch, name), x)
    if dtype != torch.bool:
        check(torch.neg, x)


def test_unary_inplace_out():
    x = rand(3, 4)
    check(lambda t: t.exp_(), x)
    check(lambda t: t.abs_(), x)
    check(lambda t: torch.sqrt(t.abs(), out=torch.empty_like(t)), x)
    check(lambda t: (t[:, 1].sigmoid_(), t)[1], x)
    check(lambda t: t.neg_(), rand(3, dtype=torch.int64))


def test_round_decimals_logit_nan_to_num():
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, 1.2345, 1234.5678, -0.125])
    check(lambda t: torch.round(t, decimals=2), x)
    check(lambda t: torch.round(t, decimals=-2), x * 100)
    p = torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0, -0.1, 1.1])
    check(torch.logit, p)
    check(lambda t: torch.logit(t, eps=0.05), p)
    s = torch.tensor([math.nan, math.inf, -math.inf, 1.0, -2.0])
    check(torch.nan_to_num, s)
    check(lambda t: torch.nan_to_num(t, nan=1.0, posinf=9.0, neginf=-9.0), s)
    check(torch.nan_to_num, s.to(torch.bfloat16))
    check(lambda t: t.nan_to_num_(), s)


def test_classification():
    s = torch.tensor([math.nan, math.inf, -math.inf, 1.0, -0.0, 0.0])
    for f in (
        torch.isnan,
        torch.isinf,
        torch.isposinf,
        torch.isneginf,
        torch.isfinite,
        torch.signbit,
    ):
        check(f, s)
        check(f, torch.tensor([1, -2, 0]))


# ---------------------------------------------------------------- comparisons


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.bfloat16])
def test_comparisons(dtype):
    a, b = rand(4, 5, dtype=dtype), rand(5, dtype=dtype)
    for f in (torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge):
        check(f, a, b)
        check(f, a, a)
    if dtype != torch.bool:
        check(lambda x: x > 1, a)
        check(lambda x: x <= 0.5, a)
        check(lambda x: x == 2, a)


def test_comparisons_nan_inplace_out():
    a = torch.tensor([1.0, math.nan, 3.0, math.nan])
    b = torch.tensor([1.0, 1.0, math.nan, math.nan])
    for f in (torch.eq, torch.ne, torch.lt, torch.ge):
        check(f, a, b)
    check(lambda x: torch.tensor([0.1], dtype=torch.bfloat16, device=x.device) == 0.1, a)
    check(lambda x, y: x.lt_(y), rand(5), rand(5))
    check(
        lambda x, y: torch.gt(x, y, out=torch.empty(5, dtype=torch.bool, device=x.device)),
        rand(5),
        rand(5),
    )


# ---------------------------------------------------------------- clamp / where / fill


def test_clamp():
    x = torch.tensor([math.nan, -2.0, -0.5, 0.0, 0.5, 2.0])
    check(lambda t: torch.clamp(t, -1, 1), x)
    check(lambda t: torch.clamp(t, min=0), x)
    check(lambda t: torch.clamp(t, max=0.25), x)
    check(lambda t: torch.clamp(t, 1, -1), x)  # min > max gives max
    check(clamp_nan_min, x)
    check(lambda t, lo, hi: torch.clamp(t, lo, hi), x, torch.full((6,), -0.25), torch.tensor(0.75))
    check(lambda t, lo: torch.clamp_min(t, lo), x, torch.zeros(6))
    check(lambda t, hi: torch.clamp_max(t, hi), x, torch.zeros(6))
    check(lambda t: t.clamp_(0, 1), x)
    check(lambda t: t.clamp_min_(0.1), x)
    check(lambda t: torch.clamp(t, 2.5, 7.5), torch.arange(10))  # int clamp with floats -> float
    check(lambda t: torch.clamp(t, 2, 7), torch.arange(10))


def test_where_masked_fill_fill_zero():
    c, a, b = rand(4, 5, dtype=torch.bool), rand(4, 5), rand(5, dtype=torch.int64)
    check(torch.where, c, a, b)
    check(lambda m, x: torch.where(m, x, 0.0), c, a)
    check(lambda m, x: torch.where(m, 2, x), c, b)
    check(lambda x, m: x.masked_fill(m, -1.5), a, c)
    check(lambda x, m: x.masked_fill(m, 7), b.expand(4, 5).clone(), c)
    check(lambda x, m: x.masked_fill_(m[0], float("-inf")), a, c)
    check(lambda x, m, v: x.masked_fill(m, v), a, c, torch.tensor(3.0))
    check(lambda x: x.fill_(2.5), a)
    check(lambda x: x.fill_(3), b)
    check(lambda x, v: x.fill_(v), a, torch.tensor(4.0))
    check(lambda x: x.zero_(), a)
    check(lambda x: (x[1:3].zero_(), x)[1], a)
    check(lambda x: x.zero_(), rand(3, dtype=torch.bool))


# ---------------------------------------------------------------- autograd


def grad_check(fn, *inputs, rtol=None, atol=None):
    """Forward and backward of fn on tpu against CPU."""
    cpu = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    dev = [x.to(DEV).requires_grad_(x.is_floating_point()) for x in inputs]
    out_c = fn(*cpu)
    torchtpu.metrics.reset()
    out_d = fn(*dev)
    g = torch.randn_like(out_c)
    out_c.backward(g)
    out_d.backward(g.to(DEV))
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not fallbacks, f"CPU fallback: {fallbacks}"
    tol = {} if rtol is None else {"rtol": rtol, "atol": atol}
    torch.testing.assert_close(out_d.cpu(), out_c.detach(), **tol)
    for c, d in zip(cpu, dev, strict=False):
        if c.requires_grad:
            torch.testing.assert_close(d.grad.cpu(), c.grad, **tol)


def test_autograd_binary():
    a, b = rand(4, 5), rand(5, low=0.5, high=2.0)
    grad_check(lambda x, y: (x + 2 * y) * x - y / x.abs().add(1), a, b)
    grad_check(lambda x, y: torch.pow(x.abs() + 0.1, y), a, b)
    grad_check(lambda x, y: torch.maximum(x, y) + torch.minimum(x, y) * 2, a, b)
    grad_check(lambda x, y: torch.atan2(x, y) + torch.hypot(x, y), a, b)
    grad_check(lambda x, y: torch.lerp(x, y.expand(4, 5), 0.3), a, b)
    grad_check(lambda x, y: torch.addcdiv(x, x, y, value=0.5), a, b)
    grad_check(lambda x, y: torch.where(x > 0, x, y) ** 2, a, b)


def test_autograd_unary():
    x = rand(4, 5, low=-0.9, high=0.9)
    grad_check(lambda t: t.exp() + t.sin() * t.cos() + t.tanh() + t.sigmoid() + t.erf(), x)
    grad_check(
        lambda t: (t.abs() + 0.5).log() + (t.abs() + 0.5).sqrt() + (t.abs() + 0.5).rsqrt(), x
    )
    grad_check(lambda t: t.asin() + t.atan() + t.sinh() + t.atanh() + t.erfinv(), x)
    grad_check(lambda t: t.clamp(-0.5, 0.5) + t.reciprocal() + t.square(), x)
