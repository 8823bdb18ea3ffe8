"""The CI share of the OpInfo sweep: every OpInfo of PyTorch's op_db, in float32,
on its first sample input (and its gradient for differentiable ops), compared
with the CPU. Each must do at least as well as the checked-in report
(docs/coverage.json, written by `make coverage`): an OpInfo recorded native must
stay native (no CPU fallback), one recorded fallback must still pass. OpInfos
recorded failing, skipped or failing on the CPU reference are skipped here with
that reason. The full sweep (all samples, float32/bfloat16/int64/bool) is
`make coverage`.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engine  # noqa: E402

REPORT = Path(__file__).resolve().parents[2] / "docs" / "coverage.json"
SAMPLES = int(os.environ.get("TORCHTPU_OPINFO_SAMPLES", "1"))
DTYPE = "float32"


def _recorded() -> dict[str, dict]:
    if not REPORT.exists():
        return {}
    data = json.loads(REPORT.read_text())
    return {r["op"]: r for r in data["results"] if r["dtype"] == DTYPE}


DB = engine.op_db()
RECORDED = _recorded()
IDS = [f"{engine.full_name(op)}#{i}" for i, op in enumerate(DB)]


@pytest.mark.parametrize("index", range(len(DB)), ids=IDS)
def test_opinfo_float32(index: int) -> None:
    op = DB[index]
    name = engine.full_name(op)
    if DTYPE not in engine.declared_dtypes(op):
        pytest.skip("the OpInfo does not declare float32")
    rec = RECORDED.get(name)
    if rec is None:
        pytest.skip("not in docs/coverage.json (run `make coverage`)")
    if rec["status"] not in ("native", "fallback"):
        pytest.skip(f"recorded {rec['status']}: {rec.get('reason', '')}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = engine.run_op(op, DTYPE, max_samples=SAMPLES)
    if got["status"] == "cpu_error":
        pytest.skip(got.get("reason", "CPU reference error"))
    assert got["status"] in ("native", "fallback"), got.get("reason")
    if rec["status"] == "native":
        assert got["status"] == "native", f"recorded native, now falls back: {got['fallbacks']}"
