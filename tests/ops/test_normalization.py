"""Normalization and softmax on "tpu" vs PyTorch CPU: softmax/log_softmax
(and their backward), layer_norm, group_norm and batch_norm (train and eval,
running stats), forward and backward, with no CPU fallback; and a tiny model
with LayerNorm, BatchNorm2d and GroupNorm trained for a few steps on both."""

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from compare_cpu import run

import torchtpu

D = "tpu"
NAN = float("nan")
INF = float("inf")


torch.manual_seed(0)
X = torch.randn(4, 3, 5, 6)


# ---- softmax -------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, -1, 0])
def test_softmax_log_softmax(dim):
    run(lambda t: torch.softmax(t, dim), X, grad=True)
    run(lambda t: torch.log_softmax(t, dim), X, grad=True)


def test_softmax_types():
    x = torch.randn(4, 7)
    run(lambda t: torch.softmax(t, 1), x.double(), grad=True)
    # half_to_float
    run(lambda t: torch.softmax(t, 1, dtype=torch.float32), x.bfloat16(), atol=1e-2, rtol=1e-2)
    run(lambda t: torch.log_softmax(t, 0, dtype=torch.float32), x.bfloat16(), atol=1e-2, rtol=1e-2)
    run(lambda t: torch.softmax(t, -1), x.bfloat16(), grad=True, atol=1e-2, rtol=1e-2)
    run(lambda t: torch.softmax(t, 0), torch.tensor(1.5), grad=True)


def test_softmax_inf_nan_rows():
    x = torch.tensor([[1.0, -INF, 2.0], [-INF, -INF, -INF], [0.0, NAN, 1.0], [INF, 0.0, 1.0]])
    run(lambda t: torch.softmax(t, 1), x)
    run(lambda t: torch.log_softmax(t, 1), x)


# ---- layer norm ------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6,), (5, 6), (3, 5, 6)], ids=str)
def test_layer_norm(shape):
    w, b = torch.randn(shape), torch.randn(shape)
    run(lambda t, w, b: F.layer_norm(t, shape, w, b, eps=1e-3), X, w, b, grad=True)


def test_layer_norm_saved_stats():
    w, b = torch.randn(5, 6), torch.randn(5, 6)
    run(lambda t, w, b: torch.ops.aten.native_layer_norm(t, [5, 6], w, b, 1e-5), X, w, b)
    run(lambda t: torch.ops.aten.native_layer_norm(t, [6], None, None, 1e-5), X.double())


def test_layer_norm_bfloat16():
    w = torch.randn(6)
    run(lambda t: F.layer_norm(t, (6,)), X.bfloat16(), atol=2e-2, rtol=2e-2)
    run(lambda t, w: F.layer_norm(t, (6,), w), X.bfloat16(), w.bfloat16(), atol=2e-2, rtol=2e-2)


def test_layer_norm_without_affine_grad():
    run(lambda t: F.layer_norm(t, (5, 6)), X, grad=True)


def test_layer_norm_weight_grad_only():
    w, b = torch.randn(6), torch.randn(6)
    run(lambda t, w, b: F.layer_norm(t, (6,), w, b), X, w, b, grad=True, nograd={0})


# ---- group norm -------------------------------------------------------------------


@pytest.mark.parametrize("groups", [1, 3])
def test_group_norm(groups):
    w, b = torch.randn(3), torch.randn(3)
    run(lambda t, w, b: F.group_norm(t, groups, w, b, eps=1e-3), X, w, b, grad=True)
    run(lambda t: torch.ops.aten.native_group_norm(t, None, None, 4, 3, 30, groups, 1e-5), X)


def test_group_norm_3d_and_double():
    x = torch.randn(2, 6, 7)
    w, b = torch.randn(6), torch.randn(6)
    run(lambda t, w, b: F.group_norm(t, 2, w, b), x.double(), w.double(), b.double(), grad=True)


def test_group_norm_without_affine_grad():
    run(lambda t: F.group_norm(t, 3), X, grad=True)


# ---- batch norm -------------------------------------------------------------------


def test_batch_norm_eval():
    w, b = torch.randn(3), torch.randn(3)
    rm, rv = torch.randn(3), torch.rand(3) + 0.5
    run(
        lambda t, w, b, rm, rv: F.batch_norm(t, rm, rv, w, b, training=False, eps=1e-3),
        X,
        w,
        b,
        rm,
        rv,
        grad=True,
        nograd={3, 4},
    )
    run(lambda t, rm, rv: F.batch_norm(t, rm, rv, training=False), torch.randn(8, 3), rm, rv)


def test_batch_norm_eval_without_affine_grad():
    rm, rv = torch.randn(3), torch.rand(3) + 0.5
    run(
        lambda t, rm, rv: F.batch_norm(t, rm, rv, training=False),
        torch.randn(8, 3),
        rm,
        rv,
        grad=True,
        nograd={1, 2},
    )


def test_batch_norm_train_without_running_stats():
    w, b = torch.randn(3), torch.randn(3)
    run(lambda t, w, b: F.batch_norm(t, None, None, w, b, training=True), X, w, b, grad=True)
    run(
        lambda t, w, b: F.batch_norm(t, None, None, w, b, training=True),
        torch.randn(8, 3, 4),
        w,
        b,
        grad=True,
    )


def test_batch_norm_saved_stats():
    # (out, save_mean, save_invstd) in training. (In eval the CPU kernel saves
    # empty tensors but the meta kernel, which gives the tpu result types,
    # says [C]; only the output is compared there.)
    w, b = torch.randn(3), torch.randn(3)
    run(
        lambda t, w, b: torch.ops.aten.native_batch_norm(t, w, b, None, None, True, 0.1, 1e-5),
        X,
        w,
        b,
    )
    run(
        lambda t, rm, rv: torch.ops.aten.native_batch_norm(t, None, None, rm, rv, False, 0.1, 1e-5)[
            0
        ],
        X,
        torch.randn(3),
        torch.rand(3) + 0.5,
    )
    run(
        lambda t: torch.ops.aten._native_batch_norm_legit.no_stats(t, None, None, True, 0.1, 1e-5),
        X,
    )


def test_batch_norm_functional_running_stats():
    rm, rv = torch.randn(3), torch.rand(3) + 0.5
    run(
        lambda t, rm, rv: torch.ops.aten._native_batch_norm_legit_functional(
            t, None, None, rm, rv, True, 0.3, 1e-5
        ),
        X,
        rm,
        rv,
    )


def test_batch_norm_train_updates_running_stats():
    w, b = torch.randn(3), torch.randn(3)

    def fn(t, w, b):
        rm = torch.zeros(3, device=t.device)
        rv = torch.ones(3, device=t.device)
        y = F.batch_norm(t, rm, rv, w, b, training=True, momentum=0.3)
        return y, rm, rv

    run(fn, X, w, b, grad=True)


# ---- a tiny model ------------------------------------------------------------------


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.ln = nn.LayerNorm(16)
        self.bn = nn.BatchNorm2d(4)
        self.gn = nn.GroupNorm(2, 4)
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x):
        h = self.ln(self.fc1(x))
        h = h.reshape(-1, 4, 2, 2)
        h = self.gn(self.bn(h)).relu()
        return self.fc2(h.flatten(1))


MY_OPS = (
    "aten::native_layer_norm",
    "aten::native_layer_norm_backward",
    "aten::native_batch_norm",
    "aten::native_batch_norm_backward",
    "aten::native_group_norm",
    "aten::native_group_norm_backward",
    "aten::_log_softmax",
    "aten::_log_softmax_backward_data",
    "aten::nll_loss_forward",
    "aten::nll_loss_backward",
    "aten::sum.dim_IntList",
    "aten::mean.dim",
)


def test_train_tiny_model_with_norms():
    torch.manual_seed(1)
    cpu = Tiny()
    dev = copy.deepcopy(cpu).to(D)
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(dev.parameters(), lr=0.1)
    torchtpu.metrics.reset()
    for _ in range(3):
        x, y = torch.randn(8, 12), torch.randint(0, 5, (8,))
        for model, opt, xs, ys in [(cpu, opt_c, x, y), (dev, opt_d, x.to(D), y.to(D))]:
            opt.zero_grad()
            loss = F.cross_entropy(model(xs), ys)
            loss.backward()
            opt.step()
    for (name, a), b in zip(cpu.state_dict().items(), dev.state_dict().values(), strict=True):
        torch.testing.assert_close(b.cpu(), a, atol=1e-4, rtol=1e-4, msg=name)
    cpu.eval()
    dev.eval()
    x = torch.randn(8, 12)
    torch.testing.assert_close(dev(x.to(D)).detach().cpu(), cpu(x).detach(), atol=1e-4, rtol=1e-4)
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not [op for op in fallbacks if op in MY_OPS], f"CPU fallbacks: {fallbacks}"


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("op", ["native_batch_norm", "_native_batch_norm_legit"])
def test_native_batch_norm_results_match_cpu(op, training):
    # Eval mode returns empty save_mean/save_invstd like PyTorch's own kernels
    # (the meta function says [C]); training writes the running stats back.
    x, w, b = torch.randn(3, 2, 4), torch.rand(2) + 0.5, torch.randn(2)
    fn = getattr(torch.ops.aten, op)
    stats = [torch.randn(2), torch.rand(2) + 0.5]
    tpu_stats = [s.to("tpu") for s in stats]
    run(
        lambda x, w, b: fn(x, w, b, *(tpu_stats if x.is_tpu else stats), training, 0.1, 1e-5),
        x,
        w,
        b,
    )
    for s, t in zip(stats, tpu_stats, strict=True):
        torch.testing.assert_close(t.cpu(), s)
    if op == "_native_batch_norm_legit":
        run(lambda x: torch.ops.aten._native_batch_norm_legit(x, None, None, True, 0.1, 1e-5), x)
