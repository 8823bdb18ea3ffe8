"""The op index (docs/ops.md, tools/op_index.py) is current, and every lowering's
registration names its op as a literal in the file the registry records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import torchtpu

ROOT = Path(__file__).resolve().parent.parent


def test_op_index_is_current(tmp_path: Path) -> None:
    fresh = tmp_path / "ops.md"
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "op_index.py"), "--output", str(fresh)],
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    new = fresh.read_text().splitlines()
    old = (ROOT / "docs" / "ops.md").read_text().splitlines()
    if new != old:
        first = next(
            (k for k, (a, b) in enumerate(zip(new, old, strict=False)) if a != b),
            min(len(new), len(old)),
        )
        pytest.fail(
            "docs/ops.md is stale: run `make op-index`\n"
            f"first difference, line {first + 1}:\n"
            f"  committed: {old[first] if first < len(old) else '(end)'}\n"
            f"  fresh:     {new[first] if first < len(new) else '(end)'}"
        )


def test_each_lowering_is_registered_by_its_literal_name() -> None:
    sources = torchtpu._C._lowering_sources()
    assert set(sources) == set(torchtpu._C._lowered_ops())
    texts: dict[str, str] = {}
    for op, source in sources.items():
        file, _, line = source.rpartition(":")
        if file == "lower/core/custom_kernel.cc" and "::" in op and not op.startswith("aten::"):
            continue  # a custom kernel another test registered, named by its author
        assert file.startswith("lower/") and file.count("/") == 2, source
        assert int(line) > 0, source
        if file not in texts:
            texts[file] = (ROOT / "csrc" / file).read_text()
        assert f'"{op}"' in texts[file], f"{op}: no literal name in {file}"
