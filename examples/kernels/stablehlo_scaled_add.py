"""A kernel written as StableHLO text, with a backward given by hand.

The text is generated per input signature (shapes and dtypes come in as
TensorSpecs, static arguments as Python values), so one op serves any shape.

    python examples/kernels/stablehlo_scaled_add.py
"""

from __future__ import annotations

from typing import Any

import torch

from torchtpu import kernels
from torchtpu.kernels import TensorSpec


def scaled_add_text(x: TensorSpec, y: TensorSpec, alpha: float) -> str:
    t = x.mlir
    return f"""
module @scaled_add {{
  func.func public @main(%x: {t}, %y: {t}) -> {t} {{
    %a = stablehlo.constant dense<{float(alpha):.17e}> : {TensorSpec((), x.dtype).mlir}
    %ab = stablehlo.broadcast_in_dim %a, dims = [] : ({TensorSpec((), x.dtype).mlir}) -> {t}
    %0 = stablehlo.multiply %x, %ab : {t}
    %1 = stablehlo.add %0, %y : {t}
    return %1 : {t}
  }}
}}
"""


def _setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
    ctx.alpha = inputs[2]


def _backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
    return grad * ctx.alpha, grad, None


scaled_add = kernels.stablehlo_kernel(
    "examples::scaled_add",
    scaled_add_text,
    schema="(Tensor x, Tensor y, float alpha) -> Tensor",
    shapes=lambda x, y, alpha: torch.empty_like(x),
    backward=_backward,
    setup_context=_setup,
)


def main() -> None:
    x = torch.randn(4, 8, device="tpu", requires_grad=True)
    y = torch.randn(4, 8, device="tpu", requires_grad=True)
    out = scaled_add(x, y, 0.5)
    out.sum().backward()
    ref = 0.5 * x.detach().cpu() + y.detach().cpu()
    print(f"stablehlo scaled_add: max |diff| = {(out.detach().cpu() - ref).abs().max():.2e}")
    print(f"  grad x = {x.grad.cpu().unique().tolist()}, grad y = {y.grad.cpu().unique().tolist()}")


if __name__ == "__main__":
    main()
