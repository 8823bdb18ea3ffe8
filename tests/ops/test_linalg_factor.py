"""Factorizations and what is built on them on "tpu" vs PyTorch CPU: Cholesky
(info and partial factor of matrices that are not positive definite),
cholesky_inverse / cholesky_solve, triangular solves (left / right, upper /
lower, unitriangular, broadcast batches), LU with LAPACK's pivots (square,
wide, tall, singular), lu_unpack / lu_solve, LDL^T with Bunch-Kaufman pivots
and ldl_solve, inv, solve, det, slogdet, matrix_power, tensorinv / tensorsolve
and matrix_exp; forward and input gradients, with no CPU fallback (strict mode;
one chain also in defer mode)."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import run

import torchtpu

L = torch.linalg
TOL = {"atol": 1e-4, "rtol": 1e-4}


torch.manual_seed(0)
A = torch.randn(2, 3, 4, 4)  # batched square, well conditioned enough
SPD = A @ A.mT + 4 * torch.eye(4)
NPD = torch.tensor([[4.0, 2, 1], [2, 1, 3], [1, 3, 5]])  # fails at the second minor
SING = torch.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])  # rank 2: exact zero pivot
ZCOL = torch.tensor([[0.0, 1, 2], [0, 3, 4], [0, 5, 6]])  # zero first column


def test_cholesky():
    for upper in (False, True):
        run(lambda a, u=upper: L.cholesky(a, upper=u), SPD, grad=True, **TOL)
        # Not positive definite: LAPACK's info and partial factor.
        run(lambda a, u=upper: L.cholesky_ex(a, upper=u), torch.stack([NPD, 3 * torch.eye(3)]))
    run(lambda a: torch.cholesky(a, upper=True), SPD, **TOL)
    with pytest.raises(torch.linalg.LinAlgError):
        L.cholesky(NPD.to("tpu"))


def test_cholesky_inverse_and_solve():
    for upper in (False, True):
        f = L.cholesky(SPD, upper=upper)
        run(lambda x, u=upper: torch.cholesky_inverse(x, upper=u), f, grad=True, **TOL)
        run(
            lambda b, x, u=upper: torch.cholesky_solve(b, x, upper=u),
            torch.randn(3, 4, 2),
            f,
            grad=True,
            **TOL,
        )


@pytest.mark.parametrize(
    ("upper", "left", "unit"),
    [(False, True, False), (True, False, False), (False, False, True), (True, True, True)],
)
def test_solve_triangular(upper, left, unit):
    a = torch.randn(2, 1, 4, 4) + 4 * torch.eye(4)  # the other triangle is ignored
    b = torch.randn(3, 4, 2) if left else torch.randn(3, 2, 4)
    run(
        lambda a, b: L.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
        a,
        b,
        grad=True,
        **TOL,
    )


def test_triangular_solve():
    a = torch.randn(2, 4, 4) + 4 * torch.eye(4)
    b = torch.randn(2, 4, 3)
    for upper in (False, True):
        for transpose in (False, True):
            run(
                lambda b, a, u=upper, t=transpose: torch.triangular_solve(b, a, u, t),
                b,
                a,
                grad=True,
                **TOL,
            )
    run(lambda b, a: torch.triangular_solve(b, a, unitriangular=True), b, a, **TOL)


@pytest.mark.parametrize(
    "x",
    [A, torch.randn(2, 3, 5), torch.randn(5, 3), torch.stack([SING, ZCOL, torch.zeros(3, 3)])],
    ids=["batched", "wide", "tall", "singular"],
)
def test_lu(x):
    run(L.lu_factor_ex, x, **TOL)
    run(L.lu, x, **TOL)
    run(lambda x: torch.lu_unpack(*L.lu_factor_ex(x)[:2]), x, **TOL)


def test_lu_grad_and_solve():
    run(L.lu_factor, A, grad=True, **TOL)
    run(L.lu, torch.randn(2, 3, 5), grad=True, **TOL)
    lu, piv = L.lu_factor(A)
    for left in (False, True):
        for adjoint in (False, True):
            run(
                lambda f, b, lf=left, j=adjoint: L.lu_solve(
                    f, piv.to(f.device), b, left=lf, adjoint=j
                ),
                lu,
                torch.randn(3, 4, 4),
                grad=left != adjoint,
                **TOL,
            )


def test_inv_solve():
    run(L.inv, A, grad=True, **TOL)
    run(L.inv_ex, A, **TOL)
    run(L.solve, A, torch.randn(3, 4, 2), grad=True, **TOL)
    run(L.solve, A, torch.randn(4), grad=True, **TOL)
    run(lambda a, b: L.solve(a, b, left=False), A, torch.randn(2, 4), grad=True, **TOL)
    run(L.solve_ex, A, torch.randn(2, 3, 4, 1), **TOL)
    run(lambda a: L.inv_ex(a)[1], torch.stack([SING, torch.eye(3)]))  # info
    with pytest.raises(torch.linalg.LinAlgError):
        L.inv(SING.to("tpu"))


def test_defer_chain():
    with torchtpu.mode("defer"):
        run(
            lambda a, b: L.solve(a, b) + L.inv(a) @ b + L.det(a)[..., None, None],
            A,
            torch.randn(4, 4),
            grad=True,
            **TOL,
        )
        with pytest.raises(torch.linalg.LinAlgError):
            L.inv(SING.to("tpu"))


def test_det_slogdet():
    run(torch.logdet, SPD, grad=True, **TOL)
    run(L.det, A, grad=True, **TOL)
    run(L.slogdet, A, grad=True, **TOL)
    run(L.det, torch.stack([SING, ZCOL, torch.eye(3)]))  # exact zeros
    run(L.slogdet, torch.stack([SING, ZCOL, -torch.eye(3)]))  # sign 0, -inf
    run(L.det, torch.randn(2, 0, 0))


def test_matrix_power_tensorinv_tensorsolve():
    for n in (-2, 3):
        run(lambda a, n=n: L.matrix_power(a, n), A, grad=True, **TOL)
    run(lambda a: L.tensorinv(a, ind=2), torch.randn(4, 3, 6, 2), grad=True, **TOL)
    run(L.tensorsolve, torch.randn(2, 3, 6), torch.randn(2, 3), grad=True, **TOL)


def test_matrix_exp():
    run(L.matrix_exp, A, grad=True, **TOL)
    run(L.matrix_exp, torch.randn(2, 6, 6) * 4, **{"atol": 1e-3, "rtol": 1e-4})
    run(L.matrix_exp, torch.zeros(3, 3))


def test_ldl():
    sym = A + A.mT  # indefinite: 2x2 pivots
    odd = torch.stack([torch.tensor([[0.0, 1, 2], [1, 0, 3], [2, 3, 0]]), torch.zeros(3, 3)])
    for x in (sym, SPD, odd):
        run(L.ldl_factor_ex, x, **TOL)
    ld, piv = L.ldl_factor(sym)
    run(lambda f, b: L.ldl_solve(f, piv.to(f.device), b), ld, torch.randn(3, 4, 2), **TOL)
