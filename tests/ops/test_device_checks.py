"""Device-side checks: in launch_blocking mode, out-of-range indices, one_hot
classes out of range, invalid multinomial distributions, integer division by
zero and out-of-range nll_loss targets raise PyTorch's CPU error (same type,
same message) at the op, and the process stays usable; in strict and defer
mode the same programs run without the checks (no host read, no flush) and
give XLA's values."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchtpu

TT = torch.tensor
X = torch.arange(6.0).reshape(3, 2)
ONES = torch.ones(1, 2)

# (name, fn(x, *args), args): each raises on the CPU.
CASES = [
    ("index", lambda x, i: x[i], (TT([0, 5]),)),
    ("index_negative", lambda x, i: x[i], (TT([-4]),)),
    ("index_second_dim", lambda x, i, j: x[i, j], (TT([0]), TT([7]))),
    ("index_int32", lambda x, i: x[i], (TT([1, 3], dtype=torch.int32),)),
    ("setitem", lambda x, i: x.__setitem__(i, 1.0), (TT([5]),)),
    ("index_put_", lambda x, i: x.index_put_((i,), TT(1.0)), (TT([5]),)),
    ("index_put_accumulate", lambda x, i: x.index_put_((i,), TT(1.0), accumulate=True), (TT([5]),)),
    ("index_select", lambda x, i: x.index_select(0, i), (TT([5]),)),
    ("index_select_negative", lambda x, i: x.index_select(0, i), (TT([-1]),)),
    # The CPU kernel's other check (found by the fuzzer): along dim 1, or of an
    # empty tensor, a RuntimeError that names the index.
    ("index_select_dim1", lambda x, i: x.index_select(1, i), (TT([4]),)),
    ("index_select_empty", lambda x, i: x[:, :0].index_select(0, i), (TT([4]),)),
    ("gather", lambda x, i: x.gather(0, i), (TT([[5, 0]]),)),
    ("gather_negative", lambda x, i: x.gather(0, i), (TT([[-1, 0]]),)),
    ("gather_dim1", lambda x, i: x.gather(1, i), (TT([[0, 2]]),)),
    ("scatter_value", lambda x, i: x.scatter_(0, i, 1.0), (TT([[5, 0]]),)),
    ("scatter_src", lambda x, i: x.scatter_(0, i, x.clone()), (TT([[5, 0]]),)),
    ("scatter_add_", lambda x, i: x.scatter_add_(0, i, x.clone()), (TT([[5, 0]]),)),
    ("scatter_reduce_", lambda x, i: x.scatter_reduce_(0, i, x.clone(), "amax"), (TT([[5, 0]]),)),
    ("index_add_", lambda x, i, s: x.index_add_(0, i, s), (TT([5]), ONES)),
    ("index_add_negative", lambda x, i, s: x.index_add_(0, i, s), (TT([-1]), ONES)),
    ("index_copy_", lambda x, i, s: x.index_copy_(0, i, s), (TT([5]), ONES)),
    ("index_fill_", lambda x, i: x.index_fill_(0, i, 1.0), (TT([-4]),)),
    ("embedding", lambda x, i: F.embedding(i, x), (TT([0, 5]),)),
    ("embedding_negative", lambda x, i: F.embedding(i, x), (TT([-1]),)),
    ("take", lambda x, i: x.take(i), (TT([9]),)),
    ("take_negative", lambda x, i: x.take(i), (TT([-7]),)),
    ("put_", lambda x, i, v: x.put_(i, v), (TT([9]), TT([1.0]))),
    ("take_along_dim", lambda x, i: torch.take_along_dim(x, i), (TT([9]),)),
    ("one_hot", lambda x, i: F.one_hot(i, 3), (TT([0, 5]),)),
    ("one_hot_negative", lambda x, i: F.one_hot(i, 3), (TT([-1]),)),
    ("multinomial_negative", lambda x, p: torch.multinomial(p, 1), (TT([0.5, -0.1]),)),
    ("multinomial_zero", lambda x, p: torch.multinomial(p, 1), (TT([0.0, 0.0]),)),
    ("multinomial_nan", lambda x, p: torch.multinomial(p, 1), (TT([0.5, float("nan")]),)),
    ("multinomial_inf", lambda x, p: torch.multinomial(p, 1), (TT([0.5, float("inf")]),)),
    ("multinomial_zero_row", lambda x, p: torch.multinomial(p, 1), (TT([[0.5, 0.5], [0.0, 0.0]]),)),
    ("multinomial_no_replacement", lambda x, p: torch.multinomial(p, 1, False), (TT([0.0, 0.0]),)),
    ("floor_divide_int_by_0", lambda x, a, b: a // b, (TT([1, 2]), TT([1, 0]))),
    ("remainder_int_by_0", lambda x, a: a % 0, (TT([1, 2]),)),
    ("fmod_int_by_0", lambda x, a, b: torch.fmod(a, b), (TT([1]), TT([0]))),
    ("div_trunc_int_by_0", lambda x, a, b: torch.div(a, b, rounding_mode="trunc"),
     (TT([1]), TT(0))),
    ("nll_loss_target", lambda x, t: F.nll_loss(x, t), (TT([0, 5, 1]),)),
    ("cross_entropy_target", lambda x, t: F.cross_entropy(x, t), (TT([1, -1, 0]),)),
]  # fmt: skip


def cpu_error(fn, args):
    with pytest.raises(Exception) as info:
        fn(X.clone(), *args)
    return info.value


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_launch_blocking_raises_the_cpu_error(case):
    _, fn, args = case
    want = cpu_error(fn, args)
    x = X.to("tpu")
    with torchtpu.mode("launch_blocking"):
        with pytest.raises(type(want)) as got:
            fn(x, *[a.to("tpu") for a in args])
        assert str(got.value).splitlines()[0] == str(want).splitlines()[0]
        # Nothing was written, and the process goes on.
        assert torch.equal(x.cpu(), X)
        assert torch.equal((x * 2).cpu(), X * 2)
        assert torch.equal(x[TT([2, 0]).to("tpu")].cpu(), X[TT([2, 0])])


def test_valid_calls_pass_their_checks():
    x = X.to("tpu")
    with torchtpu.mode("launch_blocking"):
        assert torch.equal(x[TT([-3, 2]).to("tpu")].cpu(), X[TT([-3, 2])])
        assert torch.equal(x.take(TT([-6, 5]).to("tpu")).cpu(), X.take(TT([-6, 5])))
        assert torch.equal(F.one_hot(TT([0, 2]).to("tpu"), 3).cpu(), F.one_hot(TT([0, 2]), 3))
        assert torch.multinomial(TT([0.0, 1.0]).to("tpu"), 2, True).cpu().tolist() == [1, 1]
        loss = F.cross_entropy(X.to("tpu"), TT([1, -100, 0]).to("tpu"))
        assert torch.allclose(loss.cpu(), F.cross_entropy(X, TT([1, -100, 0])))
        # Scatter into a zero-size view reads no index: no error, as on the CPU.
        e = torch.empty(3, 0).to("tpu")
        assert e[TT([5]).to("tpu")].shape == (1, 0)


def test_checked_programs_are_separate_programs():
    # The same call runs checked in launch_blocking mode and unchecked in
    # strict mode, in either order, with one compile each.
    x = X.to("tpu")
    bad = TT([0, 7]).to("tpu")
    torchtpu.metrics.reset()
    out = x.index_select(0, bad)  # strict: XLA's values
    assert out.shape == (2, 2)
    with torchtpu.mode("launch_blocking"):
        with pytest.raises(IndexError):
            x.index_select(0, bad)
        with pytest.raises(IndexError):
            x.index_select(0, bad)
    x.index_select(0, bad)
    assert torchtpu.metrics.counters()["compiles"] <= 2


@pytest.mark.parametrize("mode", ["strict", "defer"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_strict_and_defer_do_not_check(case, mode):
    _, fn, args = case
    x = X.to("tpu")
    targs = [a.to("tpu") for a in args]
    torchtpu.sync()
    torchtpu.metrics.reset()
    with torchtpu.mode(mode):
        fn(x, *targs)  # XLA's values, no error and no host read
        c = torchtpu.metrics.counters()
        assert c["device_to_host_bytes"] == 0
        assert sum(c["flushes"].values()) == 0
    torchtpu.sync()
