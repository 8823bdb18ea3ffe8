"""PyTorch's contracts on "tpu", beyond values: parameter identity (tied
weights), in-place and out= writes (shapes, can-cast, overlapping memory),
mixed-dtype errors, and the strides of results. Each case runs on the CPU and
on "tpu" and must behave the same: the same exception type, or results with
the same values, dtype, shape and strides; in strict, defer and
torch.compile(backend="tpu") modes."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import torchtpu

MODES = ["strict", "defer", "compile"]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    with torchtpu.mode("strict" if request.param == "compile" else request.param):
        yield request.param


def _outputs(v: Any) -> list[torch.Tensor]:
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for x in v for t in _outputs(x)]
    return []


def _run(
    fn: Callable[[str], Any], device: str, backend: str | None
) -> tuple[Any, BaseException | None]:
    if backend is not None:
        torch._dynamo.reset()
    f = torch.compile(fn, backend=backend) if backend is not None else fn
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = f(device)
        torchtpu.sync()
        return out, None
    except Exception as e:  # noqa: BLE001 - compared with the CPU's
        return None, e


def same_as_cpu(fn: Callable[[str], Any], mode: str) -> None:
    """fn(device) on the CPU and on tpu: the same exception type, or outputs
    with the same values, dtypes, shapes and strides. Under torch.compile the
    reference is the CPU under torch.compile too (backend "aot_eager"): the
    tracing that PyTorch does before any backend sees the graph decides some
    cases (its meta kernels resize an in-place target that the eager CPU
    kernel refuses to, on every device)."""
    compiled = mode == "compile"
    want, cpu_error = _run(fn, "cpu", "aot_eager" if compiled else None)
    got, tpu_error = _run(fn, "tpu", "tpu" if compiled else None)
    if cpu_error is not None:
        assert tpu_error is not None, f"the CPU raises {cpu_error!r}; tpu does not"
        assert isinstance(tpu_error, type(cpu_error)), (tpu_error, cpu_error)
        return
    assert tpu_error is None, f"tpu raises {tpu_error!r}; the CPU does not"
    for g, w in zip(_outputs(got), _outputs(want), strict=True):
        assert g.device.type == "tpu"
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        # Significant strides, as PyTorch compares them: size-1 dims have none.
        if w.numel() > 1:
            same = all(
                a == b or n == 1 for a, b, n in zip(g.stride(), w.stride(), w.shape, strict=True)
            )
            assert same, (g.stride(), w.stride())
        torch.testing.assert_close(g.cpu(), w, equal_nan=True, rtol=1e-5, atol=1e-6)


# ---- parameters: .to("tpu") keeps them, tied weights stay tied ---------------------------


def _tied() -> nn.Module:
    torch.manual_seed(0)
    m = nn.Module()
    m.a = nn.Embedding(8, 4)
    m.b = nn.Linear(4, 8, bias=False)
    m.b.weight = m.a.weight
    return m


def test_to_keeps_parameters_and_ties() -> None:
    m = _tied()
    w = m.a.weight
    m.to("tpu")
    assert m.a.weight is m.b.weight is w
    assert w.device.type == "tpu" and len(list(m.parameters())) == 1
    assert torch._has_compatible_shallow_copy_type(torch.zeros(1), torch.zeros(1, device="tpu"))


def test_param_data_assignment_keeps_the_parameter() -> None:
    m = _tied()
    p = m.a.weight
    p.data = p.data.to("tpu")
    assert m.b.weight is p and p.device.type == "tpu" and isinstance(p, nn.Parameter)
    (p.sum() * 2).backward()
    assert p.grad is not None and p.grad.device.type == "tpu"
    torch.testing.assert_close(p.grad.cpu(), torch.full((8, 4), 2.0))


def test_to_empty_keeps_ties() -> None:
    m = _tied().to_empty(device="tpu")
    assert m.a.weight is m.b.weight and m.a.weight.device.type == "tpu"


def test_load_state_dict_assign_shares_as_on_cpu() -> None:
    def build(device: str) -> nn.Module:
        with torch.device("meta"):
            m = _tied()
        sd = _tied().to(device).state_dict()  # both keys: one tensor
        m.load_state_dict(sd, assign=True)
        return m

    cpu, tpu = build("cpu"), build("tpu")
    same_object = cpu.a.weight is cpu.b.weight
    assert (tpu.a.weight is tpu.b.weight) == same_object
    shared = cpu.a.weight.data_ptr() == cpu.b.weight.data_ptr()
    assert (tpu.a.weight.data_ptr() == tpu.b.weight.data_ptr()) == shared
    assert tpu.a.weight.device.type == "tpu"


def test_optimizer_built_before_to_trains_the_tied_model(mode: str) -> None:
    def train(device: str) -> nn.Module:
        m = _tied()
        opt = torch.optim.AdamW(m.parameters(), lr=0.1)  # before .to(), as people do
        m.to(device)
        ids = torch.tensor([[1, 2, 3], [4, 5, 6]], device=device)
        for _ in range(5):
            opt.zero_grad()
            F.cross_entropy(m.b(m.a(ids)).flatten(0, 1), ids.flatten()).backward()
            opt.step()
        return m

    cpu = train("cpu")
    if mode == "compile":
        pytest.skip("no graph: the optimizer step is eager")
    tpu = train("tpu")
    assert tpu.a.weight is tpu.b.weight
    torch.testing.assert_close(
        tpu.a.weight.detach().cpu(), cpu.a.weight.detach(), atol=1e-5, rtol=0
    )


# ---- in-place ops: the target keeps its shape; broadcasting larger raises -------------

BINARY_INPLACE = [
    "pow_",
    "atan2_",
    "hypot_",
    "xlogy_",
    "copysign_",
    "fmod_",
    "remainder_",
    "clamp_",
    "igamma_",
    "nextafter_",
    "ldexp_",
    "heaviside_",
    "lt_",
    "eq_",
    "add_",
    "mul_",
    "div_",
    "sub_",
]


@pytest.mark.parametrize("op", BINARY_INPLACE)
def test_inplace_broadcasting_larger_than_self_raises(op: str, mode: str) -> None:
    def whole(dev: str) -> torch.Tensor:
        y = torch.full((4,), 2.0, device=dev)
        getattr(y, op)(torch.full((3, 4), 3.0, device=dev))
        return y

    def view(dev: str) -> torch.Tensor:
        x = torch.full((5,), 2.0, device=dev)
        getattr(x[1:2], op)(torch.full((3,), 3.0, device=dev))
        return x

    def fits(dev: str) -> torch.Tensor:
        x = torch.full((2, 3), 2.0, device=dev)
        getattr(x[:, 1:], op)(torch.full((2,), 3.0, device=dev))
        return x

    for fn in (whole, view, fits):
        same_as_cpu(fn, mode)


def test_inplace_on_int_tensors_of_bitwise_ops(mode: str) -> None:
    def f(dev: str) -> torch.Tensor:
        y = torch.tensor([1, 2, 3, 4], device=dev)
        y.bitwise_and_(torch.ones(3, 4, dtype=torch.long, device=dev))
        return y

    same_as_cpu(f, mode)


def test_inplace_on_a_parameter_keeps_its_shape() -> None:
    p = nn.Parameter(torch.ones(4, device="tpu"))
    with torch.no_grad(), pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        p.pow_(torch.ones(3, 4, device="tpu"))
    assert p.shape == (4,)


def test_out_arguments_are_resized_as_on_cpu(mode: str) -> None:
    def f(dev: str) -> torch.Tensor:
        out = torch.empty(4, device=dev)
        torch.pow(torch.ones(4, device=dev), torch.ones(3, 4, device=dev), out=out)
        return out

    same_as_cpu(f, mode)


def _written_in_a_wider_dtype(dev: str) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    a = torch.randn(64, generator=g).to(torch.bfloat16).to(dev)
    b = torch.randn(64, generator=g).to(torch.bfloat16).to(dev)
    sub = torch.empty(64, device=dev)
    torch.sub(a, b, out=sub)
    prod = torch.empty(64, device=dev)
    torch.mul(a, b, out=prod)
    eq = torch.empty(64, device=dev)
    torch.eq(a, b, out=eq)
    wide = torch.randn(64, generator=g).to(dev)
    narrow = a.clone().add_(wide)  # computed in float32, rounded into bfloat16
    floor = torch.empty(64, device=dev)
    torch.floor_divide(a.mul(1000), 0.001, out=floor)  # not tagged pointwise (found by the fuzzer)
    return [sub, prod, eq, narrow, floor]


def test_out_of_a_wider_dtype_gets_the_computed_dtype_rounded(mode: str) -> None:
    # TensorIterator computes in the inputs' common dtype and casts into out=:
    # bfloat16 - bfloat16 is rounded to bfloat16 before it becomes float32.
    same_as_cpu(_written_in_a_wider_dtype, mode)


# ---- can-cast, overlapping memory, mixed dtypes --------------------------------------

ERRORS: dict[str, Callable[[str], Any]] = {
    "mul_ float number into long": lambda d: torch.tensor([1, 2, 3], device=d).mul_(0.5),
    "add_ float tensor into long": lambda d: torch.ones(3, dtype=torch.long, device=d).add_(
        torch.ones(3, device=d)
    ),
    "sigmoid_ of long": lambda d: torch.ones(3, dtype=torch.long, device=d).sigmoid_(),
    "clamp_ long to a float bound": lambda d: torch.ones(3, dtype=torch.long, device=d).clamp_(0.5),
    "div_ long": lambda d: torch.ones(3, dtype=torch.long, device=d).div_(2),
    "add out= long from float": lambda d: torch.add(
        torch.ones(3, device=d), 1, out=torch.empty(3, dtype=torch.long, device=d)
    ),
    "mul_ into an expanded view": lambda d: (
        torch.ones(3, device=d).expand(2, 3).mul_(torch.ones(2, 3, device=d))
    ),
    "add_ into an expanded view": lambda d: torch.zeros(1, 4, device=d).expand(3, 4).add_(1),
    "copy_ partially overlapping": lambda d: (lambda x: x[1:].copy_(x[:-1]))(
        torch.arange(5.0, device=d)
    ),
    "add_ partially overlapping": lambda d: (lambda x: x[1:].add_(x[:-1]))(
        torch.arange(5.0, device=d)
    ),
    "add_ of its own transpose": lambda d: (lambda x: x.add_(x.t()))(torch.ones(3, 3, device=d)),
    "copy_ into an expanded view": lambda d: (
        torch.zeros(1, 4, device=d).expand(3, 4).copy_(torch.ones(3, 4))
    ),
    "mm mixed dtypes": lambda d: torch.mm(
        torch.ones(2, 2, device=d), torch.ones(2, 2, dtype=torch.bfloat16, device=d)
    ),
    "matmul mixed dtypes": lambda d: (
        torch.ones(2, 2, 2, device=d) @ torch.ones(2, 2, dtype=torch.bfloat16, device=d)
    ),
    "linear mixed dtypes": lambda d: F.linear(
        torch.ones(2, 2, device=d), torch.ones(2, 2, dtype=torch.bfloat16, device=d)
    ),
    "linear mixed bias": lambda d: F.linear(
        torch.ones(2, 2, device=d),
        torch.ones(2, 2, device=d),
        torch.ones(2, dtype=torch.bfloat16, device=d),
    ),
    "conv mixed dtypes": lambda d: F.conv1d(
        torch.ones(1, 2, 5, device=d), torch.ones(3, 2, 2, dtype=torch.bfloat16, device=d)
    ),
    "layer_norm with bfloat16 weights": lambda d: F.layer_norm(
        torch.ones(2, 3, device=d),
        (3,),
        torch.ones(3, dtype=torch.bfloat16, device=d),
        torch.ones(3, dtype=torch.bfloat16, device=d),
    ),
    "index_put_ mixed dtypes": lambda d: torch.zeros(3, 4, device=d).index_put_(
        (torch.tensor([0], device=d),), torch.ones(4, dtype=torch.bfloat16, device=d)
    ),
    "index_put_ values that do not broadcast": lambda d: torch.zeros(5, 3, device=d).index_put_(
        (torch.tensor([0, 2], device=d),), torch.ones(4, 3, device=d)
    ),
    # From the fuzzer: an empty indexing result (the meta kernel does not check).
    "index_put_ values that do not broadcast to an empty result": lambda d: torch.zeros(
        0, device=d
    ).index_put_((torch.zeros(0, dtype=torch.long, device=d),), torch.ones(3, 0, device=d)),
    "masked_scatter_ mixed dtypes": lambda d: torch.zeros(3, device=d).masked_scatter_(
        torch.ones(3, dtype=torch.bool, device=d), torch.ones(3, dtype=torch.bfloat16, device=d)
    ),
    "bool - float": lambda d: torch.ones(2, dtype=torch.bool, device=d) - torch.ones(2, device=d),
    "bool - number": lambda d: torch.ones(2, dtype=torch.bool, device=d) - 1,
    "number - bool": lambda d: 1 - torch.ones(2, dtype=torch.bool, device=d),
    "bool - bool": lambda d: (
        torch.ones(2, dtype=torch.bool, device=d) - torch.ones(2, dtype=torch.bool, device=d)
    ),
    "fill_ of an expanded view with a tensor": lambda d: (
        torch.zeros(1, 4, device=d).expand(3, 4).fill_(torch.tensor(2.0, device=d))
    ),
    "index_copy_ from itself": lambda d: (
        lambda x: x.index_copy_(0, torch.tensor([0, 1], device=d), x)
    )(torch.ones(2, 3, device=d)),
    "scatter_add_ from itself": lambda d: (
        lambda x: x.scatter_add_(0, torch.zeros(2, 3, dtype=torch.long, device=d), x)
    )(torch.ones(2, 3, device=d)),
    "cat out= one of its inputs": lambda d: (lambda a, b: torch.cat([a, b], 1, out=b))(
        torch.ones(1, 2, 4, device=d), torch.ones(1, 1, 4, device=d)
    ),
    "copy_ from a larger shape": lambda d: torch.zeros(2, 2, device=d).copy_(
        torch.zeros(2, 2, 2, device=d)
    ),
    "all out= a long tensor": lambda d: torch.all(
        torch.ones(2, 2, dtype=torch.long, device=d),
        1,
        out=torch.zeros(0, dtype=torch.long, device=d),
    ),
    "amin out= another dtype": lambda d: torch.amin(
        torch.ones(2, 2, device=d), 1, out=torch.zeros(0, dtype=torch.bfloat16, device=d)
    ),
    "nansum dtype= and out= differ": lambda d: torch.nansum(
        torch.ones(2, 2, device=d), 1, dtype=torch.bfloat16, out=torch.zeros(2, device=d)
    ),
    "cat out= a dtype it cannot cast to": lambda d: torch.cat(
        [torch.ones(2, dtype=torch.long, device=d)], out=torch.zeros(2, dtype=torch.bool, device=d)
    ),
    "round_ of bool (CPU kernel lacks the dtype)": lambda d: torch.ones(
        3, dtype=torch.bool, device=d
    ).round_(),
    "abs of bool": lambda d: torch.ones(3, dtype=torch.bool, device=d).abs(),
    "hypot of int64": lambda d: torch.hypot(
        torch.ones(3, dtype=torch.long, device=d), torch.ones(3, dtype=torch.long, device=d)
    ),
    "hypot of empty int64 (found by the fuzzer)": lambda d: torch.hypot(
        torch.ones(2, 0, dtype=torch.long, device=d), torch.ones(2, 0, dtype=torch.long, device=d)
    ),
    "cat out= a view that is also an input (found by the fuzzer)": lambda d: (
        lambda b: torch.cat([torch.arange(9.0, device=d)[2::2], b], 0, out=b)
    )(torch.arange(6.0, device=d)[::2]),
    "index_add of empty tensors of two dtypes (found by the fuzzer)": lambda d: torch.zeros(
        0, 1, dtype=torch.bfloat16, device=d
    ).index_add(
        1, torch.zeros(3, dtype=torch.long, device=d), torch.zeros(0, 3, dtype=torch.long, device=d)
    ),
    "mv of empty tensors of two dtypes": lambda d: torch.mv(
        torch.zeros(3, 0, device=d), torch.zeros(0, dtype=torch.long, device=d)
    ),
    "min over an empty dim (IndexError)": lambda d: torch.min(torch.zeros(0, 3, device=d), 0),
    "max of an empty tensor": lambda d: torch.max(torch.zeros(0, 3, device=d)),
    "index_select of a 0-d tensor with 5 indices": lambda d: torch.index_select(
        torch.tensor(1.0, device=d), 0, torch.zeros(5, dtype=torch.long, device=d)
    ),
    "setitem with an integer index and a 0-d value of another dtype (found by the fuzzer)": (
        lambda d: torch.zeros(4, 4, dtype=torch.long, device=d).__setitem__(
            torch.tensor([1], device=d), torch.tensor(True, device=d)
        )
    ),
    "uniform_ from > to": lambda d: torch.zeros(3, device=d).uniform_(1.0, 0.0),
    "bernoulli_ p > 1": lambda d: torch.zeros(3, device=d).bernoulli_(2.0),
    "exponential_ lambda < 0": lambda d: torch.zeros(3, device=d).exponential_(-1.0),
    "geometric_ p > 1": lambda d: torch.zeros(3, device=d).geometric_(1.5),
    "log_normal_ std < 0": lambda d: torch.zeros(3, device=d).log_normal_(0.0, -1.0),
    "cauchy_ sigma < 0": lambda d: torch.zeros(3, device=d).cauchy_(0.0, -1.0),
    "random_ from >= to": lambda d: torch.zeros(3, device=d).random_(5, 2),
    # From the 10,000-program fuzz run: dtypes the CPU kernels refuse, with
    # shapes or values the stand-ins of every dim 1 missed.
    "abs_ of bool (in-place, untagged)": lambda d: torch.ones(3, dtype=torch.bool, device=d).abs_(),
    "topk of bool with k > 1": lambda d: torch.topk(
        torch.ones(4, 1, dtype=torch.bool, device=d), 3, dim=0
    ),
    "kthvalue of bool with k > 1": lambda d: torch.kthvalue(
        torch.ones(9, dtype=torch.bool, device=d), 7
    ),
    "addcdiv of integer tensors": lambda d: torch.addcdiv(
        torch.ones(3, device=d),
        torch.ones(3, dtype=torch.long, device=d),
        torch.ones(3, dtype=torch.long, device=d),
    ),
    "var of bool out=": lambda d: torch.var(
        torch.ones(2, dtype=torch.bool, device=d), -1, out=torch.zeros(0, device=d)
    ),
    "full_like of an int64 tensor with nan": lambda d: torch.full_like(
        torch.ones(3, dtype=torch.long, device=d), float("nan")
    ),
    "fill_ of an int64 tensor with inf": lambda d: torch.ones(3, dtype=torch.long, device=d).fill_(
        float("inf")
    ),
    "masked_fill of an int64 tensor with 1e30": lambda d: torch.ones(
        3, dtype=torch.long, device=d
    ).masked_fill(torch.ones(3, dtype=torch.bool, device=d), 1e30),
    "fill_ of a uint8 tensor with 300": lambda d: torch.ones(3, dtype=torch.uint8, device=d).fill_(
        300
    ),
    "copy_ into an empty tensor from an empty tensor of more dims": lambda d: torch.zeros(
        0, 4, device=d
    ).copy_(torch.zeros(3, 0, 4, device=d)),
    "masked_fill_ with a mask that is its own element": lambda d: (
        lambda x: x.masked_fill_(x.squeeze(), 0.5)
    )(torch.ones(1, dtype=torch.bool, device=d)),
    # From a second fuzz seed: Python's in-place operators, and masks that overlap
    # what index_put_ writes.
    "x >>= 2.5 into an expanded float view": lambda d: (
        torch.ones(3, 1, device=d).expand(3, 2).__irshift__(2.5)
    ),
    "setitem through a mask that is the target's transpose": lambda d: (
        lambda x: x.t().__setitem__(x, True)
    )(torch.eye(3, dtype=torch.bool, device=d)),
    "setitem of two values through a mask that is the target": lambda d: (
        lambda x: x.__setitem__(x, torch.tensor([False, False], device=d))
    )(torch.tensor([True, False, True], device=d)),
    "index_put_ with an index that is the target": lambda d: (
        lambda x: x.index_put_((x,), torch.tensor([5, 5, 5], device=d))
    )(torch.tensor([0, 1, 2], device=d)),
    "frac_ of an expanded bool view (overlap first, then the dtype)": lambda d: (
        torch.ones(1, dtype=torch.bool, device=d).expand(3).frac_()
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_raises_as_on_cpu(name: str, mode: str) -> None:
    same_as_cpu(ERRORS[name], mode)


ALLOWED: dict[str, Callable[[str], Any]] = {
    "setitem of True through a mask that is the target (masked_fill_)": lambda d: (
        lambda x: x.__setitem__(x, True)
    )(torch.tensor([True, False, True], device=d)),
    "integer shifts in place": lambda d: (lambda y: (y.__irshift__(1), y.__ilshift__(y % 3))[1])(
        torch.tensor([1, 5, -7, 300], device=d)
    ),
    "fill_ of an expanded view": lambda d: torch.zeros(1, 4, device=d).expand(3, 4).fill_(2.0),
    "zero_ of an expanded view": lambda d: torch.ones(1, 4, device=d).expand(3, 4).zero_(),
    "add_ of itself": lambda d: (lambda x: x.add_(x))(torch.ones(3, device=d)),
    "lt_ float": lambda d: torch.ones(3, device=d).lt_(torch.zeros(3, device=d)),
    "add_ bfloat16 into float": lambda d: torch.ones(3, device=d).add_(
        torch.ones(3, dtype=torch.bfloat16, device=d)
    ),
    "mixed-precision layer_norm": lambda d: F.layer_norm(
        torch.ones(2, 3, dtype=torch.bfloat16, device=d),
        (3,),
        torch.ones(3, device=d),
        torch.ones(3, device=d),
    ),
    "cumsum out= int from float": lambda d: torch.cumsum(
        torch.ones(3, device=d), 0, out=torch.empty(3, dtype=torch.long, device=d)
    ),
    "arange out= float": lambda d: torch.arange(4, out=torch.empty(4, device=d)),
    "index_put_ of a 0-d value of another dtype": lambda d: torch.zeros(
        3, dtype=torch.long, device=d
    ).index_put_((torch.tensor([True, False, True], device=d),), torch.tensor(2.5, device=d)),
    "lerp with a 0-d weight of another dtype": lambda d: torch.lerp(
        torch.ones(2, dtype=torch.bfloat16, device=d),
        torch.zeros(2, dtype=torch.bfloat16, device=d),
        torch.tensor(0.5, device=d),
    ),
    "index_fill_ with a 0-d value it aliases": lambda d: (
        lambda v: v.unsqueeze(0).index_fill_(0, torch.tensor([0], device=d), v)
    )(torch.tensor(1.0, device=d)),
    "mean out= a view of its input (found by the fuzzer)": lambda d: (
        lambda x: torch.mean(x, 1, out=x.unflatten(0, (1, -1)))
    )(torch.arange(4.0, device=d).reshape(1, 4)),
    "sum out= an element of its input": lambda d: (lambda x: torch.sum(x, 1, out=x.view(4)[:1]))(
        torch.arange(4.0, device=d).reshape(1, 4)
    ),
    "bmm of empty tensors of two dtypes": lambda d: torch.bmm(
        torch.zeros(0, 2, 3, device=d), torch.zeros(0, 3, 2, dtype=torch.long, device=d)
    ),
    "sum of bool into a bool out=": lambda d: torch.sum(
        torch.ones(4, 2, dtype=torch.bool, device=d),
        (0, 1),
        out=torch.zeros(0, dtype=torch.bool, device=d),
    ),
    "gather of bool": lambda d: torch.gather(
        torch.ones(3, dtype=torch.bool, device=d), 0, torch.zeros(2, dtype=torch.long, device=d)
    ),
}


@pytest.mark.parametrize("name", list(ALLOWED))
def test_allowed_as_on_cpu(name: str, mode: str) -> None:
    same_as_cpu(ALLOWED[name], mode)


# ---- layout: results follow PyTorch's stride rules -----------------------------------


def _permuted(dev: str) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 16, 256, generator=g).to(dev).transpose(1, 2)[:, :128]


LAYOUTS: dict[str, Callable[[str], Any]] = {
    "silu of a transposed slice": lambda d: F.silu(_permuted(d)),
    "silu, transpose back, view": lambda d: F.silu(_permuted(d)).transpose(1, 2).view(32, 128),
    "add of two transposes": lambda d: _permuted(d) + _permuted(d),
    "add of a transpose and a contiguous": lambda d: _permuted(d) + _permuted(d).contiguous(),
    "mul by a number": lambda d: _permuted(d) * 3,
    "where": lambda d: torch.where(_permuted(d) > 0, _permuted(d), 0.0),
    "channels_last relu": lambda d: torch.relu(
        torch.randn(2, 3, 4, 5, generator=torch.Generator().manual_seed(1))
        .to(d)
        .to(memory_format=torch.channels_last)
    ),
    "channels_last conv": lambda d: F.conv2d(
        torch.randn(2, 3, 6, 6, generator=torch.Generator().manual_seed(2))
        .to(d)
        .to(memory_format=torch.channels_last),
        torch.randn(4, 3, 3, 3, generator=torch.Generator().manual_seed(3)).to(d),
    ),
    "sum over a permuted tensor": lambda d: _permuted(d).sum(0),
    "softmax of a transpose": lambda d: torch.softmax(_permuted(d), -1),
    "clone keeps the layout": lambda d: _permuted(d).clone(),
    "contiguous": lambda d: _permuted(d).contiguous(),
    "empty_like keeps the layout": lambda d: torch.empty_like(_permuted(d)).fill_(1.0),
    "t() of mm": lambda d: (torch.ones(3, 4, device=d) @ torch.ones(4, 5, device=d)).t() * 2,
    "floor division of a transpose": lambda d: torch.div(_permuted(d), 3, rounding_mode="floor"),
    "out= resized to a permuted result": lambda d: torch.minimum(
        torch.ones(2, device=d), torch.ones(2, 2, device=d).t(), out=torch.zeros(2, device=d)
    ),
    "nonzero": lambda d: (_permuted(d) > 0).nonzero(),
    "index_put keeps self's strides": lambda d: _permuted(d).index_put(
        (torch.tensor([0], device=d),), torch.tensor(1.0, device=d)
    ),
    "masked_fill of a permuted input is contiguous (found by the fuzzer)": lambda d: (
        torch.randn(3, 1, 4, 4, generator=torch.Generator().manual_seed(4))
        .to(d)
        .permute(2, 0, 3, 1)
        .masked_fill(torch.ones(4, 3, 4, 1, dtype=torch.bool, device=d), 1.0)
    ),
    "size-1 dims of a permuted input": lambda d: torch.ones(1, 2, device=d).permute(1, 0) * -1.5,
    # From the fuzzer: the CPU first copies an operand of another dtype to the
    # computation dtype (an expanded one becomes contiguous), so it no longer
    # decides the layout.
    "expanded int64 times a transposed float": lambda d: (
        torch.full((1, 1), 2, device=d).expand(4, 3) * _permuted(d)[0, :4, :3].t().t()
    ),
    "expanded int64 over a transposed float": lambda d: (
        torch.full((1, 1), 2, device=d).expand(4, 3) / torch.ones(3, 4, device=d).t()
    ),
    "floor_divide of a transpose by a contiguous": lambda d: (
        torch.ones(4, 4, device=d).t() // torch.full((4, 4), 3.0, device=d)
    ),
    "number ** transpose is contiguous": lambda d: 2 ** torch.ones(4, 3, device=d).t(),
    "advanced indexing of a permuted tensor after None": lambda d: torch.ones(
        4, 3, 3, device=d
    ).permute(1, 2, 0)[
        None, torch.tensor([0, 1, 2, 1], device=d), torch.tensor([1, 0, 2, 2], device=d)
    ],
    "mse_loss backward of transposes is contiguous": lambda d: torch.ops.aten.mse_loss_backward(
        torch.ones(4, 5, device=d).t(),
        torch.ones(4, 5, device=d).t(),
        torch.zeros(4, 5, device=d).t(),
        0,
    ),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_result_strides_match_cpu(name: str, mode: str) -> None:
    same_as_cpu(LAYOUTS[name], mode)


def test_permuted_results_are_read_back_correctly() -> None:
    cpu = _permuted("cpu")
    x = _permuted("tpu")
    y = F.silu(x)
    # Writes through views of a permuted result, then reads of every kind.
    y[:, 3].fill_(7.0)
    y.transpose(1, 2)[0, 1:3].mul_(2)
    w = F.silu(cpu)
    w[:, 3].fill_(7.0)
    w.transpose(1, 2)[0, 1:3].mul_(2)
    torch.testing.assert_close(y.cpu(), w)
    torch.testing.assert_close(y.sum(1).cpu(), w.sum(1))
    assert copy.deepcopy(y).stride() == w.stride()


def test_an_empty_out_view_may_grow_over_its_input(mode: str) -> None:
    """Elementwise ops check overlap before resizing out= (found by the fuzzer):
    an empty view of the input as out= is resized over it and not refused. What
    the CPU then writes depends on its read-while-write order (undefined), so
    only the outcome's shape and place are compared."""
    outs = {}
    for d in ("cpu", "tpu"):
        v1 = torch.arange(40.0, device=d).reshape(2, 5, 4)
        out = v1[None, :0, :-1, 4:0:2]
        with torchtpu.mode("strict" if mode == "compile" else mode):
            torch.add(v1, 1.0, out=out)
        outs[d] = (out.shape, out.stride(), out.storage_offset())
    assert outs["cpu"] == outs["tpu"]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
def test_integer_pow_wraps_as_on_cpu(dtype: torch.dtype, mode: str) -> None:
    """XLA's integer power reads the exponent's low 6 bits; the CPU's wraps over every bit
    (found by the fuzzer: 3 ** (2 ** 40 + 3) in int64)."""
    big = [2**40 + 3, 2**40 + 1, 70, 63, 2**33, 2**50, 2**50 + 1, 100, 5, 2]
    base = [3, -3, 2, 5, 7, 1, -1, 0, 3, -4]
    info = torch.iinfo(dtype)

    def fn(d: str) -> torch.Tensor:
        e = torch.tensor([min(v, info.max) for v in big], dtype=dtype, device=d)
        b = torch.tensor([abs(v) if info.min == 0 else v for v in base], dtype=dtype, device=d)
        return b**e

    same_as_cpu(fn, mode)


MIXED_DTYPE_PRODUCTS: dict[str, Callable[[str], Any]] = {
    "mm": lambda d: torch.mm(
        torch.ones(2, 2, dtype=torch.bfloat16, device=d),
        torch.ones(2, 2, dtype=torch.long, device=d),
    ),
    "mv of bool": lambda d: torch.mv(
        torch.ones(2, 2, device=d), torch.ones(2, dtype=torch.bool, device=d)
    ),
    "addmm": lambda d: torch.addmm(
        torch.ones(2, 2, dtype=torch.long, device=d),
        torch.ones(2, 2, device=d),
        torch.ones(2, 2, device=d),
    ),
    "bmm": lambda d: torch.bmm(
        torch.ones(1, 2, 2, device=d), torch.ones(1, 2, 2, dtype=torch.bfloat16, device=d)
    ),
    "linear": lambda d: F.linear(
        torch.ones(2, 2, device=d), torch.ones(2, 2, dtype=torch.bfloat16, device=d)
    ),
    "dot": lambda d: torch.dot(torch.ones(2, device=d), torch.ones(2, dtype=torch.long, device=d)),
    "baddbmm": lambda d: torch.baddbmm(
        torch.ones(1, 2, 2, dtype=torch.long, device=d),
        torch.ones(1, 2, 2, device=d),
        torch.ones(1, 2, 2, device=d),
    ),
    "index_add": lambda d: torch.zeros(3, device=d).index_add(
        0, torch.tensor([0], device=d), torch.ones(1, dtype=torch.bfloat16, device=d)
    ),
    "large mm (stand-ins of every dim 1)": lambda d: torch.mm(
        torch.ones(300, 300, dtype=torch.bfloat16, device=d), torch.ones(300, 300, device=d)
    ),
}


@pytest.mark.parametrize("name", list(MIXED_DTYPE_PRODUCTS))
def test_dtype_refusals_carry_the_cpu_message(name: str) -> None:
    """The CPU kernel's own error, type and message (found by the fuzzer: compiled
    programs compare errors by message)."""
    fn = MIXED_DTYPE_PRODUCTS[name]
    with pytest.raises(RuntimeError) as cpu:
        fn("cpu")
    with pytest.raises(RuntimeError) as tpu:
        fn("tpu")
    assert str(tpu.value).splitlines()[0] == str(cpu.value).splitlines()[0]


def test_operands_of_another_dtype_are_rounded_to_the_common_dtype(mode: str) -> None:
    """As the CPU's TensorIterator, a float32 0-d tensor or a Python number with a
    bfloat16 tensor is rounded to bfloat16 before the computation (found by the
    fuzzer: fmod amplifies the difference)."""

    def fn(d: str) -> list[torch.Tensor]:
        x = torch.tensor([3.0, 5.0, -7.0], dtype=torch.bfloat16, device=d)
        return [
            torch.fmod(x, 2.99),
            torch.fmod(x, torch.tensor(2.99, device=d)),
            torch.remainder(x, 1.01),
            x * 1.001 - x,
        ]

    same_as_cpu(fn, mode)


def test_a_graph_whose_tracing_raises_raises_when_called() -> None:
    """An in-place op on a smaller target under torch.compile raises the eager CPU's
    RuntimeError when the graph is called (found by the fuzzer; PyTorch's own
    aot_eager wraps it in BackendCompilerFailed, also a RuntimeError)."""

    def fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x.fmod_(y)

    with pytest.raises(RuntimeError) as cpu:
        fn(torch.ones(1, 4), torch.full((3, 4), 2.0))
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as tpu:
                torch.compile(fn, backend="tpu")(
                    torch.ones(1, 4, device="tpu"), torch.full((3, 4), 2.0, device="tpu")
                )
    finally:
        torch._dynamo.reset()
    # torch 2.14's Dynamo raises its own wrapped error before any backend sees the
    # graph (a RuntimeError too); where the backend runs, the error is the CPU's.
    if type(tpu.value) is RuntimeError:
        assert str(tpu.value).splitlines()[0] == str(cpu.value).splitlines()[0]


def test_adding_zero_gives_positive_zero(mode: str) -> None:
    """-0.0 + 0 is +0.0 (IEEE, and the CPU); XLA folds x + 0 into x unless the zero is
    kept from it (found by the fuzzer: rsqrt(0 + x) gave -inf)."""

    def fn(d: str) -> list[torch.Tensor]:
        x = torch.tensor([-0.0, 1.0, -2.0], device=d)
        return [torch.rsqrt(0 + x), torch.rsqrt(x + 0.0), 1 / (x - (-0.0)), torch.atan2(x + 0, x)]

    same_as_cpu(fn, mode)
