"""RMSNorm written in Pallas, with a backward (JAX custom_vjp), as a torch op
on "tpu" that autograd differentiates.

    python examples/kernels/rmsnorm_pallas.py
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import torch
from jax.experimental import pallas as pl

from torchtpu import kernels


def _block_rows(rows: int, cap: int = 8) -> int:
    return max(b for b in range(1, min(rows, cap) + 1) if rows % b == 0)


def _rmsnorm_kernel(x_ref, w_ref, o_ref, *, eps: float):  # type: ignore[no-untyped-def]
    x = x_ref[...].astype(jnp.float32)
    r = jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)
    o_ref[...] = (x * r * w_ref[...].astype(jnp.float32)).astype(o_ref.dtype)


def _rmsnorm_pallas(x, w, eps):  # type: ignore[no-untyped-def]
    d = x.shape[-1]
    rows = x.size // d
    x2 = x.reshape(rows, d)
    br = _block_rows(rows)
    out = pl.pallas_call(
        functools.partial(_rmsnorm_kernel, eps=eps),
        out_shape=jax.ShapeDtypeStruct(x2.shape, x2.dtype),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec((br, d), lambda i: (i, 0)), pl.BlockSpec((d,), lambda i: (0,))],
        out_specs=pl.BlockSpec((br, d), lambda i: (i, 0)),
        interpret=kernels.pallas_interpret(),
    )(x2, w)
    return out.reshape(x.shape)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _rmsnorm(x, w, eps):  # type: ignore[no-untyped-def]
    return _rmsnorm_pallas(x, w, eps)


def _fwd(x, w, eps):  # type: ignore[no-untyped-def]
    return _rmsnorm_pallas(x, w, eps), (x, w)


def _bwd(eps, saved, g):  # type: ignore[no-untyped-def]
    x, w = saved
    r = jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)
    gw = g * w
    dx = r * gw - x * r**3 * jnp.mean(gw * x, axis=-1, keepdims=True)
    dw = jnp.sum((g * x * r).reshape(-1, x.shape[-1]), axis=0)
    return dx, dw


_rmsnorm.defvjp(_fwd, _bwd)


@kernels.jax_kernel("examples::rmsnorm", static_argnames=("eps",), differentiable=True)
def rmsnorm(x, w, eps: float = 1e-6):  # type: ignore[no-untyped-def]
    """x * rsqrt(mean(x^2, -1) + eps) * w."""
    return _rmsnorm(x, w, eps)


def rmsnorm_reference(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def main() -> None:
    x = torch.randn(8, 32, 128)
    w = torch.randn(128)
    # The tpu backward first: PyTorch sizes its autograd device queues at the
    # first backward of the process, and must see the tpu device by then.
    xt = x.to("tpu").requires_grad_()
    wt = w.to("tpu").requires_grad_()
    y = rmsnorm(xt, wt)
    y.square().sum().backward()
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    ref = rmsnorm_reference(xc, wc)
    ref.square().sum().backward()
    print(f"pallas rmsnorm: max |diff| = {(y.detach().cpu() - ref).abs().max():.2e}")
    gx = (xt.grad.cpu() - xc.grad).abs().max()
    gw = (wt.grad.cpu() - wc.grad).abs().max()
    print(f"  grad x {gx:.2e}, grad w {gw:.2e}")


if __name__ == "__main__":
    main()
