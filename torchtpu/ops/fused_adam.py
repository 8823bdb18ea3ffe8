"""``_fused_adam_`` and ``_fused_adamw_`` on "tpu": ``torch.optim.Adam(fused=True)``
and ``AdamW(fused=True)``, which the Hugging Face ``Trainer`` picks by default
(``optim="adamw_torch_fused"``).

PyTorch lists the PrivateUse1 backend among the devices with fused optimizer
kernels, so these ops must exist on "tpu" or the step falls back to the CPU.
Each one is the math of PyTorch's CPU and CUDA fused kernels written with
tpu ops (lowered, so strict mode launches a few small programs per parameter
shape and defer mode fuses the whole step). Nothing is read back to the host:
the step count, the gradient scale and ``found_inf`` stay on the device.
"""

from __future__ import annotations

import math

import torch

from torchtpu.ops._registry import impl

__all__ = ["register"]

_lib: torch.library.Library | None = None


def _one_minus_pow(beta: float, step: torch.Tensor) -> torch.Tensor | float:
    """1 - beta**step, as -expm1(step * log(beta)): the kernels compute it in
    double; in float32, 1 - 0.999**step would lose about five digits."""
    if beta == 0:
        return 1.0
    if beta < 0:
        return 1 - torch.pow(beta, step)
    return -torch.expm1(step * math.log(beta))


def _step(
    params: list[torch.Tensor],
    grads: list[torch.Tensor],
    exp_avgs: list[torch.Tensor],
    exp_avg_sqs: list[torch.Tensor],
    max_exp_avg_sqs: list[torch.Tensor],
    state_steps: list[torch.Tensor],
    lr: float | torch.Tensor,
    beta1: float,
    beta2: float,
    weight_decay: float,
    eps: float,
    amsgrad: bool,
    maximize: bool,
    grad_scale: torch.Tensor | None,
    found_inf: torch.Tensor | None,
    decoupled: bool,
) -> None:
    for i, param in enumerate(params):
        grad = grads[i]
        exp_avg, exp_avg_sq = exp_avgs[i], exp_avg_sqs[i]
        # The kernels compute in float32 at least (opmath) and store in the
        # parameter's dtype.
        math = torch.promote_types(param.dtype, torch.float32)
        p, g = param.to(math), grad.to(math)
        m, v = exp_avg.to(math), exp_avg_sq.to(math)
        if grad_scale is not None:
            g = g / grad_scale.to(math)
            unscaled = g
        if maximize:
            g = -g
        if weight_decay != 0:
            if decoupled:
                p = p - (lr * weight_decay) * p
            else:
                g = g + weight_decay * p
        m = m + (1 - beta1) * (g - m)
        v = beta2 * v + (1 - beta2) * g * g
        step = state_steps[i].to(math)
        bias_correction1 = _one_minus_pow(beta1, step)
        bias_correction2_sqrt = torch.sqrt(_one_minus_pow(beta2, step))
        if amsgrad:
            vmax = torch.maximum(max_exp_avg_sqs[i].to(math), v)
            denom = torch.sqrt(vmax) / bias_correction2_sqrt + eps
        else:
            denom = torch.sqrt(v) / bias_correction2_sqrt + eps
        p = p - (lr / bias_correction1) * m / denom
        updates = [(param, p), (exp_avg, m), (exp_avg_sq, v)]
        if amsgrad:
            updates.append((max_exp_avg_sqs[i], vmax))
        if grad_scale is not None:
            # The kernels leave the unscaled gradient in `grads`.
            updates.append((grad, unscaled))
        for dst, new in updates:
            if found_inf is not None:
                # A step with an inf or NaN gradient changes nothing.
                new = torch.where(found_inf.to(torch.bool), dst.to(math), new)
            dst.copy_(new)


def _adam(decoupled: bool):  # noqa: ANN202 - the op's kernel
    def kernel(
        params: list[torch.Tensor],
        grads: list[torch.Tensor],
        exp_avgs: list[torch.Tensor],
        exp_avg_sqs: list[torch.Tensor],
        max_exp_avg_sqs: list[torch.Tensor],
        state_steps: list[torch.Tensor],
        *,
        lr: float | torch.Tensor,
        beta1: float,
        beta2: float,
        weight_decay: float,
        eps: float,
        amsgrad: bool,
        maximize: bool,
        grad_scale: torch.Tensor | None = None,
        found_inf: torch.Tensor | None = None,
    ) -> None:
        _step(
            params,
            grads,
            exp_avgs,
            exp_avg_sqs,
            max_exp_avg_sqs,
            state_steps,
            lr,
            beta1,
            beta2,
            weight_decay,
            eps,
            amsgrad,
            maximize,
            grad_scale,
            found_inf,
            decoupled,
        )

    return kernel


def register() -> None:
    """Registers the kernels for the "tpu" device (once)."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    for name, decoupled in (
        ("_fused_adam_", False),
        ("_fused_adam_.tensor_lr", False),
        ("_fused_adamw_", True),
        ("_fused_adamw_.tensor_lr", True),
    ):
        impl(lib, name, _adam(decoupled))
    _lib = lib
