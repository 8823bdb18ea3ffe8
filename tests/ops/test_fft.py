"""torch.fft (fft/ifft/rfft/irfft/hfft/ihfft, 1-d, 2-d and n-d), stft / istft and
the complex elementwise ops around them on "tpu" vs PyTorch CPU: odd and even
lengths, n / s (padding and trimming), every norm mode, batched and more than
three transformed dims, forward and input gradients, with no CPU fallback, in
strict and defer mode."""

from __future__ import annotations

import pytest
import torch
from compare_cpu import run

import torchtpu


@pytest.fixture(params=["strict", "defer"], autouse=True)
def mode(request):
    with torchtpu.mode(request.param):
        yield request.param


TOL = {"atol": 1e-4, "rtol": 1e-4}
F = torch.fft

# (function, kwargs): every transform with each norm mode once, odd and even
# lengths, n / s padding and trimming, batched dims, and n-d transforms over
# four dims (more than one stablehlo.fft).
CASES = [
    (F.fft, {}),
    (F.fft, {"n": 13, "dim": 0, "norm": "ortho"}),
    (F.ifft, {"n": 6, "dim": 1, "norm": "forward"}),
    (F.rfft, {"norm": "ortho"}),
    (F.rfft, {"n": 7, "dim": 1, "norm": "forward"}),
    (F.ihfft, {"n": 5}),
    (F.irfft, {"norm": "forward"}),
    (F.irfft, {"n": 9, "dim": 1, "norm": "ortho"}),
    (F.hfft, {"n": 8, "dim": 0}),
    (F.fft2, {"s": (4, 7), "dim": (2, 0), "norm": "forward"}),
    (F.ifft2, {"norm": "ortho"}),
    (F.rfft2, {}),
    (F.ihfft2, {"s": (3, 6), "norm": "ortho"}),
    (F.irfft2, {"s": (3, 8), "dim": (1, 2)}),
    (F.hfft2, {"norm": "forward"}),
    (F.fftn, {"norm": "ortho"}),
    (F.ifftn, {"dim": (2, 0, 1)}),
    (F.rfftn, {"norm": "forward"}),
    (F.ihfftn, {"dim": (0, 2)}),
    (F.irfftn, {"s": (5, 4, 5), "dim": (0, 1, 2), "norm": "ortho"}),
    (F.hfftn, {}),
]


@pytest.mark.parametrize(
    ("fn", "kw"), CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)]
)
def test_fft(fn, kw):
    x = torch.randn(2, 5, 6) if fn not in (F.fftn, F.rfftn) else torch.randn(2, 3, 4, 5)
    run(lambda t: fn(t, **kw), x, grad=True, **TOL)


def test_complex_inputs():
    z = torch.complex(torch.randn(4, 6), torch.randn(4, 6))
    for fn in (torch.fft.fft, torch.fft.ifft, torch.fft.irfft, torch.fft.hfft):
        run(fn, z, **TOL)
    run(torch.fft.fftn, z, **TOL)
    run(lambda t: torch.fft.irfftn(t, s=(4, 9)), z, **TOL)
    run(lambda t: torch.fft.fft(t.conj()), z, **TOL)  # a lazy conjugate view
    run(torch.fft.fft, z.to(torch.complex128), **TOL)


def test_fft_out_and_shift():
    x = torch.randn(5, 8)

    def rfft_out(t):
        out = torch.empty(5, 5, dtype=torch.complex64, device=t.device)
        torch.fft.rfft(t, out=out)
        return torch.view_as_real(out)

    run(rfft_out, x, **TOL)
    run(lambda t: torch.fft.fftshift(torch.fft.fft2(t)), x, grad=True, **TOL)
    run(lambda t: torch.fft.ifftshift(torch.fft.rfft(t), dim=0), x, grad=True, **TOL)


def test_complex_elementwise():
    x, y = torch.randn(3, 8), torch.randn(3, 8)
    run(lambda a: torch.fft.rfft(a).abs(), x, grad=True, **TOL)
    run(lambda a: torch.fft.rfft(a).angle(), x, grad=True, **TOL)
    run(lambda a: torch.fft.rfft(a).conj_physical(), x, grad=True, **TOL)
    run(lambda a, b: torch.fft.fft(a) * torch.fft.fft(b).conj(), x, y, grad=True, **TOL)
    run(lambda a, b: torch.fft.fft(a) / (torch.fft.fft(b) + 3), x, y, grad=True, **TOL)
    run(lambda a, b: torch.fft.fft(a) - 2j * b, x, y, grad=True, **TOL)

    def scaled_inplace(a):
        z = torch.fft.rfft(a)
        z[:, 1:3].mul_(2)
        return -z

    run(scaled_inplace, x, grad=True, **TOL)


def test_stft_istft():
    x = torch.randn(2, 300)
    w = torch.hann_window(32)
    run(lambda t, w: torch.stft(t, 32, 8, window=w, return_complex=True), x, w, grad=True, **TOL)
    run(
        lambda t: torch.stft(t, 20, 5, onesided=False, normalized=True, return_complex=True),
        x,
        grad=True,
        **TOL,
    )
    spec = torch.stft(x, 32, 8, window=w, return_complex=True)
    run(lambda s, w: torch.istft(s, 32, 8, window=w, length=300), spec, w, **TOL)
