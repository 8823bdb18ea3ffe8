"""The recompile explainer (torchtpu.debug): each cause of a new program is
provoked and the explanation checked, in strict mode (ops), defer mode (fused
traces) and under torch.compile (graphs)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import torch

import torchtpu
from torchtpu import debug


@pytest.fixture(autouse=True)
def explaining() -> Iterator[None]:
    torchtpu.sync()
    debug.clear_recompile_report()
    debug.explain_recompiles(True)
    yield
    debug.explain_recompiles(False)
    debug.clear_recompile_report()


def explanations(kind: str) -> list[dict[str, Any]]:
    return [r for r in debug.recompile_report() if r["kind"] == kind]


def test_strict_op_of_a_new_shape_says_which_argument_changed() -> None:
    (torch.full((13,), 2.0, device="tpu").exp2()).cpu()
    (torch.full((7, 3), 2.0, device="tpu").exp2()).cpu()
    [r] = [r for r in explanations("op") if r["program"] == "aten::exp2"]
    assert r["cause"] == "shapes"
    assert r["detail"] == "self: f32[13] -> f32[7, 3]"


def test_strict_op_of_a_new_layout_or_dtype() -> None:
    a = torch.ones(11, 7, device="tpu")
    torch.special.erfcx(a).cpu()
    torch.special.erfcx(a.t()).cpu()  # [7, 11], transposed
    torch.special.erfcx(torch.ones(7, 11, device="tpu")).cpu()
    torch.special.erfcx(torch.ones(7, 11, device="tpu", dtype=torch.bfloat16)).cpu()
    causes = [r["cause"] for r in explanations("op") if r["program"] == "aten::special_erfcx"]
    assert causes == ["shapes", "strides", "dtype"], debug.recompile_report()


def step(x: torch.Tensor, lr: float) -> float:
    return float((x.sin() * lr + 1).sum().item())


def test_trace_whose_python_number_changes() -> None:
    with torchtpu.mode("defer"):
        x = torch.ones(29, device="tpu")
        torchtpu.sync()
        step(x, 0.5)
        step(x, 0.25)
        step(x, 0.125)  # an input now: no new program
    [r] = explanations("trace")
    assert r["cause"] == "python number"
    assert "aten::mul.Tensor changed and is now a program input" in r["detail"]


def test_trace_of_a_new_shape_names_the_first_op_that_differs() -> None:
    with torchtpu.mode("defer"):
        x, y = torch.ones(31, device="tpu"), torch.ones(33, device="tpu")
        torchtpu.sync()
        step(x, 0.5)
        step(y, 0.5)
    [r] = explanations("trace")
    assert r["program"] == "a fused trace of 4 ops"
    assert (r["cause"], r["detail"]) == ("shapes", "op #0 aten::sin: self: f32[31] -> f32[33]")


def test_a_view_of_a_storage_that_grew_names_the_storage() -> None:
    with torchtpu.mode("defer"):
        for n in (37, 38):
            base = torch.arange(n, device="tpu")
            torchtpu.sync()
            (base[-1:] * 3).sum().item()
    [r] = [r for r in explanations("trace") if r["program"] == "a fused trace of 2 ops"]
    assert r["cause"] == "shapes", r
    assert "self: i64[1] offset 36 of i64[37] -> i64[1] offset 37 of i64[38]" in r["detail"], r


def growing_loop(sizes: list[int]) -> None:
    one = torch.ones(1, device="tpu")
    torchtpu.sync()
    for n in sizes:
        x = torch.zeros(n).to("tpu")  # an upload: no program of its own
        (torch.cat([x, one]) * 2).sum().item()  # one trace, of a new size each time


def test_a_trace_that_keeps_growing_warns_once(capfd: pytest.CaptureFixture[str]) -> None:
    debug.explain_recompiles(False)  # the warning does not need the explainer
    with torchtpu.mode("defer"):
        growing_loop(list(range(41, 41 + debug_growth_limit() + 3)))
    [w] = debug.growth_warnings()
    assert "compiled 5 programs in a row because a dimension grows" in w, w
    assert "dimension 0 of tensors of op #0 aten::cat: 41 -> 45" in w, w
    assert capfd.readouterr().err.count("torchtpu: warning: a fused trace") == 1


def test_shapes_that_do_not_only_grow_do_not_warn() -> None:
    with torchtpu.mode("defer"):
        growing_loop([61, 63, 62, 64, 66, 65, 67, 69, 68])
    assert debug.growth_warnings() == []


def debug_growth_limit() -> int:
    return 4  # kGrowthWarnAfter: compiles in a row, each a growth, before the warning


def test_trace_cut_at_another_place() -> None:
    with torchtpu.mode("defer"):
        x = torch.ones(35, device="tpu")
        torchtpu.sync()
        y = x.sin().cos().tanh()
        y.sum().item()
        z = x.sin().cos()
        z.cpu()
    [r] = explanations("trace")
    assert r["cause"] == "trace cut"
    assert "cut after 2 ops (value needed) where the nearest was cut after 4" in r["detail"]


def test_trace_whose_live_values_differ() -> None:
    with torchtpu.mode("defer"):
        x = torch.ones(37, device="tpu")
        torchtpu.sync()
        a = x.sin()
        b = a.cos()
        b.cpu()  # a is still referenced: an output of the program
        del a, b
        b = x.sin().cos()
        b.cpu()  # the same ops, only the cos an output
    [r] = explanations("trace")
    assert r["cause"] == "outputs", r


def test_compiled_graph_of_a_new_input_layout() -> None:
    f = torch.compile(lambda a: a * 2 + 1, backend="tpu", dynamic=True)
    f(torch.ones(17, device="tpu"))
    f(torch.ones(19, device="tpu"))
    [r] = explanations("graph")
    assert r["cause"] == "shapes"
    assert "float32[17] strides [1] offset 0 -> float32[19] strides [1] offset 0" in r["detail"]


def test_off_the_report_stays_empty() -> None:
    debug.explain_recompiles(False)
    for n in (2, 3):
        torch.ones(n, device="tpu").sqrt().cpu()
    assert debug.recompile_report() == []


CHILD = """
import torch, torchtpu
def f(x):
    return (x.sin() * 2).sum().item()
torchtpu.set_mode("defer")
for n in (4, 5):
    x = torch.ones(n, device="tpu")
    torchtpu.sync()
    f(x)
torchtpu.set_mode("strict")
for n in range(1, 6):
    torch.ones(3, device="tpu").atan().cpu()
    torch.ones(2, n, device="tpu").atan().cpu()
"""


def test_environment_switch_source_lines_and_eviction() -> None:
    env = {
        **os.environ,
        "TORCHTPU_EXPLAIN_RECOMPILES": "1",
        "TORCHTPU_SOURCE_LINES": "1",
        "TORCHTPU_MAX_CACHED_PROGRAMS": "4",
        "TORCHTPU_CACHE_DIR": "off",
    }
    r = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    lines = [line for line in r.stderr.splitlines() if line.startswith("torchtpu: recompile")]
    assert (
        "torchtpu: recompile (trace): a fused trace of 3 ops: shapes: op #0 aten::sin at "
        "<string>:4: self: f32[4] -> f32[5]" in lines
    ), lines
    # A cache of 4 programs is emptied again and again: the same call compiles again.
    assert any("aten::atan: evicted" in line for line in lines), lines
