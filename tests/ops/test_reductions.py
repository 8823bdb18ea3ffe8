"""Reductions on "tpu" vs PyTorch CPU: sum/mean/prod/nansum (dims, keepdim,
dtype=), amax/amin, max/min (full and .dim, NaN propagation, first index),
argmax/argmin, aminmax, var/std(_mean) with correction, norm /
linalg.vector_norm for every order, logsumexp, any/all, count_nonzero, and
the cumulative ops; forward and backward, with no CPU fallback."""

import functools

import compare_cpu
import pytest
import torch

D = "tpu"
NAN = float("nan")
INF = float("inf")


# Reductions of NaN inputs give NaN gradients on both sides.
run = functools.partial(compare_cpu.run, grad_equal_nan=True)


torch.manual_seed(0)
X = torch.randn(3, 4, 5)
XN = X.clone()
XN[0, 1, 2] = NAN
XN[2, :, 3] = NAN
XI = torch.randint(-5, 6, (3, 4, 5))
XB = XI > 0


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.sum(),
        lambda t: t.sum((0, -1), keepdim=True),
        lambda t: t.sum(-2),
        lambda t: torch.sum(t, dim=[]),
        lambda t: t.mean(),
        lambda t: t.mean((0, 2)),
        lambda t: t.mean(-1, keepdim=True),
        lambda t: t.prod(1, keepdim=True),
    ],
)
def test_sum_mean_prod_float(fn):
    run(fn, X, grad=True)


def test_prod_full_grad():
    # prod's backward looks for zeros with nonzero (a data-dependent shape,
    # computed on the device in two steps).
    run(lambda t: t.prod(), X, grad=True)


@pytest.mark.parametrize("x", [XI, XB, X.double()], ids=["int64", "bool", "float64"])
def test_sum_prod_types(x):
    run(lambda t: t.sum(), x)
    run(lambda t: t.sum(1, keepdim=True), x)
    run(lambda t: t.prod(-1), x)


def test_dtype_arguments():
    run(lambda t: t.sum(1, dtype=torch.float64), X)
    run(lambda t: t.sum(dtype=torch.int32), XI)
    run(lambda t: torch.mean(t, 1, dtype=torch.float64), X)
    run(lambda t: t.mean(dtype=torch.float32), XI)
    run(lambda t: t.prod(1, dtype=torch.float64), XI)


def test_bfloat16_accumulates_in_float():
    x = torch.randn(4, 300).bfloat16()
    run(lambda t: t.sum(1), x, atol=1e-2, rtol=1e-2)
    run(lambda t: t.mean(), x, atol=1e-2, rtol=1e-2)
    run(lambda t: t.var(1), x, atol=1e-2, rtol=1e-2)


def test_nansum():
    run(lambda t: torch.nansum(t, 1), XN)
    run(lambda t: torch.nansum(t), XN)
    run(lambda t: torch.nansum(t, 0), XI)


@pytest.mark.parametrize("x", [X, XN, XI, XB], ids=["float", "nan", "int64", "bool"])
def test_amax_amin_max_min(x):
    run(lambda t: t.amax((0, 2)), x)
    run(lambda t: t.amin(-1, keepdim=True), x)
    run(lambda t: t.amax(), x)
    run(lambda t: t.max(), x)
    run(lambda t: t.min(), x)


@pytest.mark.parametrize("x", [XN, XI, XB], ids=["nan", "int64", "bool"])
def test_max_min_dim(x):
    # Values and the first index of the extreme (of the first NaN, if any).
    run(lambda t: t.max(1), x)
    run(lambda t: t.min(-1, keepdim=True), x)
    if x.dtype == torch.bool:
        return  # argmax/argmin reject bool
    run(lambda t: t.argmax(0), x)
    run(lambda t: t.argmin(2, keepdim=True), x)
    run(lambda t: t.argmax(), x)
    run(lambda t: t.argmin(keepdim=True), x)


def test_max_dim_ties_take_first_index():
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-INF, -INF, -INF, -INF]])
    run(lambda t: t.max(1), x)
    run(lambda t: t.min(1), x)
    run(lambda t: t.argmax(1), x)
    run(lambda t: t.argmin(1), x)


def test_max_min_grad():
    run(lambda t: t.max(1)[0], X, grad=True)
    run(lambda t: t.amax((0, 1)), X, grad=True)
    run(lambda t: t.amin(), X, grad=True)
    run(lambda t: t.max(), X, grad=True)


def test_aminmax():
    run(lambda t: torch.aminmax(t), X)
    run(lambda t: torch.aminmax(t, dim=1, keepdim=True), XI)
    run(lambda t: torch.aminmax(t, dim=-1), XN)


def test_zero_dim_input():
    s = torch.tensor(2.5)
    run(lambda t: t.sum(), s)
    run(lambda t: t.max(0), s)
    run(lambda t: t.argmax(), s)
    run(lambda t: t.amax(-1), s)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.var(),
        lambda t: t.var(1, keepdim=True),
        lambda t: torch.var(t, (0, 2), correction=0),
        lambda t: t.std(-1),
        lambda t: torch.std(t, 1, correction=2, keepdim=True),
        lambda t: torch.var_mean(t, 1),
        lambda t: torch.std_mean(t, (0, 1), correction=0, keepdim=True),
        lambda t: torch.var_mean(t),
    ],
)
def test_var_std(fn):
    run(fn, X, grad=True)
    run(fn, X.double())


def test_var_single_element_is_nan():
    run(lambda t: t.var(1), torch.randn(3, 1))


@pytest.mark.parametrize("p", [2, 1, INF, -INF, 0, 3, 0.5], ids=str)
def test_vector_norm(p):
    run(lambda t: torch.linalg.vector_norm(t, p, dim=1), X, grad=p not in (0,))
    run(lambda t: torch.linalg.vector_norm(t, p, dim=(0, 2), keepdim=True), X)


def test_norm_overloads():
    run(lambda t: t.norm(), X, grad=True)
    run(lambda t: torch.norm(t, 1, dim=1, keepdim=True), X, grad=True)
    run(lambda t: torch.ops.aten.norm.Scalar(t, 3), X)
    run(lambda t: torch.ops.aten.norm.ScalarOpt_dim(t, None, [1]), X)
    run(lambda t: torch.ops.aten.norm.ScalarOpt_dim_dtype(t, 2, [0], False, dtype=torch.float64), X)
    run(lambda t: torch.linalg.vector_norm(t, dtype=torch.float64), X)
    run(lambda t: torch.linalg.vector_norm(t, INF), XN)


def test_logsumexp():
    run(lambda t: torch.logsumexp(t, 1), X, grad=True)
    run(lambda t: torch.logsumexp(t, (0, 2), keepdim=True), X, grad=True)
    x = torch.tensor([[1.0, INF], [-INF, -INF], [0.0, -INF]])
    run(lambda t: torch.logsumexp(t, 1), x)
    run(lambda t: torch.logsumexp(t, (0, 1)), XI)


@pytest.mark.parametrize("x", [X, XI, XB, XN], ids=["float", "int64", "bool", "nan"])
def test_any_all(x):
    run(lambda t: t.any(), x)
    run(lambda t: t.all(), x)
    run(lambda t: t.any(1), x)
    run(lambda t: t.all(-1, keepdim=True), x)
    run(lambda t: torch.any(t, (0, 2)), x)
    run(lambda t: torch.all(t, dim=[]), x)  # an empty list reduces nothing


def test_any_uint8_keeps_type():
    run(lambda t: t.any(1), torch.tensor([[0, 3], [0, 0]], dtype=torch.uint8))


def test_count_nonzero():
    run(lambda t: torch.count_nonzero(t), XI)
    run(lambda t: torch.count_nonzero(t, dim=(0, 2)), XI)
    run(lambda t: torch.count_nonzero(t, dim=1), XB)


@pytest.mark.parametrize("x", [X, XI, X.bfloat16()], ids=["float", "int64", "bfloat16"])
def test_cumsum_cumprod(x):
    tol = dict(atol=2e-2, rtol=2e-2) if x.dtype == torch.bfloat16 else {}
    run(lambda t: t.cumsum(1), x, **tol)
    run(lambda t: t.cumsum(-1), x, **tol)
    run(lambda t: t.cumprod(0), x, **tol)


def test_cumsum_dtype_and_grad():
    run(lambda t: t.cumsum(0, dtype=torch.float64), X)
    run(lambda t: t.cumsum(2, dtype=torch.float32), XI)
    run(lambda t: t.cumsum(1), XB)
    run(lambda t: t.cumsum(1), X, grad=True)
    run(lambda t: t.cumprod(-1), torch.rand(3, 6) + 0.5, grad=True)


def test_cumsum_long_dim():
    # long dims take the log-step scan instead of one reduce_window
    x = torch.randn(3, 1000)
    run(lambda t: t.cumsum(1), x, atol=1e-4, rtol=1e-4)
    run(lambda t: t.cumsum(0), torch.randint(-9, 9, (200, 3)))
    run(lambda t: t.cumprod(1), torch.rand(2, 100) + 0.5, atol=1e-4, rtol=1e-4)
    run(lambda t: t.cumsum(-1), x, grad=True, atol=1e-4, rtol=1e-4)


def test_cummax_cummin_logcumsumexp():
    # running extreme and its last index (ties and NaN take the later one)
    for x in [XN, XI, XB]:
        run(lambda t: torch.cummax(t, 1), x)
        run(lambda t: torch.cummin(t, -1), x)
    run(lambda t: torch.cummax(t, 1), torch.randn(2, 100))  # log-step scan
    run(lambda t: torch.cummax(t, 0)[0], X, grad=True)
    run(lambda t: torch.logcumsumexp(t, 1), X, grad=True)
    run(lambda t: torch.logcumsumexp(t, 1), torch.tensor([[-INF, -INF, 1.0, -INF, INF]]))


def test_logcumsumexp_gradient_of_wide_range_input():
    # PyTorch's backward subtracts exponentials of logcumsumexp results; the
    # float32 scan runs in float64 so that its rounding does not show there.
    x = torch.randn(5, 5, 5) * 9
    run(lambda t: torch.logcumsumexp(t, 0), x, grad=True, atol=1e-3, rtol=1e-3)
