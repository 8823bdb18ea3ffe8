"""Defer mode cuts its trace where a backward pass starts and where an
optimizer step returns (torchtpu/backward_cut.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from torch import nn

import torchtpu


@pytest.fixture(autouse=True)
def _defer() -> Iterator[None]:
    with torchtpu.mode("defer"):
        yield
    torchtpu.set_cut_at_backward(True)


def _model(device: str) -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 4)).to(device)
    return m, torch.optim.AdamW(m.parameters(), lr=1e-2)


def _steps(device: str, n: int, warm_up: int = 0) -> tuple[list[float], nn.Module]:
    """n training steps (after `warm_up` more, whose metrics are dropped)."""
    m, opt = _model(device)
    g = torch.Generator().manual_seed(1)
    losses = []
    for step in range(warm_up + n):
        if step == warm_up and device == "tpu":
            torchtpu.metrics.reset()
        x = torch.randn(8, 16, generator=g).to(device)
        opt.zero_grad()
        loss = m(x).square().mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses[warm_up:], m


def test_a_training_step_runs_as_forward_then_backward_and_step() -> None:
    losses, m = _steps("tpu", 3, warm_up=3)
    c = torchtpu.metrics.counters()
    # Per step: the forward (cut at backward()), then backward and the
    # optimizer's update (cut where step() returns); loss.item() reads the
    # forward's output.
    assert c["flushes"].get("backward") == 3 and c["flushes"].get("optimizer step") == 3, c
    assert c.get("compiles", 0) == 0 and c["launches"] == 6, c
    ref, mc = _steps("cpu", 3, warm_up=3)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(ref), rtol=1e-5, atol=1e-6)
    for a, b in zip(m.parameters(), mc.parameters(), strict=True):
        torch.testing.assert_close(a.detach().cpu(), b.detach(), rtol=1e-4, atol=1e-5)


def test_the_forwards_saved_values_are_freed_by_the_step() -> None:
    m, opt = _model("tpu")
    x = torch.randn(512, 16, device="tpu")
    for _ in range(2):
        opt.zero_grad()
        m(x).square().mean().backward()
        opt.step()
    torch.tpu.synchronize()
    settled = torchtpu.metrics.counters()["live_bytes"]
    opt.zero_grad()
    m(x).square().mean().backward()
    opt.step()  # no sync: the cut here launched backward and step
    assert torchtpu.metrics.counters()["live_bytes"] <= settled


def test_the_cut_can_be_turned_off() -> None:
    assert torchtpu.cut_at_backward()
    torchtpu.set_cut_at_backward(False)
    assert not torchtpu.cut_at_backward()
    torchtpu.metrics.reset()
    losses, _ = _steps("tpu", 2)
    flushes = torchtpu.metrics.counters()["flushes"]
    assert "backward" not in flushes and "optimizer step" not in flushes, flushes
    assert losses == pytest.approx(_steps("cpu", 2)[0], rel=1e-5)


def test_autograd_grad_cuts_too_and_strict_has_nothing_to_cut() -> None:
    x = torch.randn(5, device="tpu", requires_grad=True)
    torchtpu.metrics.reset()
    (g,) = torch.autograd.grad((x * x).sum(), x)
    assert torchtpu.metrics.counters()["flushes"].get("backward") == 1
    torch.testing.assert_close(g.cpu(), 2 * x.detach().cpu())
    with torchtpu.mode("strict"):
        torchtpu.metrics.reset()
        (x * 3).sum().backward()
        assert "backward" not in torchtpu.metrics.counters()["flushes"]
