"""The persistent compile cache: a second start compiles nothing; bad entries are
rebuilt with a warning; concurrent writers leave a valid cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = """
import json, torch, torchtpu
x = torch.arange(48.0).reshape(6, 8).to("tpu")
y = torch.tanh(x @ x.t() / 100 + 1).sum(dim=1)
with torchtpu.mode("defer"):
    z = (torch.relu(x * 3 - 2) + 1).mean().item()
c = torchtpu.metrics.counters()
print("RESULT " + json.dumps({"y": y.cpu().tolist(), "z": z, "compiles": c["compiles"],
                              "disk": c["disk_cache_hits"]}))
"""


def run(cache: Path, **extra: str) -> tuple[dict, str]:
    env = dict(os.environ, TORCHTPU_CACHE_DIR=str(cache), **extra)
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :]), proc.stderr


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_second_start_compiles_nothing(cache: Path) -> None:
    first, _ = run(cache)
    assert first["compiles"] >= 3 and first["disk"] == 0
    assert any(cache.glob("*.exe"))
    second, _ = run(cache)
    assert second["compiles"] == 0
    assert second["disk"] == first["compiles"]
    assert second["y"] == first["y"] and second["z"] == first["z"]


def test_other_compiler_flags_build_their_own_entries(cache: Path) -> None:
    """An executable compiled under other XLA_FLAGS is another program: it is
    compiled and stored beside the first one, never loaded in its place."""
    first, _ = run(cache, **({"XLA_FLAGS": ""} if "XLA_FLAGS" in os.environ else {}))
    entries = set(cache.glob("*.exe"))
    assert first["compiles"] >= 3 and len(entries) == first["compiles"]
    flags = "--xla_cpu_enable_fast_math=false"  # the default: same numbers
    flagged, _ = run(cache, XLA_FLAGS=flags)
    assert flagged["compiles"] == first["compiles"] and flagged["disk"] == 0
    assert len(set(cache.glob("*.exe")) - entries) == first["compiles"]
    again, _ = run(cache, XLA_FLAGS=flags)
    assert again["compiles"] == 0 and again["disk"] == first["compiles"]
    assert flagged["y"] == first["y"] and again["y"] == first["y"]


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_bad_entries_are_rebuilt_with_a_warning(cache: Path, damage: str) -> None:
    first, _ = run(cache)
    for entry in cache.glob("*.exe"):
        data = entry.read_bytes()
        if damage == "truncate":
            entry.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            entry.write_bytes(b"not an executable at all" * 10)
        else:
            entry.write_bytes(b"")
    again, stderr = run(cache)
    assert "ignoring unusable entry" in stderr
    assert again["compiles"] == first["compiles"]
    assert again["y"] == first["y"] and again["z"] == first["z"]
    healed, _ = run(cache)
    assert healed["compiles"] == 0


def test_disabled_cache_writes_nothing(tmp_path: Path) -> None:
    env = dict(os.environ, TORCHTPU_CACHE_DIR="off", HOME=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not (tmp_path / ".cache" / "torchtpu").exists()


def test_concurrent_writers_leave_a_valid_cache(cache: Path) -> None:
    env = dict(os.environ, TORCHTPU_CACHE_DIR=str(cache))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROGRAM],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
    assert not list(cache.glob("*.tmp*"))
    after, stderr = run(cache)
    assert after["compiles"] == 0
    assert "ignoring" not in stderr


MAGIC = b"torchtpu-exe-v1\n"


def forge(entry: Path, how: str) -> None:
    """Rewrites a valid entry as one written by someone else."""
    data = entry.read_bytes()
    assert data.startswith(MAGIC)
    key_len = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    key = data[len(MAGIC) + 8 : len(MAGIC) + 8 + key_len]
    exe = data[len(MAGIC) + 8 + key_len :]
    if how == "plugin":  # another plugin (or XLA version, or default compile options)
        key = b"/elsewhere/other_plugin.so|cpu|0.0.0" + key[key.index(b"\n") :]
    elif how == "program":  # the same plugin, another program (a hash collision)
        key = key + b"\n// another program"
    if how == "version":  # another torchtpu cache format
        entry.write_bytes(b"torchtpu-exe-v0\n" + data[len(MAGIC) :])
        return
    entry.write_bytes(MAGIC + len(key).to_bytes(8, "little") + key + exe)


@pytest.mark.parametrize("how", ["plugin", "program", "version"])
def test_foreign_entries_are_rebuilt_with_a_warning(cache: Path, how: str) -> None:
    first, _ = run(cache)
    entries = sorted(cache.glob("*.exe"))
    assert entries
    for entry in entries:
        forge(entry, how)
    again, stderr = run(cache)
    warnings = [ln for ln in stderr.splitlines() if "ignoring unusable entry" in ln]
    # Every foreign entry warns, once each, saying why.
    assert len(warnings) == len(entries), stderr[-3000:]
    assert len({w.split("entry ")[1].split(" (")[0] for w in warnings}) == len(entries)
    reason = {
        "plugin": "written by another plugin, version or compile options",
        "program": "written for another program",
        "version": "written by another torchtpu version (cache format v0)",
    }[how]
    assert all(reason in w for w in warnings), warnings
    assert again["compiles"] == first["compiles"] and again["disk"] == 0
    assert again["y"] == first["y"] and again["z"] == first["z"]
    healed, stderr = run(cache)
    assert healed["compiles"] == 0
    assert "ignoring" not in stderr
