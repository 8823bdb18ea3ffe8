"""Sorting on "tpu" vs PyTorch CPU: sort (stable, descending, dims, NaN
last/first), argsort, msort, topk (largest/smallest), kthvalue, median and
nanmedian (full and .dim); forward and backward, with no CPU fallback."""

import pytest
import torch
from compare_cpu import run

D = "tpu"
NAN = float("nan")


torch.manual_seed(0)
X = torch.randn(3, 4, 6)
XN = X.clone()
XN[0, 1, 2] = NAN
XN[1, 2, 0] = NAN
XN[1, 2, 4] = NAN
XI = torch.randint(-3, 4, (3, 4, 6))  # many ties: stability matters
XB = XI > 0


@pytest.mark.parametrize(
    "x",
    [X, XN, XI, XB, X.double(), X.bfloat16()],
    ids=["float", "nan", "int64", "bool", "float64", "bfloat16"],
)
def test_sort(x):
    run(lambda t: t.sort(), x)
    run(lambda t: t.sort(1, descending=True), x)
    run(lambda t: torch.sort(t, dim=0, stable=True), x)
    run(lambda t: torch.sort(t, dim=-1, descending=True, stable=True), x)


def test_sort_grad_and_composites():
    run(lambda t: t.sort(1)[0], X, grad=True)
    run(lambda t: t.argsort(-1), XI)
    run(lambda t: t.argsort(0, descending=True), XN)
    run(lambda t: torch.argsort(t, dim=1, stable=True), XI)
    run(lambda t: t.msort(), X, grad=True)


def test_sort_zero_dim():
    run(lambda t: t.sort(), torch.tensor(3.0))


def check_topk(x, k, dim=-1, largest=True):
    """topk's values match the CPU's; ties (and NaNs) may come in another
    index order on the CPU (its quickselect is not stable), so the indices
    are checked to point at those values."""
    run(lambda t: t.topk(k, dim, largest)[0], x)
    values, indices = x.to(D).topk(k, dim, largest)
    torch.testing.assert_close(x.gather(dim, indices.cpu()), values.cpu(), equal_nan=True)


def test_topk():
    run(lambda t: t.topk(3), X)  # distinct values: indices too
    run(lambda t: t.topk(2, 0, largest=False), X)
    for x in [XN, XI.double()]:
        check_topk(x, 3)
        check_topk(x, 2, 1)
        check_topk(x, 2, 0, largest=False)
        check_topk(x, 6, -1, largest=False)


def test_topk_int_and_grad():
    run(lambda t: t.topk(2, 1), torch.randperm(60).reshape(3, 4, 5))
    run(lambda t: t.topk(2, 1)[0], X, grad=True)
    # unsorted order is unspecified: compare after sorting
    run(lambda t: t.topk(3, -1, sorted=False)[0].sort(-1)[0], X)


def test_kthvalue():
    # distinct values: PyTorch's CPU quickselect picks ties' indices arbitrarily
    x = torch.randperm(72).reshape(3, 4, 6).float()
    run(lambda t: t.kthvalue(2, 1), x)
    run(lambda t: t.kthvalue(1, -1, keepdim=True), x)
    run(lambda t: t.kthvalue(6), x)
    run(lambda t: t.kthvalue(3, 2)[0], X, grad=True)


def test_median():
    x = torch.randperm(72).reshape(3, 4, 6).float()
    run(lambda t: t.median(), x)
    run(lambda t: t.median(), XN)
    run(lambda t: t.median(), torch.tensor([1.0, 2.0, 3.0, 4.0]))
    run(lambda t: t.median(1), x)
    run(lambda t: t.median(-1, keepdim=True), x)
    run(lambda t: t.median(0), torch.randperm(12).reshape(3, 4))
    # a row with NaN: NaN, at its first NaN
    run(lambda t: t.median(2), XN)
    run(lambda t: t.median(1)[0], X, grad=True)


def test_nanmedian():
    run(lambda t: t.nanmedian(), XN)
    # rows with some (not all) NaN
    x = torch.randperm(72).reshape(3, 4, 6).float()
    x[0, 1, 2] = NAN
    x[1, 2, :3] = NAN
    run(lambda t: t.nanmedian(2), x)
    run(lambda t: t.nanmedian(-1, keepdim=True), x)
