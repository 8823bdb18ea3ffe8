"""The fuzzer's comparison rules, on real programs run on the CPU and on "tpu": what PyTorch
leaves unspecified is set aside, everything else is compared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.compare import bfloat16_fed, check  # noqa: E402
from tests.fuzz.execute import run_eager  # noqa: E402
from tests.fuzz.program import Input, Program, Stmt  # noqa: E402


def _program(inputs: dict[str, str], stmts: list[Stmt]) -> Program:
    return Program("test", [Input(n, e) for n, e in inputs.items()], stmts)


def test_out_after_a_call_that_raises_on_both_is_not_compared() -> None:
    """The CPU resizes x1 to (2, 1, 4) before cat refuses the bfloat16 input; what
    it leaves there (uninitialized memory), and what reads it, is unspecified."""
    prog = _program(
        {
            "x0": "torch.ones(1, 4).bfloat16()",
            "x1": "torch.ones(1, 4, dtype=torch.long)",
        },
        [
            Stmt(
                "v0 = torch.stack([x0, x1], 0, out=x1)", "stack(out=)", ["v0"], ["x1"], "TypeError"
            ),
            Stmt("v1 = x1 + 1", "add", ["v1"]),
            Stmt("v2 = x0 * 2", "mul", ["v2"]),
        ],
    )
    ref, got, diffs, _ = check(prog, "strict")
    assert 2 in ref.errors and 2 in got.errors
    assert ref.values["x1"].shape == (2, 1, 4)  # the CPU's own behaviour, set aside
    assert diffs == []
    assert ref.values["v2"].shape == got.values["v2"].shape == (1, 4)


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_an_out_view_grown_over_its_input_has_unspecified_values(mode: str) -> None:
    prog = _program(
        {"x0": "torch.arange(40.0).reshape(2, 5, 4)"},
        [
            Stmt("v0 = x0[None, :0, :-1, 4:0:2]", "getitem", ["v0"]),
            Stmt("v1 = torch.add(x0, 1.0, out=v0)", "add(out=)", ["v1"], ["v0"]),
            Stmt("v2 = x0.sum()", "sum", ["v2"]),
        ],
    )
    ref, _, diffs, _ = check(prog, mode)
    assert ref.values["v0"].storage == ref.values["x0"].storage
    assert diffs == []


def test_values_fed_by_bfloat16_get_its_tolerance() -> None:
    prog = _program(
        {"x0": "torch.ones(2, 2).bfloat16()", "x1": "torch.ones(2, 2)"},
        [
            Stmt("v0 = torch.softmax(x0, -1)", "softmax", ["v0"]),
            Stmt("v1 = torch.cat([v0, x1], 0)", "cat", ["v1"]),
            Stmt("v2 = x1 * 3", "mul", ["v2"]),
            Stmt("v3 = v1.float() + v2.sum()", "add", ["v3"]),
        ],
    )
    ref = run_eager(prog, "cpu")
    assert bfloat16_fed(prog, ref) == {"x0", "v0", "v1", "v3"}
