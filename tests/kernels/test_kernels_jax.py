"""JAX, Pallas and Helion kernels on "tpu", compared with PyTorch on the CPU."""

from __future__ import annotations

import pytest
import torch

import torchtpu
from torchtpu import kernels

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import kernel_examples  # noqa: E402, F401


@pytest.fixture(autouse=True)
def _no_fallback():
    torchtpu.set_mode("strict")
    torchtpu.set_cpu_fallback(False)
    yield
    torchtpu.set_cpu_fallback(True)
    torchtpu.set_mode("strict")


@kernels.jax_kernel("kjax::gelu_mul", static_argnames=("approximate",), differentiable=True)
def gelu_mul(x, y, approximate: bool = False):
    return jax.nn.gelu(x, approximate=approximate) * y


@kernels.jax_kernel("kjax::split_stats", num_outputs=2)
def split_stats(x, idx):
    return jnp.take(x, idx, axis=0), jnp.cumsum(idx)


def test_jax_kernel_matches_cpu_with_jax_vjp():
    x = torch.randn(6, 10)
    y = torch.randn(6, 10)
    for approximate in (False, True):
        xt = x.to("tpu").requires_grad_()
        yt = y.to("tpu").requires_grad_()
        out = gelu_mul(xt, yt, approximate=approximate)
        (out * out).sum().backward()
        xc, yc = x.clone().requires_grad_(), y.clone().requires_grad_()
        mode = "tanh" if approximate else "none"
        ref = torch.nn.functional.gelu(xc, approximate=mode) * yc
        (ref * ref).sum().backward()
        torch.testing.assert_close(out.detach().cpu(), ref.detach())
        torch.testing.assert_close(xt.grad.cpu(), xc.grad)
        torch.testing.assert_close(yt.grad.cpu(), yc.grad)


def test_exports_are_cached_by_signature():
    x, a, b = (torch.randn(3, 4, device="tpu") for _ in range(3))
    gelu_mul(a, x).cpu()
    before = torchtpu.metrics.counters()["compiles"]
    gelu_mul(b, x).cpu()  # same signature: nothing new to export or compile
    assert torchtpu.metrics.counters()["compiles"] == before
    gelu_mul(b, x, approximate=True).cpu()  # a new static value: a new program
    assert torchtpu.metrics.counters()["compiles"] == before + 1


def test_int64_inputs_and_several_outputs():
    x = torch.randn(5, 3)
    idx = torch.tensor([4, 0, 2, 2], dtype=torch.int64)
    rows, sums = split_stats(x.to("tpu"), idx.to("tpu"))
    assert sums.dtype == torch.int64
    torch.testing.assert_close(rows.cpu(), x[idx])
    torch.testing.assert_close(sums.cpu(), torch.cumsum(idx, 0))


def test_pallas_softmax_strict_and_defer():
    from softmax_pallas import softmax

    x = torch.randn(4, 6, 32)
    ref = torch.softmax(x, dim=-1)
    torch.testing.assert_close(softmax(x.to("tpu")).cpu(), ref)
    torchtpu.set_mode("defer")
    torchtpu.metrics.reset()
    out = softmax(x.to("tpu") * 2.0) + 1.0
    assert torchtpu.metrics.counters()["flushes"] == {}
    torch.testing.assert_close(out.cpu(), torch.softmax(2.0 * x, dim=-1) + 1.0)


def test_pallas_rmsnorm_forward_and_backward():
    from rmsnorm_pallas import rmsnorm, rmsnorm_reference

    x, w = torch.randn(3, 8, 64), torch.randn(64)
    xt = x.to("tpu").requires_grad_()
    wt = w.to("tpu").requires_grad_()
    out = rmsnorm(xt, wt, eps=1e-5)
    (out * out).sum().backward()
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    ref = rmsnorm_reference(xc, wc, 1e-5)
    (ref * ref).sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach())
    torch.testing.assert_close(xt.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wt.grad.cpu(), wc.grad, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("causal", [False, True])
def test_pallas_attention_matches_sdpa(causal):
    from attention_pallas import attention

    q, k, v = (torch.randn(2, 3, 64, 16) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    out = attention(q.to("tpu"), k.to("tpu"), v.to("tpu"), causal=causal)
    torch.testing.assert_close(out.cpu(), ref, rtol=1e-5, atol=1e-5)


def test_helion_kernel_runs_on_tpu():
    pytest.importorskip("helion")
    from helion_rmsnorm import rmsnorm

    x, w = torch.randn(16, 32), torch.randn(32)
    ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    torch.testing.assert_close(rmsnorm(x.to("tpu"), w.to("tpu")).cpu(), ref)


def test_pallas_kernel_inside_torch_compile():
    if not hasattr(torchtpu, "compile_backend"):
        pytest.skip("torch.compile(backend='tpu') is not in this build")
    import torch._dynamo
    from softmax_pallas import softmax

    torch._dynamo.reset()
    x = torch.randn(8, 32)
    f = torch.compile(lambda t: softmax(t * 2.0) + 1.0, backend="tpu")
    torch.testing.assert_close(f(x.to("tpu")).cpu(), torch.softmax(2.0 * x, -1) + 1.0)
    torch._dynamo.reset()
