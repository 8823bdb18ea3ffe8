"""TORCHTPU_DUMP_DIR: every program built is written as StableHLO text with a
JSON description (kind, ops with their Python lines, input/output types,
donations, compile time, cache key); names sort by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import torch, torchtpu
(torch.ones(3, device="tpu") + 1).cpu()
torchtpu.set_mode("defer")
p = torch.ones(6, device="tpu")
torchtpu.sync()
p.mul_(2).add_(1)
torchtpu.sync()
torchtpu.set_mode("strict")
f = torch.compile(lambda a: (a * 3).sin(), backend="tpu")
f(torch.ones(5, device="tpu")).cpu()
print("ok")
"""


def run(dump: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TORCHTPU_DUMP_DIR": dump, "TORCHTPU_SOURCE_LINES": "1"}
    env["TORCHTPU_CACHE_DIR"] = "off"
    return subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300
    )


def test_every_program_is_dumped_with_its_description(tmp_path: Path) -> None:
    r = run(str(tmp_path / "dump"))
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]
    metas = sorted((tmp_path / "dump").glob("*.json"))
    described = [json.loads(m.read_text()) for m in metas]
    kinds = [d["kind"] for d in described]
    assert {"op", "trace", "graph"} <= set(kinds), kinds
    for m, d in zip(metas, described, strict=True):
        text = (m.parent / d["program"]).read_text()
        assert "@main(" in text
        assert d["outputs"] and all(t.startswith("tensor<") for t in d["inputs"] + d["outputs"])
        assert d["from_disk_cache"] is False and d["compile_seconds"] > 0
        assert len(d["cache_key"]) == 16
    adds = [d for d in described if d["kind"] == "op" and d["ops"] == ["aten::add.Tensor"]]
    assert adds and adds[0]["outputs"] == ["tensor<3xf32>"], described
    [trace] = [d for d in described if d["kind"] == "trace" and len(d["ops"]) == 2]
    assert trace["ops"][0].startswith("aten::mul_.Tensor(self: f32[6]) -> f32[6] at <string>:7")
    assert trace["donated"] == [{"input": 0, "output": 0}]  # p's buffer is reused
    graphs = [d for d in described if d["kind"] == "graph"]
    assert any(any(op.startswith("aten::sin") for op in g["ops"]) for g in graphs), graphs
    # Names start with the time: sorted names are in the order of building.
    assert [m.name for m in metas] == sorted(m.name for m in metas)


def test_an_unwritable_dump_dir_warns_once_and_goes_on(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    r = run(str(blocker))
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]
    assert r.stderr.count("torchtpu: warning: TORCHTPU_DUMP_DIR") == 1, r.stderr
