"""A kernel written PyTorch-style with Helion (tiles over torch ops),
compiled by Helion's Pallas backend and run on "tpu" as a torch op.

    python examples/kernels/helion_rmsnorm.py
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch

from torchtpu import kernels


@helion.kernel(
    backend="pallas",
    pallas_interpret=kernels.pallas_interpret(),
    config=helion.Config(block_sizes=[8]),
)
def rmsnorm_tiles(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, _ = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        r = torch.rsqrt(torch.mean(row * row, dim=-1, keepdim=True) + 1e-6)
        out[tile_m, :] = (row * r * w[None, :].to(torch.float32)).to(out.dtype)
    return out


rmsnorm = kernels.helion_kernel("examples::helion_rmsnorm", rmsnorm_tiles)


def main() -> None:
    x, w = torch.randn(64, 256), torch.randn(256)
    y = rmsnorm(x.to("tpu"), w.to("tpu")).cpu()
    ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    print(f"helion rmsnorm on tpu: max |diff| = {(y - ref).abs().max():.2e}")


if __name__ == "__main__":
    main()
