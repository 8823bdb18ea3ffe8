"""Attention as a Pallas kernel (flash-attention style: one program per block
of queries, an online softmax over blocks of keys), as a torch op on "tpu".

    python examples/kernels/attention_pallas.py
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import torch
from jax.experimental import pallas as pl

from torchtpu import kernels


def _block(n: int, cap: int) -> int:
    return max(b for b in range(1, min(n, cap) + 1) if n % b == 0)


def _attention_kernel(q_ref, k_ref, v_ref, o_ref, *, bq: int, bk: int, causal: bool):  # type: ignore[no-untyped-def]
    seq, dim = k_ref.shape[1], k_ref.shape[2]
    q = q_ref[0].astype(jnp.float32) * (1.0 / math.sqrt(dim))
    q_pos = pl.program_id(1) * bq + jnp.arange(bq)[:, None]

    def step(j, carry):  # type: ignore[no-untyped-def]
        m, denom, acc = carry
        k = k_ref[0, pl.ds(j * bk, bk), :].astype(jnp.float32)
        v = v_ref[0, pl.ds(j * bk, bk), :].astype(jnp.float32)
        s = q @ k.T
        if causal:
            k_pos = j * bk + jnp.arange(bk)[None, :]
            s = jnp.where(k_pos <= q_pos, s, -jnp.inf)
        m_new = jnp.maximum(m, jnp.max(s, axis=-1, keepdims=True))
        p = jnp.exp(s - m_new)
        scale = jnp.exp(m - m_new)
        return m_new, denom * scale + jnp.sum(p, axis=-1, keepdims=True), acc * scale + p @ v

    init = (
        jnp.full((bq, 1), -jnp.inf, jnp.float32),
        jnp.zeros((bq, 1), jnp.float32),
        jnp.zeros((bq, dim), jnp.float32),
    )
    _, denom, acc = jax.lax.fori_loop(0, seq // bk, step, init)
    o_ref[0] = (acc / denom).astype(o_ref.dtype)


@kernels.jax_kernel("examples::attention", static_argnames=("causal",))
def attention(q, k, v, causal: bool = False):  # type: ignore[no-untyped-def]
    """softmax(q k^T / sqrt(d)) v over (batch, heads, seq, dim) tensors."""
    b, h, s, d = q.shape
    bq, bk = _block(s, 64), _block(s, 64)
    qf, kf, vf = (t.reshape(b * h, s, d) for t in (q, k, v))
    out = pl.pallas_call(
        functools.partial(_attention_kernel, bq=bq, bk=bk, causal=causal),
        out_shape=jax.ShapeDtypeStruct(qf.shape, qf.dtype),
        grid=(b * h, s // bq),
        in_specs=[
            pl.BlockSpec((1, bq, d), lambda i, j: (i, j, 0)),
            pl.BlockSpec((1, s, d), lambda i, j: (i, 0, 0)),
            pl.BlockSpec((1, s, d), lambda i, j: (i, 0, 0)),
        ],
        out_specs=pl.BlockSpec((1, bq, d), lambda i, j: (i, j, 0)),
        interpret=kernels.pallas_interpret(),
    )(qf, kf, vf)
    return out.reshape(b, h, s, d)


def main() -> None:
    q, k, v = (torch.randn(2, 4, 128, 32) for _ in range(3))
    for causal in (False, True):
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        out = attention(q.to("tpu"), k.to("tpu"), v.to("tpu"), causal=causal).cpu()
        print(f"pallas attention (causal={causal}): max |diff| = {(out - ref).abs().max():.2e}")


if __name__ == "__main__":
    main()
