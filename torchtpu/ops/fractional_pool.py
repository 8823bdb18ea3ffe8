"""fractional_max_pool2d/3d and their backwards on "tpu", composed of lowered
ops (no CPU fallback).

Each plane's window starts follow PyTorch's interval rule: with
``alpha = (in - k) / (out - 1)`` and the plane's random sample ``u``, window
``i < out - 1`` starts at ``int((i + u) * alpha) - int(u * alpha)`` and the last
at ``in - k``. The maximum of each window and its flat index in the plane are
returned; the backward adds each output gradient at its index.
"""

from __future__ import annotations

import functools

import torch

from torchtpu.ops._registry import impl

__all__ = ["register"]

_lib: torch.library.Library | None = None

# Per spatial rank: the forward op, its out= form, the backward op and its out= form.
_OVERLOADS = {
    2: (
        "fractional_max_pool2d",
        "fractional_max_pool2d.output",
        "fractional_max_pool2d_backward",
        "fractional_max_pool2d_backward.grad_input",
    ),
    3: (
        "fractional_max_pool3d",
        "fractional_max_pool3d.output",
        "fractional_max_pool3d_backward",
        "fractional_max_pool3d_backward.grad_input",
    ),
}


@functools.lru_cache(maxsize=256)
def _alpha(span: int, steps: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """``span / steps`` as a 0-d tensor of dtype (rounded as PyTorch's kernel rounds
    it), on device: computed and uploaded once per key, not on every call."""
    return (torch.tensor(float(span), dtype=dtype) / float(steps)).to(device)


def _starts(u: torch.Tensor, size: int, k: int, out: int) -> torch.Tensor:
    """[N, C, out] window starts along one dim from the samples u [N, C]."""
    n, c = u.shape
    last = torch.full((n, c, 1), size - k, device=u.device, dtype=torch.int64)
    if out == 1:
        return last
    alpha = _alpha(size - k, out - 1, u.dtype, u.device)
    i = torch.arange(out - 1, device=u.device, dtype=u.dtype)
    uu = u.unsqueeze(-1)
    seq = torch.trunc((i + uu) * alpha).to(torch.int64) - torch.trunc(uu * alpha).to(torch.int64)
    return torch.cat([seq, last], dim=-1)


def _check(nd: int, x: torch.Tensor, k: list[int], out: list[int], samples: torch.Tensor) -> None:
    name = f"fractional_max_pool{nd}d"
    if x.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {x.shape}")
    for d in range(nd):
        size = x.shape[x.dim() - nd + d]
        if out[d] + k[d] - 1 > size:
            raise RuntimeError(
                f"{name}(): pool size {k[d]} and output size {out[d]} are too large for input "
                f"size {size}"
            )
    if samples.dim() != 3 or samples.shape[-1] != nd:
        raise RuntimeError(f"{name}(): expected random samples of shape [N, C, {nd}]")


def _pool(
    nd: int, x: torch.Tensor, kernel: list[int], output: list[int], samples: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    _check(nd, x, kernel, output, samples)
    batched = x.dim() == nd + 2
    xb = x if batched else x.unsqueeze(0)
    n, c = xb.shape[:2]
    sizes = list(xb.shape[2:])
    # The samples' last dim lists W first then H for 2-d, and T, H, W for 3-d.
    order = [1, 0] if nd == 2 else [0, 1, 2]
    u = samples.to(xb.dtype)
    # Per dim: the input positions of every (output, offset) pair, [N, C, out * k].
    pos = []
    for d in range(nd):
        s = _starts(u[:, :, order[d]], sizes[d], kernel[d], output[d])
        p = s.unsqueeze(-1) + torch.arange(kernel[d], device=x.device)
        pos.append(p.reshape(n, c, output[d] * kernel[d]))
    vals = xb
    for d in range(nd):
        # Take the positions along spatial dim d (tensor dim 2 + d).
        shape = [n, c] + [1] * nd
        shape[2 + d] = pos[d].shape[-1]
        idx = (
            pos[d]
            .reshape(shape)
            .expand(*vals.shape[: 2 + d], pos[d].shape[-1], *vals.shape[3 + d :])
        )
        vals = torch.gather(vals, 2 + d, idx)
    # [N, C, o0*k0, o1*k1, ...] -> [N, C, o0, o1, ..., k0*k1*...]
    split = [n, c]
    for d in range(nd):
        split += [output[d], kernel[d]]
    vals = vals.reshape(split)
    perm = [0, 1] + [2 + 2 * d for d in range(nd)] + [3 + 2 * d for d in range(nd)]
    window = 1
    for k in kernel:
        window *= k
    vals = vals.permute(perm).reshape(n, c, *output, window)
    best, arg = torch.max(vals, dim=-1)
    # The flat plane index of each chosen element.
    flat = torch.zeros_like(arg)
    rem = arg
    kstrides = [1] * nd
    for d in range(nd - 2, -1, -1):
        kstrides[d] = kstrides[d + 1] * kernel[d + 1]
    stride = 1
    plane_strides = [1] * nd
    for d in range(nd - 1, -1, -1):
        plane_strides[d] = stride
        stride *= sizes[d]
    for d in range(nd):
        off = torch.div(rem, kstrides[d], rounding_mode="floor")
        rem = rem - off * kstrides[d]
        shape = [n, c] + [1] * nd
        shape[2 + d] = output[d]
        start = pos[d].reshape(n, c, output[d], kernel[d])[..., 0].reshape(shape)
        flat = flat + (start + off) * plane_strides[d]
    if not batched:
        best, flat = best.squeeze(0), flat.squeeze(0)
    return best, flat


def _backward(nd: int, grad: torch.Tensor, x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    lead = x.shape[: x.dim() - nd]
    plane = 1
    for s in x.shape[x.dim() - nd :]:
        plane *= s
    outputs = 1
    for s in grad.shape[grad.dim() - nd :]:
        outputs *= s
    g = grad.reshape(*lead, outputs)
    out = torch.zeros(*lead, plane, device=x.device, dtype=grad.dtype)
    out.scatter_add_(-1, indices.reshape(*lead, outputs), g)
    return out.reshape(x.shape)


def register() -> None:
    """Registers the kernels for the "tpu" device (once)."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    for nd, (name, name_out, backward, backward_out) in _OVERLOADS.items():

        def fwd(x, kernel_size, output_size, random_samples, nd=nd):
            return _pool(nd, x, list(kernel_size), list(output_size), random_samples)

        def fwd_out(x, kernel_size, output_size, random_samples, *, output, indices, nd=nd):
            v, i = _pool(nd, x, list(kernel_size), list(output_size), random_samples)
            output.resize_(v.shape).copy_(v)
            indices.resize_(i.shape).copy_(i)
            return output, indices

        def bwd(grad_output, x, kernel_size, output_size, indices, nd=nd):
            return _backward(nd, grad_output, x, indices)

        def bwd_out(grad_output, x, kernel_size, output_size, indices, *, grad_input, nd=nd):
            r = _backward(nd, grad_output, x, indices)
            return grad_input.resize_(r.shape).copy_(r)

        impl(lib, name, fwd)
        impl(lib, name_out, fwd_out)
        impl(lib, backward, bwd)
        impl(lib, backward_out, bwd_out)
    _lib = lib
