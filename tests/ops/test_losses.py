"""Losses on "tpu" vs PyTorch CPU: nll_loss (weight, ignore_index, every
reduction, 1-d and 2-d inputs, the 2d/N-d spatial form), cross_entropy
(through log_softmax + nll_loss, label smoothing, probabilities), mse_loss,
binary_cross_entropy(_with_logits), smooth_l1_loss, huber_loss, l1_loss,
kl_div; forward and backward, with no CPU fallback."""

from functools import partial

import compare_cpu
import pytest
import torch
import torch.nn.functional as F

D = "tpu"
# The shared CPU comparison, with this file's defaults.
run = partial(compare_cpu.run, grad=(0,), atol=1e-5, rtol=1e-5)
REDUCTIONS = ["none", "mean", "sum"]


torch.manual_seed(0)
LOGP = torch.randn(6, 5).log_softmax(1)
TARGET = torch.tensor([0, 4, 2, -100, 1, 1])
WEIGHT = torch.rand(5) + 0.1


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    run(lambda x, t: F.nll_loss(x, t, reduction=reduction), LOGP, TARGET)
    run(lambda x, t, w: F.nll_loss(x, t, w, reduction=reduction), LOGP, TARGET, WEIGHT)
    run(
        lambda x, t: F.nll_loss(x, t, ignore_index=1, reduction=reduction),
        LOGP,
        TARGET.clamp(min=0),
    )


def test_nll_loss_forward_total_weight():
    for r in range(3):
        for w in [None, WEIGHT]:
            want = torch.ops.aten.nll_loss_forward(LOGP, TARGET, w, r, -100)
            got = torch.ops.aten.nll_loss_forward(
                LOGP.to(D), TARGET.to(D), None if w is None else w.to(D), r, -100
            )
            for a, b in zip(got, want, strict=True):
                torch.testing.assert_close(a.cpu(), b)


def test_nll_loss_all_ignored_and_1d():
    t = torch.full((6,), -100)
    run(lambda x, t: F.nll_loss(x, t), LOGP, t)  # mean over no weight: NaN
    run(lambda x, t: F.nll_loss(x, t, reduction="sum"), LOGP, t)
    run(lambda x, t: F.nll_loss(x, t), LOGP[0], torch.tensor(3))
    run(lambda x, t, w: F.nll_loss(x, t, w, reduction="none"), LOGP[0], torch.tensor(3), WEIGHT)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_2d(reduction):
    x = torch.randn(2, 4, 3, 5).log_softmax(1)
    t = torch.randint(0, 4, (2, 3, 5))
    t[0, 1, 2] = -100
    run(lambda x, t, w: F.nll_loss(x, t, w, reduction=reduction), x, t, torch.rand(4))
    # N-d (3 spatial dims) goes through a reshape to the 2d form
    run(lambda x, t: F.nll_loss(x, t, reduction=reduction), x.unsqueeze(-1), t.unsqueeze(-1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy(reduction):
    logits = torch.randn(6, 5)
    run(lambda x, t: F.cross_entropy(x, t, reduction=reduction), logits, TARGET)
    # with weights and "mean", label smoothing uses masked_select (a
    # data-dependent shape, computed on the device in two steps)
    run(
        lambda x, t, w: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=0.1),
        logits,
        TARGET,
        WEIGHT,
    )


def test_cross_entropy_variants():
    logits = torch.randn(6, 5)
    run(lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2), logits, TARGET)
    run(lambda x, p: F.cross_entropy(x, p), logits, torch.rand(6, 5).softmax(1))
    run(lambda x, t: F.cross_entropy(x, t), torch.randn(2, 4, 3), torch.randint(0, 4, (2, 3)))
    run(lambda x, t: F.cross_entropy(x, t), logits.double(), TARGET)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1(reduction):
    a, b = torch.randn(3, 4, 5), torch.randn(3, 4, 5)
    run(lambda a, b: F.mse_loss(a, b, reduction=reduction), a, b, grad=(0, 1))
    run(lambda a, b: F.l1_loss(a, b, reduction=reduction), a, b, grad=(0, 1))
    run(lambda a, b: F.mse_loss(a, b, reduction=reduction), a.double(), b.double())


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    x, t, w = torch.rand(4, 7), torch.rand(4, 7), torch.rand(4, 7)
    run(lambda x, t: F.binary_cross_entropy(x, t, reduction=reduction), x, t)
    run(lambda x, t, w: F.binary_cross_entropy(x, t, w, reduction=reduction), x, t, w)
    # log terms are clamped at -100
    edge = torch.tensor([0.0, 1.0, 0.5, 1e-30])
    run(
        lambda x, t: F.binary_cross_entropy(x, t, reduction=reduction),
        edge,
        torch.tensor([0.0, 1.0, 1.0, 1.0]),
        grad=(),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(reduction):
    x, t = torch.randn(4, 7) * 5, torch.rand(4, 7)
    w, pw = torch.rand(4, 7), torch.rand(7) * 2
    run(
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction=reduction),
        x,
        t,
        grad=(0, 1),
    )
    run(
        lambda x, t, w, pw: F.binary_cross_entropy_with_logits(
            x, t, w, pos_weight=pw, reduction=reduction
        ),
        x,
        t,
        w,
        pw,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_smooth_l1_huber(reduction):
    a, b = torch.randn(3, 4, 5), torch.randn(3, 4, 5)
    for beta in [1.0, 0.5, 0.0]:
        run(
            lambda a, b, beta=beta: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
            a,
            b,
            grad=(0, 1),
        )
    for delta in [1.0, 0.3]:
        run(
            lambda a, b, delta=delta: F.huber_loss(a, b, reduction=reduction, delta=delta),
            a,
            b,
            grad=(0, 1),
        )


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
def test_kl_div(reduction):
    x, t = torch.randn(4, 5).log_softmax(1), torch.rand(4, 5).softmax(1)
    # xlogy (not a loss op) may fall back
    run(lambda x, t: F.kl_div(x, t, reduction=reduction), x, t, allow={"aten::xlogy.OutTensor"})
    run(lambda x, t: F.kl_div(x, t, reduction=reduction, log_target=True), x, t.log())
