"""Training on "tpu" follows the same loss curve as on the CPU."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn

import torchtpu

STEPS = 25


def mlp() -> nn.Module:
    return nn.Sequential(
        nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 5)
    )


def cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 2 * 2, 5),
    )


def run(
    make_model: Callable[[], nn.Module],
    make_opt: Callable[[list[nn.Parameter]], torch.optim.Optimizer],
    x: torch.Tensor,
    y: torch.Tensor,
    device: str,
) -> list[float]:
    torch.manual_seed(0)
    model = make_model().to(device)
    opt = make_opt(list(model.parameters()))
    losses = []
    for step in range(STEPS):
        xb = x[step % 4].to(device)
        yb = y[step % 4].to(device)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-4),
    "adamw": lambda p: torch.optim.AdamW(p, lr=3e-3, weight_decay=0.01),
}


@pytest.mark.parametrize("mode", ["strict", "launch_blocking", "defer"])
@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_mlp_matches_cpu(opt: str, mode: str) -> None:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(4, 32, 16, generator=g)
    y = torch.randint(0, 5, (4, 32), generator=g)
    cpu = run(mlp, OPTIMIZERS[opt], x, y, "cpu")
    with torchtpu.mode(mode):
        tpu = run(mlp, OPTIMIZERS[opt], x, y, "tpu")
    torch.testing.assert_close(torch.tensor(tpu), torch.tensor(cpu), rtol=1e-4, atol=1e-5)
    assert cpu[-1] < cpu[0]  # it does learn


@pytest.mark.parametrize("mode", ["strict", "defer"])
@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_cnn_matches_cpu(opt: str, mode: str) -> None:
    g = torch.Generator().manual_seed(2)
    x = torch.randn(4, 8, 3, 8, 8, generator=g)
    y = torch.randint(0, 5, (4, 8), generator=g)
    cpu = run(cnn, OPTIMIZERS[opt], x, y, "cpu")
    with torchtpu.mode(mode):
        tpu = run(cnn, OPTIMIZERS[opt], x, y, "tpu")
    torch.testing.assert_close(torch.tensor(tpu), torch.tensor(cpu), rtol=1e-4, atol=1e-5)


def test_training_runs_without_cpu_fallback() -> None:
    """The MLP training step uses native lowerings only."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 32, 16, generator=g)
    y = torch.randint(0, 5, (4, 32), generator=g)
    torchtpu.metrics.reset()
    run(mlp, OPTIMIZERS["adamw"], x, y, "tpu")
    assert torchtpu.metrics.counters()["fallbacks"] == {}
