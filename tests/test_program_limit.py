"""The in-memory program caches are bounded (TORCHTPU_MAX_CACHED_PROGRAMS): every
loaded program holds memory mappings of the process, and a process that kept
all of them (a long test suite, a notebook trying many shapes) ran into Linux's
vm.max_map_count, after which compiles failed and the process could crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# Runs `ops` ops, each of a new shape (a new program), in strict and defer mode;
# prints the number of memory mappings after a warm-up and at the end, the
# evictions counted, and whether every result matched the CPU.
PROGRAM = r"""
import json, sys, torch, torchtpu
def maps():
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)
ok = True
def run(n, mode, first):
    global ok
    with torchtpu.mode(mode):
        for k in range(first, first + n):
            x = torch.arange(k + 1, dtype=torch.float32)
            y = (x.to("tpu") * 3 + 1).cpu()
            ok = ok and torch.equal(y, x * 3 + 1)
run(20, "strict", 1)
run(20, "defer", 1)
before = maps()
run(int(sys.argv[1]), "strict", 100)
run(int(sys.argv[1]), "defer", 100)
c = torchtpu.metrics.counters()
print(json.dumps({"before": before, "after": maps(), "ok": ok,
                  "evictions": c["program_evictions"], "compiles": c["compiles"]}))
"""


def run(ops: int, limit: str | None) -> tuple[dict[str, int], str]:
    env = dict(os.environ)
    env.pop("TORCHTPU_MAX_CACHED_PROGRAMS", None)
    if limit is not None:
        env["TORCHTPU_MAX_CACHED_PROGRAMS"] = limit
    # Programs must really load (not only come from a cache in this process).
    env["TORCHTPU_CACHE_DIR"] = ""
    p = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(ops)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


@pytest.mark.parametrize("ops", [150])
def test_a_full_cache_is_emptied_and_mappings_stay_bounded(ops: int) -> None:
    bounded, _ = run(ops, "16")
    assert bounded["ok"]
    assert bounded["evictions"] > 0
    unbounded, _ = run(ops, str(10**6))
    assert unbounded["ok"]
    assert unbounded["evictions"] == 0
    grown_bounded = bounded["after"] - bounded["before"]
    grown_unbounded = unbounded["after"] - unbounded["before"]
    # Each of the 2 * ops programs kept loaded costs mappings; a bounded
    # cache keeps at most a few dozen of them.
    assert grown_unbounded > 2 * ops, (bounded, unbounded)
    assert grown_bounded < grown_unbounded / 3, (bounded, unbounded)


def test_a_bad_limit_warns_and_uses_the_default() -> None:
    result, err = run(5, "lots")
    assert result["ok"]
    assert "TORCHTPU_MAX_CACHED_PROGRAMS=lots is not a positive integer" in err
    assert result["evictions"] == 0
