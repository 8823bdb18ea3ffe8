"""Repro scripts (one standalone file per failing program) and the reducer that shrinks a
failing program while it keeps failing the same way.

A repro script embeds its program and runs it on the CPU and on "tpu" in its mode, printing
both runs' values and every difference:  .venv/bin/python build/fuzz/strict_1_42.py
"""

from __future__ import annotations

import pprint
import re
import textwrap
from collections.abc import Generator
from pathlib import Path
from typing import Any

from tests.fuzz.program import Program

ROOT = Path(__file__).resolve().parents[2]

TEMPLATE = '''"""torchtpu fuzz repro: {title}

{detail}

The program (dev is "cpu" for the reference run, "tpu" for the backend):

{source}
Run: {python} {path}
"""

import sys

sys.path.insert(0, {root!r})

from tests.fuzz.repro import main  # noqa: E402

MODE = {mode!r}
PROGRAM = {program}

if __name__ == "__main__":
    sys.exit(main(PROGRAM, MODE))
'''


def signature(outcome: str, diffs: list[dict[str, Any]], op: str = "") -> tuple[str, str]:
    """What a failure is grouped by: (class, op of its first difference)."""
    if diffs:
        return diffs[0]["cls"], diffs[0]["op"]
    return outcome, op


def write_repro(path: Path, prog: Program, mode: str, title: str, detail: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = TEMPLATE.format(
        title=title,
        detail=textwrap.indent(detail.strip(), "    ")[:4000],
        source=textwrap.indent(prog.source(), "    "),
        python=ROOT / ".venv/bin/python",
        path=path,
        root=str(ROOT),
        mode=mode,
        program=pprint.pformat(prog.to_json(), width=96, sort_dicts=False),
    )
    path.write_text(body)
    return path


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def reducer(prog: Program) -> Generator[Program, bool, Program]:
    """Greedy statement removal: yields candidate programs, is sent whether each still
    fails the same way, and returns the smallest program found."""
    best = prog.pruned()
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(best.stmts))):
            if i >= len(best.stmts) or not best.removable(i):
                continue
            cand = best.without(i)
            if (yield cand):
                best = cand
                changed = True
    return best


def _show(name: str, v: Any) -> str:
    if v.kind != "tensor":
        return f"{name} = {v.py!r}"
    head = f"{name}: {v.dtype}{list(v.shape)} stride {v.stride} offset {v.offset}"
    if v.read_error:
        return f"{head}  (read failed: {v.read_error.type}: {v.read_error.message[:200]})"
    data = v.data.tolist() if v.data is not None and v.data.numel() <= 64 else "..."
    return f"{head}\n    {data}"


def main(program: dict[str, Any], mode: str) -> int:
    """Run a repro: both runs' errors and values, then every difference. 1 if any."""
    import torch  # noqa: F401

    import torchtpu  # noqa: F401
    from tests.fuzz.compare import check

    prog = Program.from_json(program)
    print(f"mode {mode}; program:\n{textwrap.indent(prog.source(), '    ')}", flush=True)
    ref, got, diffs, inherent = check(prog, mode)
    for label, run in (("cpu", ref), ("tpu", got)):
        print(f"--- {label}")
        for i, e in sorted(run.errors.items()):
            msg = e.message.splitlines()[0][:200] if e.message else ""
            print(f"step {i} raised {e.type}: {msg}")
        if run.sync_error:
            print(f"sync raised {run.sync_error.type}: {run.sync_error.message[:200]}")
        for name, v in run.values.items():
            print(_show(name, v))
    for d in inherent:
        print(f"  (set aside: inherent to torch.compile or a device program: {d.cls} {d.detail})")
    if not diffs:
        print("=== no difference")
        return 0
    print(f"=== first difference: {diffs[0].cls} at step {diffs[0].step} ({diffs[0].op})")
    for d in diffs:
        print(f"  {d.cls} at step {d.step} ({d.op}): {d.detail}")
    return 1
