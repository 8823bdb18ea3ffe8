"""_foreach_* ops and the optimizers that use them, on "tpu" against PyTorch CPU."""

import copy
import warnings

import pytest
import torch

import torchtpu

DEV = "tpu"
SHAPES = [(3, 4), (5,), (), (2, 3, 2)]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def tensors(dtype=torch.float32, low=-2.0, high=2.0):
    return [(torch.rand(s) * (high - low) + low).to(dtype) for s in SHAPES]


def check(fn, *lists, rtol=None, atol=None):
    """fn(*lists) on CPU and on tpu copies; compares the results and every
    list (in-place ops mutate them); no op may fall back to the CPU."""
    cpu = [[t.clone() for t in ts] if isinstance(ts, list) else ts for ts in lists]
    dev = [[t.to(DEV) for t in ts] if isinstance(ts, list) else ts for ts in lists]
    expected = fn(*cpu)
    torchtpu.metrics.reset()
    got = fn(*dev)
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not fallbacks, f"CPU fallback: {fallbacks}"
    tol = {} if rtol is None else {"rtol": rtol, "atol": atol}
    if expected is not None:
        torch.testing.assert_close([t.cpu() for t in got], list(expected), equal_nan=True, **tol)
    for c, d in zip(cpu, dev, strict=False):
        if isinstance(c, list):
            torch.testing.assert_close([t.cpu() for t in d], c, equal_nan=True, **tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_binary_overloads(dtype):
    a, b = tensors(dtype), tensors(dtype, 0.5, 2.0)
    scalars = [0.5, -2.0, 3, 1.5]
    for op in ("add", "sub", "mul", "div"):
        f = getattr(torch, f"_foreach_{op}")
        f_ = getattr(torch, f"_foreach_{op}_")
        check(lambda x, y, f=f: f(x, y), a, b)
        check(lambda x, f=f: f(x, 2.5), a)
        check(lambda x, f=f: f(x, scalars), a)
        check(lambda x, y, f_=f_: f_(x, y), a, b)
        check(lambda x, f_=f_: f_(x, 0.25), a)
        check(lambda x, f_=f_: f_(x, scalars), a)
    check(lambda x, y: torch._foreach_add(x, y, alpha=-0.5), a, b)
    check(lambda x, y: torch._foreach_sub_(x, y, alpha=2), a, b)
    check(lambda x: torch._foreach_mul_(x, torch.tensor(0.3, device=x[0].device)), a)
    check(lambda x: torch._foreach_add_(x, torch.tensor(1.5, device=x[0].device), alpha=2), a)
    check(lambda x: torch._foreach_div(x, torch.tensor(4.0, device=x[0].device)), a)
    for op in ("maximum", "minimum", "clamp_min", "clamp_max"):
        f = getattr(torch, f"_foreach_{op}")
        check(lambda x, y, f=f: f(x, y), a, b)
        check(lambda x, f=f: f(x, 0.1), a)
        check(lambda x, op=op: getattr(torch, f"_foreach_{op}_")(x, scalars), a)


def test_integer_lists_and_promotion():
    a = [torch.randint(-5, 5, s) for s in SHAPES]
    check(lambda x: torch._foreach_add(x, 2), a)
    check(lambda x: torch._foreach_mul(x, 1.5), a)  # int * float -> float
    check(lambda x: torch._foreach_div(x, 2), a)  # int / int -> float
    check(lambda x: torch._foreach_add_(x, [1, 2, 3, 4]), a)
    check(lambda x, y: torch._foreach_mul(x, y), a, tensors())  # int * float -> float
    check(lambda x, y: torch._foreach_maximum_(x, y), a, [torch.randint(-5, 5, s) for s in SHAPES])


def test_pointwise_and_lerp():
    a, b, c = tensors(), tensors(), tensors(low=0.5, high=2.0)
    s = [0.1, -0.2, 0.3, 2.0]
    check(lambda x, y, z: torch._foreach_addcmul(x, y, z, value=0.5), a, b, c)
    check(lambda x, y, z: torch._foreach_addcmul_(x, y, z), a, b, c)
    check(lambda x, y, z: torch._foreach_addcmul_(x, y, z, s), a, b, c)
    check(lambda x, y, z: torch._foreach_addcdiv(x, y, z, value=-1.5), a, b, c)
    check(lambda x, y, z: torch._foreach_addcdiv_(x, y, z, s), a, b, c)
    check(lambda x, y, z: torch._foreach_addcdiv_(x, y, z, torch.tensor(s)), a, b, c)
    check(lambda x, y, z: torch._foreach_addcmul_(x, y, z, torch.tensor(s)), a, b, c)
    check(lambda x, y: torch._foreach_lerp(x, y, 0.3), a, b)
    check(lambda x, y: torch._foreach_lerp_(x, y, 0.9), a, b)
    check(lambda x, y, w: torch._foreach_lerp_(x, y, w), a, b, tensors(low=0, high=1))
    check(lambda x, y: torch._foreach_lerp(x, y, s), a, b)


def test_unary_zero_copy_pow():
    a = tensors(low=0.1, high=3.0)
    for op in (
        "sqrt",
        "neg",
        "abs",
        "exp",
        "sign",
        "reciprocal",
        "log",
        "sigmoid",
        "tanh",
        "erf",
        "rsqrt",
    ):
        check(lambda x, op=op: getattr(torch, f"_foreach_{op}")(x), a)
        check(lambda x, op=op: getattr(torch, f"_foreach_{op}_")(x), a)
    check(lambda x: torch._foreach_zero_(x), a)
    check(lambda x, y: torch._foreach_copy_(x, y), a, tensors(torch.float64))
    check(lambda x, y: torch._foreach_pow(x, y), a, tensors())
    check(lambda x: torch._foreach_pow(x, 2.0), a)
    check(lambda x: torch._foreach_pow_(x, [0.5, 2, 3, -1.0]), a)
    check(lambda y: torch._foreach_pow(2.0, y), tensors())


@pytest.mark.parametrize("ord", [2.0, 1, float("inf"), 3.0, 0])
def test_norm(ord):
    a = tensors()
    check(lambda x: torch._foreach_norm(x, ord), a, rtol=1e-5, atol=1e-5)
    check(lambda x: torch._foreach_norm(x, ord), tensors(torch.bfloat16), rtol=1e-2, atol=1e-2)


def test_clip_grad_norm():
    grads = tensors()
    params_c = [torch.zeros_like(g, requires_grad=True) for g in grads]
    params_d = [torch.zeros_like(g, device=DEV, requires_grad=True) for g in grads]
    for pc, pd, g in zip(params_c, params_d, grads, strict=False):
        pc.grad, pd.grad = g.clone(), g.to(DEV)
    torchtpu.metrics.reset()
    nd = torch.nn.utils.clip_grad_norm_(params_d, 0.5)
    nc = torch.nn.utils.clip_grad_norm_(params_c, 0.5)
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not any(k.startswith("aten::_foreach") for k in fallbacks), fallbacks
    torch.testing.assert_close(nd.cpu(), nc)
    for pc, pd in zip(params_c, params_d, strict=False):
        torch.testing.assert_close(pd.grad.cpu(), pc.grad)


OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.1),
    "sgd_momentum_wd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
    "sgd_nesterov_foreach": lambda p: torch.optim.SGD(
        p, lr=0.1, momentum=0.9, nesterov=True, foreach=True
    ),
    "sgd_loop": lambda p: torch.optim.SGD(
        p, lr=0.1, momentum=0.9, weight_decay=0.01, foreach=False
    ),
    "adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "adam_foreach_wd_amsgrad": lambda p: torch.optim.Adam(
        p, lr=0.01, weight_decay=0.1, amsgrad=True, foreach=True
    ),
    "adam_loop": lambda p: torch.optim.Adam(
        p, lr=0.01, weight_decay=0.1, amsgrad=True, foreach=False
    ),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.01),
    "adamw_foreach": lambda p: torch.optim.AdamW(p, lr=0.01, foreach=True),
    "adamw_loop": lambda p: torch.optim.AdamW(p, lr=0.01, foreach=False),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_steps(name):
    """A few training steps of a small model on tpu and on CPU give the same parameters."""
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    dev_model = copy.deepcopy(model).to(DEV)
    opt_c, opt_d = OPTIMIZERS[name](model.parameters()), OPTIMIZERS[name](dev_model.parameters())
    x, y = torch.randn(6, 4), torch.randn(6, 2)
    torchtpu.metrics.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3):
            for m, opt, xx, yy in ((model, opt_c, x, y), (dev_model, opt_d, x.to(DEV), y.to(DEV))):
                opt.zero_grad()
                torch.nn.functional.mse_loss(m(xx), yy).backward()
                opt.step()
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    mine = (
        "_foreach",
        "add",
        "sub",
        "mul",
        "div",
        "sqrt",
        "lerp",
        "addc",
        "maximum",
        "zero",
        "fill",
        "tanh",
    )
    assert not any(k.startswith("aten::" + p) for k in fallbacks for p in mine), fallbacks
    for pc, pd in zip(model.parameters(), dev_model.parameters(), strict=False):
        torch.testing.assert_close(pd.detach().cpu(), pc.detach(), rtol=1e-5, atol=1e-6)
