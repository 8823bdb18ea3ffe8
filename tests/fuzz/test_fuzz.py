"""The differential fuzzer in CI: a fixed-seed sample of programs in each mode (strict,
defer, compile), run once in crash-isolated workers; each mode's test fails on any mismatch,
crash or timeout, printing the repro scripts of its failures.

TORCHTPU_FUZZ_PROGRAMS=N changes the sample (programs per mode). `make fuzz` runs 10,000.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.execute import MODES  # noqa: E402
from tests.fuzz.run import fuzz  # noqa: E402

PROGRAMS = int(os.environ.get("TORCHTPU_FUZZ_PROGRAMS", "80"))
SEED = 20261203
OUTDIR = Path(__file__).resolve().parents[2] / "build" / "fuzz" / "pytest"


@pytest.fixture(scope="module")
def fuzz_summary() -> dict[str, Any]:
    return fuzz(
        PROGRAMS,
        SEED,
        list(MODES),
        workers=2,
        outdir=OUTDIR,
        timeout=120.0,
        reduce=False,
        progress=False,
    )


@pytest.mark.parametrize("mode", MODES)
def test_fuzz(fuzz_summary: dict[str, Any], mode: str) -> None:
    stats = fuzz_summary["modes"][mode]
    assert stats["programs"] == PROGRAMS
    failures = [f for f in fuzz_summary["failures"] if f["mode"] == mode]
    report = []
    for f in failures:
        report.append(f"--- {f['outcome']}: {f['cls']} at `{f['op']}`  {f['repro']}")
        report.append(f["detail"].splitlines()[0][:300] if f["detail"] else "")
        report.append(f["source"])
    if failures:
        pytest.fail(
            f"{len(failures)} of {PROGRAMS} fuzz programs fail in {mode} mode "
            f"(classes {stats['classes']}):\n" + "\n".join(report),
            pytrace=False,
        )
