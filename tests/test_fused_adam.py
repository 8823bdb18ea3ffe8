"""torch.optim.Adam/AdamW(fused=True) on "tpu" (torchtpu/ops/fused_adam.py) against
PyTorch's own fused CPU kernels, with no CPU fallback."""

from __future__ import annotations

import pytest
import torch

import torchtpu


def _params(device: str) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    shapes = [(4, 3), (5,), (2, 2, 2)]
    return [torch.randn(s, generator=g).to(device).requires_grad_() for s in shapes]


def _grads(step: int, device: str) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(100 + step)
    return [torch.randn(s, generator=g).to(device) for s in [(4, 3), (5,), (2, 2, 2)]]


@pytest.mark.parametrize("mode", ["strict", "defer"])
@pytest.mark.parametrize(
    "opt,kwargs",
    [
        (torch.optim.AdamW, {}),
        (torch.optim.AdamW, {"amsgrad": True, "weight_decay": 0.1}),
        (torch.optim.Adam, {"weight_decay": 0.1, "maximize": True}),
        (torch.optim.Adam, {"lr": torch.tensor(0.01), "betas": (0.0, 0.99)}),
    ],
)
def test_fused_adam_matches_cpu(mode: str, opt: type, kwargs: dict) -> None:
    results = {}
    torchtpu.metrics.reset()
    for device in ("cpu", "tpu"):
        params = _params(device)
        o = opt(params, fused=True, **{"lr": 0.01, **kwargs})
        with torchtpu.mode(mode):
            for step in range(3):
                for p, g in zip(params, _grads(step, device), strict=True):
                    p.grad = g
                o.step()
            results[device] = [p.detach().cpu() for p in params] + [
                v.cpu() for s in o.state.values() for v in s.values()
            ]
    assert torchtpu.metrics.counters()["fallbacks"] == {}
    for got, want in zip(results["tpu"], results["cpu"], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("inf", [0.0, 1.0])
def test_fused_adamw_grad_scale_and_found_inf(inf: float) -> None:
    """The AMP arguments: gradients are unscaled in place; a step with
    found_inf set changes no parameter or state."""
    results = {}
    for device in ("cpu", "tpu"):
        params = [t.detach() for t in _params(device)]
        grads = _grads(0, device)
        m = [torch.full_like(p, 0.1) for p in params]
        v = [torch.full_like(p, 0.2) for p in params]
        steps = [torch.tensor(3.0, device=device) for _ in params]
        torch._fused_adamw_(
            params, grads, m, v, [], steps, lr=0.01, beta1=0.9, beta2=0.999,
            weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False,
            grad_scale=torch.tensor(4.0, device=device),
            found_inf=torch.tensor(inf, device=device),
        )  # fmt: skip
        results[device] = [t.cpu() for t in params + grads + m + v]
    for got, want in zip(results["tpu"], results["cpu"], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
