"""The shared check of the op tests: run a function on CPU and on "tpu" on the
same inputs, compare results (and input gradients), and assert that nothing
fell back to the CPU."""

from __future__ import annotations

import math

import torch

import torchtpu
from torchtpu import _torch_compat

D = "tpu"


def _flat(v):
    if isinstance(v, torch.Tensor):
        return [v]
    return [t for t in v if isinstance(t, torch.Tensor)]


def run(
    fn,
    *inputs,
    grad: bool | tuple[int, ...] = False,
    atol=1e-5,
    rtol=1e-5,
    allow=(),
    nograd=(),
    grad_equal_nan=False,
):
    """fn on CPU and on tpu from the same inputs; results compared with their
    dtypes and shapes (NaN == NaN). With `grad` (True: every floating input but
    the positions in `nograd`; a tuple: the inputs at those positions), also
    the gradients for the same random output gradients (NaN gradients compare
    equal only with `grad_equal_nan`). Asserts that nothing fell back to the
    CPU except the ops in `allow`."""

    def needs(i, x):
        if isinstance(grad, tuple):
            return i in grad
        return grad and x.is_floating_point() and i not in nograd

    cpu_in = [x.clone().requires_grad_(needs(i, x)) for i, x in enumerate(inputs)]
    tpu_in = [x.detach().to(D).requires_grad_(needs(i, x)) for i, x in enumerate(inputs)]
    torchtpu.metrics.reset()
    want = _flat(fn(*cpu_in))
    got = _flat(fn(*tpu_in))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.device.type == D
        torch.testing.assert_close(g.cpu(), w.detach(), atol=atol, rtol=rtol, equal_nan=True)
    if grad:
        outs = [(w, g) for w, g in zip(want, got, strict=True) if w.requires_grad]
        grads = [torch.randn_like(w) for w, _ in outs]
        torch.autograd.backward([w for w, _ in outs], grads)
        torch.autograd.backward([g for _, g in outs], [x.to(D) for x in grads])
        for a, b in zip(cpu_in, tpu_in, strict=True):
            if a.grad is not None:
                torch.testing.assert_close(
                    b.grad.cpu(), a.grad, atol=atol, rtol=rtol, equal_nan=grad_equal_nan
                )
    fallbacks = {
        k: v for k, v in torchtpu.metrics.counters()["fallbacks"].items() if k not in allow
    }
    assert not fallbacks, f"CPU fallbacks: {fallbacks}"


def clamp_nan_min(x):
    """torch.clamp(x, min=NaN), which is NaN everywhere. On the CPU of torch 2.11,
    which returns x unchanged (_torch_compat.CPU_CLAMP_LONE_NAN_BOUND_IS_NAN), the
    two-bound form stands in as the reference."""
    if x.device.type == "cpu" and not _torch_compat.CPU_CLAMP_LONE_NAN_BOUND_IS_NAN:
        return torch.clamp(x, min=math.nan, max=math.inf)
    return torch.clamp(x, min=math.nan)
