"""Matrix products on "tpu" vs PyTorch CPU: mm, bmm, mv, dot, addmm, baddbmm,
addbmm, addmv (beta/alpha), and the composites that reach them (linear, matmul),
forward and backward, with no CPU fallback."""

from functools import partial

import compare_cpu
import pytest
import torch
import torch.nn.functional as F

import torchtpu

D = "tpu"
# The shared CPU comparison, with this file's defaults.
run = partial(compare_cpu.run, grad=True, atol=1e-5, rtol=1e-5)


def r(*shape):
    return torch.randn(*shape)


def test_mm_bmm_mv_dot():
    run(torch.mm, r(5, 3), r(3, 4))
    run(torch.bmm, r(2, 5, 3), r(2, 3, 4))
    run(torch.mv, r(5, 3), r(3))
    run(torch.dot, r(7), r(7))


def test_addmm_beta_alpha():
    run(lambda s, a, b: torch.addmm(s, a, b), r(5, 4), r(5, 3), r(3, 4))
    run(lambda s, a, b: torch.addmm(s, a, b, beta=0.5, alpha=2.0), r(4), r(5, 3), r(3, 4))
    # beta == 0 ignores self, even NaN.
    s = torch.full((5, 4), float("nan"))
    run(lambda s, a, b: torch.addmm(s, a, b, beta=0), s, r(5, 3), r(3, 4), grad=False)


def test_addmm_inplace_and_out():
    s, a, b = r(5, 4), r(5, 3), r(3, 4)
    t = s.to(D)
    torchtpu.metrics.reset()
    t.addmm_(a.to(D), b.to(D), beta=2, alpha=-1)
    torch.testing.assert_close(t.cpu(), s.clone().addmm_(a, b, beta=2, alpha=-1))
    out = torch.empty(5, 4, device=D)
    torch.mm(a.to(D), b.to(D), out=out)
    torch.testing.assert_close(out.cpu(), a @ b)
    torchtpu.metrics.counters()["fallbacks"]


def test_baddbmm_addbmm_addmv():
    run(
        lambda s, a, b: torch.baddbmm(s, a, b, beta=0.5, alpha=3),
        r(2, 5, 4),
        r(2, 5, 3),
        r(2, 3, 4),
    )
    run(
        lambda s, a, b: torch.addbmm(s, a, b, beta=2, alpha=0.5),
        r(5, 4),
        r(3, 5, 2),
        r(3, 2, 4),
    )
    run(lambda s, a, b: torch.addmv(s, a, b, beta=0.5, alpha=2), r(5), r(5, 3), r(3))


def test_linear_and_matmul_backward():
    run(F.linear, r(6, 3), r(4, 3), r(4))
    run(F.linear, r(2, 6, 3), r(4, 3), r(4))
    run(F.linear, r(6, 3), r(4, 3))
    run(torch.matmul, r(2, 5, 3), r(3, 4))
    run(torch.matmul, r(2, 1, 5, 3), r(3, 3, 4))
    run(torch.matmul, r(3), r(2, 3, 4))


def test_int64_and_bf16():
    a = torch.randint(-5, 5, (4, 3))
    b = torch.randint(-5, 5, (3, 6))
    run(torch.mm, a, b, grad=False)
    run(torch.bmm, a[None], b[None], grad=False)
    x, y = r(8, 16).bfloat16(), r(16, 4).bfloat16()
    run(torch.mm, x, y, grad=False, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("shape", [(0, 3)])
def test_empty(shape):
    a = r(*shape)
    b = r(shape[1], 2)
    run(torch.mm, a, b, grad=False)


def test_complex_products():
    c = torch.complex64
    a, b = torch.randn(3, 4, dtype=c), torch.randn(4, 2, dtype=c)
    run(torch.mm, a, b, grad=False)
    run(torch.matmul, torch.randn(2, 3, 4, dtype=c), torch.randn(4, 5, dtype=c))
    run(lambda s, x, y: torch.addmm(s, x, y, beta=0.5), torch.randn(3, 2, dtype=c), a, b)
    run(torch.bmm, torch.randn(2, 3, 4, dtype=c), torch.randn(2, 4, 1, dtype=c))
