"""Convolutions and pooling on "tpu" vs PyTorch CPU, forward and backward, with
no CPU fallback: conv1d/2d/3d (stride, padding, dilation, groups, bias),
transposed convolutions (output_padding), max pooling with indices, average
pooling (ceil_mode, count_include_pad, divisor_override), adaptive average
pooling, and a small CNN."""

from functools import partial

import compare_cpu
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu

D = "tpu"
# The shared CPU comparison, with this file's defaults.
run = partial(compare_cpu.run, grad=True, atol=1e-4, rtol=1e-4)

# conv1d/2d/3d reach a PrivateUse1 device as aten::convolution, which PyTorch
# implements in CompositeExplicitAutograd (ending in convolution_overrideable,
# which raises, also on Meta): the bridge must register aten::convolution and
# aten::convolution_backward for PrivateUse1 (or the *_overrideable pair, with
# their meta shapes taken from the plain ops).
needs_conv = pytest.mark.skipif(
    not any(
        torch._C._dispatch_has_kernel_for_dispatch_key(op, "PrivateUse1")
        for op in ("aten::convolution", "aten::convolution_overrideable")
    ),
    reason="the bridge does not register aten::convolution for PrivateUse1 yet",
)


def r(*shape):
    return torch.randn(*shape)


# ---- convolution ------------------------------------------------------------------


@needs_conv
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2, padding=1),
        dict(stride=(2, 1), padding=(0, 2), dilation=(1, 2)),
        dict(stride=3, padding=0),  # trailing input rows no window reaches
        dict(groups=2, padding=1),
        dict(groups=4, stride=2),  # depthwise
        dict(padding="same", dilation=2),
    ],
)
def test_conv2d(kw):
    groups = kw.get("groups", 1)
    run(
        lambda x, w, b: F.conv2d(x, w, b, **kw),
        r(2, 4, 9, 8),
        r(6 if groups != 4 else 4, 4 // groups, 3, 3),
        r(6 if groups != 4 else 4),
    )


@needs_conv
def test_conv1d_conv3d_no_bias():
    run(lambda x, w: F.conv1d(x, w, stride=2, padding=1), r(2, 3, 11), r(5, 3, 3))
    run(lambda x, w: F.conv3d(x, w, padding=1, groups=2), r(1, 4, 5, 6, 5), r(2, 2, 3, 3, 3))


@needs_conv
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2),
        dict(stride=2, padding=1, output_padding=1),
        dict(stride=(2, 3), padding=(1, 0), output_padding=(0, 2), dilation=(2, 1)),
        dict(groups=2, stride=2, padding=1),
    ],
)
def test_conv_transpose2d(kw):
    groups = kw.get("groups", 1)
    run(
        lambda x, w, b: F.conv_transpose2d(x, w, b, **kw),
        r(2, 4, 5, 6),
        r(4, 6 // groups, 3, 3),
        r(6),
    )


@needs_conv
def test_conv_transpose1d():
    run(
        lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=2, output_padding=1),
        r(2, 3, 7),
        r(3, 2, 4),
    )


@needs_conv
def test_conv_grad_subsets():
    x, w = r(2, 3, 7, 7), r(4, 3, 3, 3)
    xt = x.to(D)
    wt = w.to(D).requires_grad_()
    torchtpu.metrics.reset()
    F.conv2d(xt, wt, padding=1).sum().backward()  # weight gradient only
    wc = w.clone().requires_grad_()
    F.conv2d(x, wc, padding=1).sum().backward()
    torch.testing.assert_close(wt.grad.cpu(), wc.grad, atol=1e-4, rtol=1e-4)
    torchtpu.metrics.counters()["fallbacks"]


# ---- pooling ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, ceil_mode=True),
        dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1), padding=(1, 1)),
    ],
)
def test_max_pool2d_with_indices(kw):
    fn = lambda x: F.max_pool2d(x, return_indices=True, **kw)  # noqa: E731
    run(fn, r(2, 3, 9, 10))
    run(fn, r(3, 7, 7))  # unbatched


def test_max_pool_ties_and_nan():
    x = torch.zeros(1, 1, 4, 4)
    x[0, 0, 1, 1] = float("nan")
    x[0, 0, 2, 3] = -float("inf")
    run(lambda x: F.max_pool2d(x, 2, return_indices=True), x, grad=False)
    run(
        lambda x: F.max_pool2d(x, 3, stride=1, padding=1),
        torch.full((1, 1, 3, 3), -float("inf")),
        grad=False,
    )


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=(2, 3), stride=(3, 1), divisor_override=5),
    ],
)
def test_avg_pool2d(kw):
    run(lambda x: F.avg_pool2d(x, **kw), r(2, 3, 10, 9))


def test_pool1d_and_3d():
    run(lambda x: F.max_pool1d(x, 3, stride=2, padding=1), r(2, 3, 11))
    run(lambda x: F.avg_pool1d(x, 3, stride=2, ceil_mode=True), r(2, 3, 11))
    run(lambda x: F.max_pool3d(x, 2, return_indices=True), r(1, 2, 4, 5, 6))
    run(lambda x: F.avg_pool3d(x, 3, stride=2, padding=1), r(1, 2, 5, 5, 6))


@pytest.mark.parametrize("size", [(3, 3), (4, 5), (1, 1), (5, 7)])
def test_adaptive_avg_pool2d(size):
    run(lambda x: F.adaptive_avg_pool2d(x, size), r(2, 3, 12, 10))


def test_pool_bf16():
    x = r(2, 3, 8, 8).bfloat16()
    run(lambda x: F.max_pool2d(x, 2), x, grad=False)
    run(lambda x: F.avg_pool2d(x, 2), x, grad=False, atol=1e-2, rtol=1e-2)


# ---- a small CNN ----------------------------------------------------------------------


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.avg_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


@needs_conv
def test_small_cnn_forward_backward():
    torch.manual_seed(0)
    cpu = SmallCNN()
    dev = SmallCNN()
    dev.load_state_dict(cpu.state_dict())
    dev.to(D)
    x = r(4, 3, 16, 16)
    y = torch.randint(0, 10, (4,))
    torchtpu.metrics.reset()
    loss_c = F.cross_entropy(cpu(x), y)
    loss_c.backward()
    loss_d = F.cross_entropy(dev(x.to(D)), y.to(D))
    loss_d.backward()
    torch.testing.assert_close(loss_d.cpu(), loss_c, atol=1e-4, rtol=1e-4)
    for (name, pc), pd in zip(cpu.named_parameters(), dev.parameters(), strict=True):
        torch.testing.assert_close(pd.grad.cpu(), pc.grad, atol=1e-4, rtol=1e-4, msg=name)
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    mine = [op for op in fallbacks if any(k in op for k in ("conv", "pool", "mm", "linear"))]
    assert not mine, f"CPU fallbacks: {fallbacks}"
