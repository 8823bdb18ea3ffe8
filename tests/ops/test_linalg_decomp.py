"""QR, symmetric eigendecomposition and SVD on "tpu" vs PyTorch CPU: geqrf,
householder_product, ormqr and linalg.qr (every mode, tall / wide / batched:
LAPACK's own Q and R), eigh / eigvalsh (both triangles), svd (reduced and
full, tall / wide / batched, a zero matrix), svdvals, pinv, the nuclear and
spectral norms and lstsq (every driver's outputs). Eigenvectors and singular
vectors are unique up to sign, so they compare by absolute value, and through
reconstruction and orthogonality (and the sign convention: each vector's
largest entry is positive); gradients go through sign-free functions.
No CPU fallback, in strict and defer mode."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import run

import torchtpu

L = torch.linalg
TOL = {"atol": 1e-4, "rtol": 1e-4}
D = "tpu"


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


STRICT = pytest.mark.parametrize("mode", ["strict"], indirect=True)  # compiles are slow

torch.manual_seed(0)
TALL = torch.randn(2, 5, 3)
WIDE = torch.randn(3, 5)
SQ = torch.randn(2, 4, 4)
SYM = SQ + SQ.mT


def no_fallback():
    assert not torchtpu.metrics.counters()["fallbacks"]


@STRICT
def test_geqrf_householder_ormqr(mode):
    for a in (TALL, WIDE):
        run(torch.geqrf, a, **TOL)
    a, tau = torch.geqrf(TALL)
    run(L.householder_product, a, tau, **TOL)
    run(lambda x, t: L.householder_product(x, t[..., :2]), a, tau, **TOL)
    c = torch.randn(2, 5, 2)
    for left in (True, False):
        for transpose in (False, True):
            other = c if left else c.mT
            run(
                lambda x, t, o, lf=left, tr=transpose: torch.ormqr(x, t, o, lf, tr),
                a,
                tau,
                other,
                grad=left != transpose,
                **TOL,
            )


def test_qr_modes():
    for a in (TALL, WIDE, SQ):
        for mode in ("reduced", "complete", "r"):
            run(lambda x, m=mode: L.qr(x, mode=m), a, **TOL)
    run(lambda x: L.qr(x[0, :, :0], mode="complete"), TALL, **TOL)  # no columns
    # Gradients (Q and R both used).
    run(lambda x: L.qr(x), TALL, grad=True, **TOL)


def _check_eigh(a, uplo):
    w, v = L.eigh(a, UPLO=uplo)
    tw, tv = (t.cpu() for t in L.eigh(a.to(D), UPLO=uplo))
    torch.testing.assert_close(tw, w, **TOL)
    torch.testing.assert_close(tv.abs(), v.abs(), **TOL)
    sym = (
        torch.tril(a) + torch.tril(a, -1).mT if uplo == "L" else torch.triu(a) + torch.triu(a, 1).mT
    )
    torch.testing.assert_close(tv @ torch.diag_embed(tw) @ tv.mT, sym, **TOL)
    torch.testing.assert_close(tv.mT @ tv, torch.eye(a.shape[-1]).expand_as(tv), **TOL)
    _check_sign_convention(tv)


def _check_sign_convention(vectors):
    # The entry of largest magnitude of each column is positive.
    idx = vectors.abs().argmax(-2, keepdim=True)
    assert (vectors.gather(-2, idx) > 0).all()


def test_eigh():
    for uplo in ("L", "U"):
        _check_eigh(SYM, uplo)
        _check_eigh(SQ, uplo)  # only one triangle is read
        run(lambda x, u=uplo: L.eigvalsh(x, UPLO=u), SQ, **TOL)
    run(lambda x: L.eigh(x + x.mT)[0], SQ, grad=True, **TOL)
    run(lambda x: L.eigh(x + x.mT)[1].abs(), SQ, grad=True, **TOL)
    no_fallback()


def _check_svd(a, full):
    u, s, vh = L.svd(a, full_matrices=full)
    tu, ts, tvh = (t.cpu() for t in L.svd(a.to(D), full_matrices=full))
    assert tu.shape == u.shape and tvh.shape == vh.shape
    k = s.shape[-1]
    torch.testing.assert_close(ts, s, **TOL)
    torch.testing.assert_close(tu[..., :k].abs(), u[..., :k].abs(), **TOL)
    torch.testing.assert_close(tvh[..., :k, :].abs(), vh[..., :k, :].abs(), **TOL)
    torch.testing.assert_close(tu[..., :k] @ torch.diag_embed(ts) @ tvh[..., :k, :], a, **TOL)
    eye_u = torch.eye(tu.shape[-1]).expand(*a.shape[:-2], -1, -1)
    eye_v = torch.eye(tvh.shape[-2]).expand(*a.shape[:-2], -1, -1)
    torch.testing.assert_close(tu.mT @ tu, eye_u, **TOL)
    torch.testing.assert_close(tvh @ tvh.mT, eye_v, **TOL)
    if a.abs().max() > 0:
        _check_sign_convention(tu[..., :k])


@STRICT
def test_householder_product_grad(mode):  # its backward is ~50 small programs
    a, tau = torch.geqrf(TALL)
    run(L.householder_product, a, tau, grad=True, **TOL)


def test_svd_defer(mode):
    _check_svd(TALL, False)
    no_fallback()


@STRICT
def test_svd(mode):
    _check_svd(TALL, False)
    _check_svd(WIDE, True)
    _check_svd(torch.zeros(3, 5), True)  # LAPACK's identities
    run(L.svdvals, TALL, **TOL)
    # Sign-free functions of U, S, V: their gradients match.
    run(
        lambda x: (lambda r: (r.U @ r.Vh, r.S))(L.svd(x, full_matrices=False)),
        TALL,
        grad=True,
        **TOL,
    )
    no_fallback()


@STRICT
def test_non_finite_gives_nan(mode):
    # LAPACK reports an error; tpu cannot raise from inside a program, so the
    # matrices with a NaN or infinity get NaNs, the others their results.
    a = TALL.clone()
    a[1, 2, 0] = float("inf")
    u, s, vh = (t.cpu() for t in L.svd(a.to(D), full_matrices=False))
    assert s[1].isnan().all() and u[1].isnan().all() and vh[1].isnan().all()
    torch.testing.assert_close(s[0], L.svdvals(a[0]), **TOL)
    w = L.eigvalsh(torch.where(SYM == SYM[1, 0, 0], float("nan"), SYM).to(D)).cpu()
    assert w[1].isnan().all() and not w[0].isnan().any()


@STRICT
def test_svd_users(mode):
    run(L.pinv, TALL, grad=True, **TOL)
    run(lambda x: L.pinv(x + x.mT, hermitian=True), SQ, **TOL)
    run(lambda x: L.matrix_norm(x, "nuc"), TALL, grad=True, **TOL)
    run(L.cond, TALL, **TOL)
    run(L.matrix_rank, TALL, **TOL)


@STRICT
def test_lstsq(mode):
    b = torch.randn(2, 5, 2)
    for driver in ("gels", "gelsy", "gelsd"):
        run(lambda x, y, d=driver: L.lstsq(x, y, driver=d), TALL, b, **TOL)
    run(lambda x, y: L.lstsq(x, y).solution, TALL, b, grad=True, **TOL)
