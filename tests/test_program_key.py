"""The program key of a deferred flush: a trace structure met before is found
again by a hash of the trace and then compared in full, so structures whose
hashes collide never share a program. TORCHTPU_TEST_STRUCTURE_COLLISIONS=1
makes every structure hash alike; traces that differ only in their wiring,
their live outputs, their donated inputs, their input types or their constants
must still each run their own program, both when first built and when found
again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from child_python import run_python

# Runs each case twice in defer mode and once on the CPU; prints the largest
# difference per case and the programs compiled in the second round.
CASES = """
import json, torch, torchtpu

# The same ops on inputs of one type, wired differently.
def wiring1(a, b, c): return [(a + b) * a]
def wiring2(a, b, c): return [(a + b) * b]
def wiring3(a, b, c): return [(a + a) * b]
def outputs1(a, b, c): return [(a + b) * c]
def outputs2(a, b, c):
    s = a + b
    return [s * c, s]
def dtype(a, b, c): return [(a.double() + b.double()) * c.double()]
def constant1(a, b, c): return [a * 0.5 + b]
def constant2(a, b, c): return [a * 2.0 + b]
def donate(a, b, c):
    x = a * 1.0
    float(x.sum())  # x is an array now; the next flush may donate it
    x = x * 3.0  # the only reference to the old x is the trace's
    return [x + c]
def keep(a, b, c):
    x = a * 1.0
    float(x.sum())
    y = x * 3.0  # x stays referenced: not donated
    return [y + c, x]

CASES = [wiring1, wiring2, wiring3, outputs1, outputs2, dtype, constant1, constant2, donate, keep]
g = torch.Generator().manual_seed(0)
inputs = [torch.randn(64, generator=g) for _ in range(3)]
expected = {f.__name__: f(*inputs) for f in CASES}
torchtpu.set_mode("defer")
worst, compiles = {}, []
for round in range(2):
    before = torchtpu.metrics.counters()["compiles"]
    for f in CASES:
        got = [t.cpu() for t in f(*(x.to("tpu") for x in inputs))]
        want = expected[f.__name__]
        assert [t.dtype for t in got] == [t.dtype for t in want], f.__name__
        diff = max(float((g - w).abs().max()) for g, w in zip(got, want))
        worst[f.__name__] = max(worst.get(f.__name__, 0.0), diff)
    compiles.append(torchtpu.metrics.counters()["compiles"] - before)
print(json.dumps({"worst": worst, "compiles": compiles}))
"""


@pytest.mark.parametrize("collide", ["0", "1"])
def test_each_structure_runs_its_own_program(collide: str, tmp_path: Path) -> None:
    # A compile cache of its own: every program of the first round compiles.
    p = run_python(
        CASES, 300, TORCHTPU_TEST_STRUCTURE_COLLISIONS=collide, TORCHTPU_CACHE_DIR=str(tmp_path)
    )
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    for case, diff in out["worst"].items():
        assert diff < 1e-5, (case, diff)
    # Found again in the second round, though every hash is the same.
    assert out["compiles"][0] > 0
    assert out["compiles"][1] == 0, out["compiles"]
