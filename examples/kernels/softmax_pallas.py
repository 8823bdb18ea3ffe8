"""A fused softmax written in Pallas, run on "tpu" as a torch op.

On plugins without a Pallas backend (the CPU plugin) the kernel runs through
Pallas' interpret mode, which lowers it to plain StableHLO.

    python examples/kernels/softmax_pallas.py
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import torch
from jax.experimental import pallas as pl

import torchtpu
from torchtpu import kernels


def _block_rows(rows: int, cap: int = 8) -> int:
    """The largest divisor of `rows` that is at most `cap`."""
    return max(b for b in range(1, min(rows, cap) + 1) if rows % b == 0)


def _softmax_kernel(x_ref, o_ref):  # type: ignore[no-untyped-def]
    x = x_ref[...].astype(jnp.float32)
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    o_ref[...] = (e / jnp.sum(e, axis=-1, keepdims=True)).astype(o_ref.dtype)


@kernels.jax_kernel("examples::softmax")
def softmax(x):  # type: ignore[no-untyped-def]
    """Softmax over the last dimension; one program per block of rows."""
    rows = x.size // x.shape[-1]
    cols = x.shape[-1]
    x2 = x.reshape(rows, cols)
    br = _block_rows(rows)
    out = pl.pallas_call(
        _softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x2.shape, x2.dtype),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec((br, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((br, cols), lambda i: (i, 0)),
        interpret=kernels.pallas_interpret(),
    )(x2)
    return out.reshape(x.shape)


def main() -> None:
    x = torch.randn(4, 16, 64)
    y = softmax(x.to("tpu")).cpu()
    ref = torch.softmax(x, dim=-1)
    print(f"pallas softmax on {torchtpu.info().platform}: max |diff| = {(y - ref).abs().max():.2e}")


if __name__ == "__main__":
    main()
