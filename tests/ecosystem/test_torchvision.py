"""torchvision, unchanged, on "tpu" (issue 19), with random weights (nothing
downloaded), against the CPU:

- ``resnet18`` and ``mobilenet_v3_small`` (hardswish, squeeze-excitation,
  dropout 0) train 3 steps on batches of 8 (SGD, lr 1e-3, momentum 0.9).
  resnet18's last stage is 1x1 at 32x32 pixels, so its batch norms see as
  many values as the batch has images: with batches of 4 and lr 0.05 or 0.01
  the run is chaotic on the CPU itself (weights perturbed by 1e-7 of their
  scale change the third loss by 3e-2), and "tpu"'s float32 rounding showed
  the same (9e-3 strict, 6e-2 defer); at this size and rate the same
  perturbation moves it by 6e-6 (tests/models/model_compare.py: every step's loss,
  the final weights and batch-norm statistics, no CPU fallback);
- ``lraspp_mobilenet_v3_large``, a segmentation model, runs its forward (eval
  mode) on a 64x64 image: the per-pixel class scores as on the CPU;
- ``torchvision.transforms.v2`` pipelines run on tpu images (the random
  parameters come from the CPU generator, seeded alike): the same pixels.

torchvision 0.29.1 needs torch 2.14 (README, "Torch releases"), so this runs
in the torch 2.14.1 run (``make test-torch214``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import torchtpu

torchvision = pytest.importorskip(
    "torchvision", reason="torchvision does not import beside this torch (PyPI's builds need "
    "torch 2.14: make setup-torch214)"
)  # fmt: skip
from torchvision import models  # noqa: E402
from torchvision.transforms import v2  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_compare import Batch, Case, compare  # noqa: E402

CLASSES = 10


def classifier(name: str) -> Case:
    def make_model() -> nn.Module:
        if name == "resnet18":
            return models.resnet18(weights=None, num_classes=CLASSES)
        return models.mobilenet_v3_small(weights=None, num_classes=CLASSES, dropout=0.0)

    def batches(g: torch.Generator, n: int) -> list[Batch]:
        images = torch.randn(n, 8, 3, 32, 32, generator=g)
        labels = torch.randint(0, CLASSES, (n, 8), generator=g)
        return list(zip(images, labels, strict=True))

    def loss(model: nn.Module, b: Batch) -> torch.Tensor:
        return F.cross_entropy(model(b[0]), b[1])

    def sgd(params: list[nn.Parameter]) -> torch.optim.Optimizer:
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)

    return Case(name, make_model, batches, loss, sgd, steps=3)


@pytest.mark.parametrize(
    "name,mode",
    [("resnet18", "defer"), ("mobilenet_v3_small", "strict")],
)
def test_classifier_trains_as_on_cpu(name: str, mode: str) -> None:
    out = compare(classifier(name), mode)
    print(
        f"\n[torchvision {name} {mode}] max |dloss| {out.max_loss_diff:.2e}, "
        f"max |dparam| {out.max_param_diff:.2e}, {out.tpu_seconds:.1f} s"
    )


def test_segmentation_forward_as_on_cpu() -> None:
    torch.manual_seed(0)
    model = models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=4
    ).eval()
    x = torch.randn(2, 3, 64, 64, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        want = model(x)["out"]
        torchtpu.metrics.reset()
        got = model.to("tpu")(x.to("tpu"))["out"]
    assert got.device.type == "tpu" and got.shape == want.shape == (2, 4, 64, 64)
    assert torchtpu.metrics.counters()["fallbacks"] == {}
    torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-4)
    print(f"\n[torchvision lraspp] max |dout| {(got.cpu() - want).abs().max().item():.2e}")


PIPELINES = {
    "train": lambda: v2.Compose([
        v2.ToDtype(torch.float32, scale=True),
        v2.RandomResizedCrop(24, antialias=True),
        v2.RandomHorizontalFlip(p=0.5),
        v2.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4),
        v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ]),
    "eval": lambda: v2.Compose([
        v2.ToDtype(torch.float32, scale=True),
        v2.Resize(40, antialias=True),
        v2.CenterCrop(32),
        v2.Pad(2),
        v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25]),
    ]),
    "augment": lambda: v2.Compose([
        v2.ToDtype(torch.float32, scale=True),
        v2.RandomRotation(15),
        v2.RandomGrayscale(p=1.0),
        v2.GaussianBlur(3, sigma=(0.5, 1.0)),
    ]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(PIPELINES))
def test_transforms_v2_on_tpu_tensors(name: str) -> None:
    images = torch.randint(0, 256, (3, 3, 48, 64), dtype=torch.uint8)
    transform = PIPELINES[name]()
    torch.manual_seed(3)
    want = [transform(img) for img in images]
    torchtpu.metrics.reset()
    torch.manual_seed(3)
    got = [transform(img.to("tpu")) for img in images]
    assert torchtpu.metrics.counters()["fallbacks"] == {}
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "tpu" and g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g.cpu(), w, rtol=1e-5, atol=1e-5)
        worst = max(worst, (g.cpu() - w).abs().max().item())
    print(f"\n[torchvision transforms {name}] max |d| {worst:.2e}")
