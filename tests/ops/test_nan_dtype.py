"""PyTorch's NaN and dtype rules on "tpu" vs the CPU, in strict and defer mode:
determinants of matrices holding NaN or inf, NaN through cumulative ops,
reductions, max/min/clamp, sorting and medians, bool/int promotion in true
division and pow, division by zero in floats, sign of NaN. Each case compares
values (NaN equal to NaN) and dtypes with the CPU's, with no CPU fallback."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import clamp_nan_min, run

import torchtpu

NAN, INF = float("nan"), float("inf")
T = torch.tensor


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


def ids(cases):
    return [c[0] for c in cases]


# ---- determinants -------------------------------------------------------------------

MATRICES = {
    "nan00": T([[NAN, 1.0], [1.0, 1.0]]),
    "nan01": T([[1.0, NAN], [1.0, 1.0]]),
    "nan11": T([[1.0, 2.0], [3.0, NAN]]),
    "inf00": T([[INF, 1.0], [1.0, 1.0]]),
    "inf11": T([[1.0, 2.0], [3.0, INF]]),
    "ninf": T([[-INF, 1.0], [1.0, 1.0]]),
    "allinf": T([[INF, INF], [INF, INF]]),
    "singular": T([[1.0, 2.0], [2.0, 4.0]]),
    "3x3nan": T([[1.0, 2.0, 3.0], [4.0, NAN, 6.0], [7.0, 8.0, 10.0]]),
    "3x3inf": T([[1.0, 2.0, 3.0], [4.0, INF, 6.0], [7.0, 8.0, 10.0]]),
    "1x1nan": T([[NAN]]),
    "batch": torch.stack(
        [T([[NAN, 1.0], [1.0, 1.0]]), T([[2.0, 1.0], [1.0, 1.0]]), T([[1.0, INF], [1.0, 1.0]])]
    ),
    "4x4nan": torch.where(torch.eye(4).bool().roll(1, 1), NAN, torch.arange(16.0).reshape(4, 4)),
}
DET_FNS = {
    "det": torch.det,
    "slogdet": torch.slogdet,
    "logdet": torch.logdet,
    "linalg.det": torch.linalg.det,
    "linalg.slogdet": torch.linalg.slogdet,
}


@pytest.mark.parametrize("matrix", list(MATRICES), ids=list(MATRICES))
@pytest.mark.parametrize("fn", list(DET_FNS), ids=list(DET_FNS))
def test_determinants_with_nan_and_inf(fn, matrix):
    run(DET_FNS[fn], MATRICES[matrix])


def test_det_float64_with_nan():
    run(torch.linalg.det, MATRICES["3x3nan"].double())
    run(torch.linalg.slogdet, MATRICES["batch"].double())


# ---- cumulative ops -----------------------------------------------------------------


def long_with_nan():
    x = torch.randn(100, generator=torch.Generator().manual_seed(0))
    x[37] = NAN
    return x


SEQUENCES = {
    "nan_first": T([NAN, 1.0, 2.0]),
    "nan_mid": T([1.0, NAN, 2.0, -1.0, 5.0]),
    "infs": T([1.0, INF, 2.0, -INF, 5.0]),
    "ninf_ninf": T([-INF, -INF, 1.0]),
    "inf_inf": T([INF, INF]),
    "ninf_inf": T([-INF, INF, -INF, INF]),
    "ties_nan": T([1.0, 3.0, 3.0, 2.0, NAN, NAN, 1.0]),
    "long": long_with_nan(),  # the doubling scan (longer than one reduce_window)
}
CUM_FNS = {
    "logcumsumexp": lambda x: torch.logcumsumexp(x, 0),
    "cummax": lambda x: torch.cummax(x, 0),
    "cummin": lambda x: torch.cummin(x, 0),
    "cumsum": lambda x: torch.cumsum(x, 0),
    "cumprod": lambda x: torch.cumprod(x, 0),
}


@pytest.mark.parametrize("seq", list(SEQUENCES), ids=list(SEQUENCES))
@pytest.mark.parametrize("fn", list(CUM_FNS), ids=list(CUM_FNS))
def test_cumulative_ops_propagate_nan(fn, seq):
    run(CUM_FNS[fn], SEQUENCES[seq])


def test_cumulative_ops_2d():
    m = T([[1.0, NAN, 3.0], [4.0, 5.0, NAN]])
    run(lambda x: torch.logcumsumexp(x, 1), m)
    run(lambda x: torch.cummax(x, 1), m)
    run(lambda x: torch.cummin(x, 0), m)


# ---- reductions, max/min, clamp, sorting ----------------------------------------------

V = T([1.0, NAN, 3.0, -2.0])
M = T([[1.0, NAN, 3.0], [NAN, NAN, 1.0], [2.0, 0.0, -1.0]])
LONG = torch.where(torch.arange(300) == 123, NAN, torch.randn(300))

REDUCTIONS = [
    ("logsumexp", lambda x: torch.logsumexp(x, 0), V),
    ("logsumexp_rows", lambda x: torch.logsumexp(x, 1), T([[NAN, INF], [INF, -INF], [-INF, -INF]])),
    ("max", torch.max, V),
    ("min", torch.min, V),
    ("amax", lambda x: torch.amax(x, 0), M),
    ("amin", lambda x: torch.amin(x, 1), M),
    ("amax_long", lambda x: torch.amax(x, 0), LONG),
    ("aminmax", torch.aminmax, V),
    ("max_dim", lambda x: torch.max(x, 1), M),
    ("min_dim", lambda x: torch.min(x, 0), M),
    ("argmax", lambda x: torch.argmax(x, 1), M),
    ("argmin", torch.argmin, V),
    ("argmin_long", lambda x: torch.argmin(x, 0), LONG),
    ("maximum", lambda x: torch.maximum(x, x.flip(0)), V),
    ("minimum", lambda x: torch.minimum(x, torch.zeros_like(x)), V),
    ("fmax", lambda x: torch.fmax(x, x.flip(0)), V),
    ("clamp", lambda x: torch.clamp(x, 0, 2), V),
    ("clamp_tensor", lambda x, lo: torch.clamp(x, min=lo), V, T([NAN, 0.0, 0.0, 0.0])),
    ("clamp_nan_bound", clamp_nan_min, V),
    ("hardtanh", torch.nn.functional.hardtanh, V),
    ("relu6", torch.nn.functional.relu6, V),
    ("sort", lambda x: torch.sort(x, 1), M),
    ("sort_descending", lambda x: torch.sort(x, 0, descending=True), T([INF, NAN, -INF, 0.0, NAN])),
    ("argsort", lambda x: torch.argsort(x, stable=True, dim=0), V),
    ("topk", lambda x: torch.topk(x, 3), T([1.0, NAN, 2.0, NAN, 5.0])),
    ("topk_smallest", lambda x: torch.topk(x, 2, largest=False), V),
    ("kthvalue", lambda x: torch.kthvalue(x, 2, 0), V),
    ("median", torch.median, T([1.0, 2.0, NAN, 4.0])),
    ("median_dim", lambda x: torch.median(x, 1), M),
    ("nanmedian", torch.nanmedian, T([1.0, 2.0, NAN, 4.0])),
    ("nanmedian_dim", lambda x: torch.nanmedian(x, 1), M),
    ("nansum", torch.nansum, V),
    ("nanmean", lambda x: torch.nanmean(x, 1), M),
    ("max_pool2d", lambda x: torch.nn.functional.max_pool2d(x, 2, return_indices=True),
     T([[[[1.0, NAN], [3.0, 4.0]]]])),
    ("softmax", lambda x: torch.softmax(x, 0), T([INF, 1.0])),
    ("heaviside", lambda x: torch.heaviside(x, torch.full_like(x, 0.5)), T([1.0, NAN, 0.0, -2.0])),
    ("sign", torch.sign, T([NAN, -NAN, 0.0, -0.0, -INF])),
    ("sgn", torch.sgn, T([NAN, -NAN, 0.0, -0.0, INF])),
    ("nan_to_num", lambda x: torch.nan_to_num(x, 1.0, 2.0, 3.0), T([NAN, INF, -INF])),
]  # fmt: skip


@pytest.mark.parametrize("case", REDUCTIONS, ids=ids(REDUCTIONS))
def test_nan_in_reductions_max_min_and_sorting(case):
    _, fn, *inputs = case
    run(fn, *inputs)


# ---- promotion in true division and pow, division by zero -------------------------------

B = T([True, False])
N = T([3, -3, 0])
F = T([1.5, -1.5, 0.0])

ARITHMETIC = [
    ("div_bool_by_false", torch.div, B, T(False)),
    ("div_bool_by_bools", torch.div, B, T([False, False])),
    ("div_bool_by_0d_float", torch.div, B, T(0.0)),
    ("div_bool_by_python_0", lambda a: torch.div(a, 0), B),
    ("div_bool_by_python_false", lambda a: torch.div(a, False), B),
    ("true_divide_bool", torch.true_divide, B, T(False)),
    ("rtruediv_bool", lambda a: 1 / a, B),
    ("div_int_by_0d_int", torch.div, N, T(0)),
    ("div_int_by_python_0", lambda a: a / 0, N),
    ("div_uint8_by_0d", torch.div, T([7, 0], dtype=torch.uint8), T(0, dtype=torch.uint8)),
    ("div_int_by_0d_f16", torch.div, N, T(0.0, dtype=torch.float16)),
    ("div_bool_by_0d_f64", torch.div, B, T(0.0, dtype=torch.float64)),
    ("bool_times_inf", lambda a, b: a * b, B, T([INF, INF])),
    ("bool_times_0d_nan", lambda a, b: a * b, B, T(NAN)),
    ("bool_float_times_inf", lambda a, b: a.float() * b, B, T([INF, NAN])),
    ("bool_bf16_times_inf", lambda a, b: a * b, B, T([INF, INF]).bfloat16()),
    ("bool_mask_matmul", lambda a, b: a.float() @ b, B, T([INF, 1.0])),
    ("floor_divide_by_0", torch.floor_divide, F, torch.zeros(3)),
    ("floor_divide_by_python_0", lambda a: torch.floor_divide(a, 0.0), F),
    ("div_floor_by_neg_0", lambda a: torch.div(a, -0.0, rounding_mode="floor"), F),
    ("div_trunc_by_0", lambda a: torch.div(a, 0.0, rounding_mode="trunc"), F),
    ("div_floor_inf", lambda a, b: torch.div(b, a, rounding_mode="floor"), T([2.0] * 3),
     T([INF, -INF, NAN])),
    ("remainder_by_0", torch.remainder, F, torch.zeros(3)),
    ("remainder_by_inf", lambda a: torch.remainder(a, INF), F),
    ("remainder_of_inf", lambda a, b: torch.remainder(b, a), T([2.0] * 3), T([INF, -INF, NAN])),
    ("fmod_by_0", torch.fmod, F, torch.zeros(3)),
    ("fmod_by_inf", lambda a: torch.fmod(a, INF), F),
    ("int_floor_divide_by_float_0", lambda a: torch.floor_divide(a, 0.0), N),
    ("int_remainder_by_float_0", lambda a: torch.remainder(a, 0.0), N),
    ("pow_bool_false", lambda a: a**False, B),
    ("pow_bool_true", lambda a: a**True, B),
    ("pow_bool_0", lambda a: a**0, B),
    ("pow_bool_2", lambda a: a**2, B),
    ("pow_bool_2.0", lambda a: a**2.0, B),
    ("pow_bool_int_tensor", torch.pow, B, T([2, 3])),
    ("pow_bool_0d_float", torch.pow, B, T(2.0)),
    ("pow_int_bool_tensor", torch.pow, N, T([True, False, True])),
    ("pow_int_true", lambda a: a**True, N),
    ("pow_int_0.5", lambda a: a**0.5, N),
    ("pow_int_by_neg_int_tensor", torch.pow, T([1, -1, 2, 0]), T([-1, -1, -1, -1])),
    ("pow_int8_wraps", lambda a: torch.pow(a, 5), T([3, 5], dtype=torch.int8)),
    ("pow_python_int_base_bool", lambda a: 2**a, B),
    ("pow_python_float_base_bool", lambda a: 2.5**a, B),
    ("pow_python_int_base_int", lambda a: torch.pow(2, a), T([0, 1, 3])),
    ("pow_python_nan_base", lambda a: torch.pow(NAN, a), T([0, 1])),
    ("pow_nan_0", lambda a: torch.pow(a, 0), T([NAN])),
    ("pow_1_nan", lambda a: torch.pow(a, NAN), T([1.0])),
    ("pow_zero_negative", lambda a: torch.pow(a, -1), T([0.0, -0.0])),
    ("float_power_bool", lambda a: torch.float_power(a, 2), B),
    ("square_bool", torch.square, B),
    ("reciprocal_bool", torch.reciprocal, B),
    ("sqrt_bool", torch.sqrt, B),
]  # fmt: skip


@pytest.mark.parametrize("case", ARITHMETIC, ids=ids(ARITHMETIC))
def test_promotion_and_division_by_zero(case):
    _, fn, *inputs = case
    run(fn, *inputs)


def test_pow_bool_tensor_to_bool_tensor_raises_like_the_cpu():
    # The CPU kernel has no bool pow: NotImplementedError on both devices.
    for exponent in (T([True, False]), T(True)):
        with pytest.raises(NotImplementedError):
            torch.pow(B, exponent)
        with pytest.raises(NotImplementedError):
            torch.pow(B.to("tpu"), exponent.to("tpu"))
    with pytest.raises(NotImplementedError):
        torch.pow(True, B.to("tpu"))


@pytest.mark.parametrize("base", [B, N], ids=["bool", "int"])
def test_pow_integer_to_negative_integer_raises_every_time(base):
    # The check depends on the exponent's value: it must not be skipped once
    # the same call signature ran with another exponent.
    x = base.to("tpu")
    assert torch.equal((x**2).cpu(), base**2)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            x**-1
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            x.clone().pow_(-2)
    assert torch.equal((x**3).cpu(), base**3)
