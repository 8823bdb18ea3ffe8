"""timm, unchanged, on "tpu" (issue 19): three architectures of different kinds,
built by ``timm.create_model`` with random weights (nothing downloaded) at
tiny sizes, train 3 steps (forward, cross-entropy, backward, SGD with
momentum) on "tpu" and on the CPU from the same weights and batches, strict,
defer and compiled (``torch.compile(backend="tpu")``), the convolutional ones
also in channels_last; tests/models/model_compare.py compares every step's
loss, the final parameters and batch-norm statistics, and the CPU fallbacks
(none).

- vit:      a Vision Transformer (``vit_tiny_patch16_224`` at 32x32 pixels,
            patches of 8, 2 blocks): patch embedding, attention, LayerNorm, GELU;
- convnext: ``convnext_atto``: depthwise 7x7 convolutions, LayerNorm over
            channels, GELU, layer scale;
- resnet:   ``resnet10t``: a ResNet with a deep (tiered) stem and average-pool
            downsampling: convolutions, batch norm, max and average pooling.

timm needs torchvision, which PyPI has only for torch 2.14 (README, "Torch
releases"), so this runs in the torch 2.14.1 run (``make test-torch214``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.nn import functional as F

timm = pytest.importorskip(
    "timm", reason="timm is not installed (make setup-torch214 installs timm==1.0.31 beside "
    "torch 2.14.1 and torchvision 0.29.1)"
)  # fmt: skip

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_compare import Batch, Case, compare  # noqa: E402

CLASSES = 10
SIZE = 32

MODELS: dict[str, Callable[[], nn.Module]] = {
    "vit": lambda: timm.create_model(
        "vit_tiny_patch16_224", pretrained=False, num_classes=CLASSES, img_size=SIZE,
        patch_size=8, depth=2,
    ),
    "convnext": lambda: timm.create_model("convnext_atto", pretrained=False, num_classes=CLASSES),
    "resnet": lambda: timm.create_model("resnet10t", pretrained=False, num_classes=CLASSES),
}  # fmt: skip


def case(name: str, channels_last: bool) -> Case:
    fmt = torch.channels_last if channels_last else torch.contiguous_format

    def make_model() -> nn.Module:
        return MODELS[name]().to(memory_format=fmt)

    def batches(g: torch.Generator, n: int) -> list[Batch]:
        images = torch.randn(n, 4, 3, SIZE, SIZE, generator=g)
        labels = torch.randint(0, CLASSES, (n, 4), generator=g)
        return [(x.contiguous(memory_format=fmt), y) for x, y in zip(images, labels, strict=True)]

    def loss(model: nn.Module, b: Batch) -> torch.Tensor:
        return F.cross_entropy(model(b[0]), b[1])

    def sgd(params: list[nn.Parameter]) -> torch.optim.Optimizer:
        return torch.optim.SGD(params, lr=0.01, momentum=0.9)

    return Case(f"{name}{'-cl' if channels_last else ''}", make_model, batches, loss, sgd, steps=3)


@pytest.mark.parametrize(
    "name,mode,channels_last",
    [
        ("vit", "strict", False), ("vit", "defer", False), ("vit", "compiled", False),
        ("convnext", "strict", False), ("convnext", "defer", True), ("convnext", "compiled", True),
        ("resnet", "strict", True), ("resnet", "defer", False), ("resnet", "compiled", False),
    ],
)  # fmt: skip
def test_timm_model_trains_as_on_cpu(name: str, mode: str, channels_last: bool) -> None:
    out = compare(case(name, channels_last), mode)
    print(
        f"\n[timm {out.model} {mode}] max |dloss| {out.max_loss_diff:.2e}, "
        f"max |dparam| {out.max_param_diff:.2e}, {out.tpu_seconds:.1f} s"
    )
