"""A fuzz worker: a subprocess that runs programs on request, one at a time.

Protocol (one JSON object a line): the parent writes tasks to stdin, {"id", "mode", and
"seed" (generate the program) or "program" (run this one)}; the worker answers on its
original stdout, which nothing else may write to (the process's fd 1 is pointed at stderr):
{"event": "ready"} once; then per task {"id", "event": "start", "program"} before running,
{"id", "event": "step", "step"} before each tpu step (so a crash names its step), and
{"id", "event": "done", ...the outcome...}.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _channel() -> IO[str]:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def outcome_of(prog: Any, mode: str, on_step: Any = None) -> dict[str, Any]:
    from tests.fuzz.compare import check

    start = time.perf_counter()
    _, got, diffs, inherent = check(prog, mode, on_step)
    return {
        "outcome": "mismatch" if diffs else "match",
        "diffs": [d.to_json() for d in diffs],
        "inherent": [d.to_json() for d in inherent],
        "fallbacks": got.fallbacks,
        "seconds": time.perf_counter() - start,
    }


def _cleanup() -> str:
    """Leave the device as the next program expects it (strict mode, nothing pending);
    what went wrong if that is not possible (the worker is then replaced)."""
    import torchtpu

    try:
        torchtpu.sync()
        torchtpu.set_mode("strict")
        torchtpu.sync()
    except Exception as e:  # noqa: BLE001 - a failed program's leftovers
        return f"{type(e).__name__}: {e}"[:500]
    return ""


def main() -> None:
    proto = _channel()
    import torch  # noqa: F401 - registers "tpu"

    import torchtpu  # noqa: F401
    from tests.fuzz.gen import generate
    from tests.fuzz.program import Program

    def send(msg: dict[str, Any]) -> None:
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    send({"event": "ready", "pid": os.getpid()})
    for line in sys.stdin:
        task = json.loads(line)
        tid = task["id"]
        try:
            prog = generate(task["seed"]) if "seed" in task else Program.from_json(task["program"])
        except Exception:  # noqa: BLE001
            send({"id": tid, "event": "done", "outcome": "error", "detail": traceback.format_exc()})
            continue
        send({"id": tid, "event": "start", "program": prog.to_json()})
        try:
            result = outcome_of(
                prog, task["mode"], lambda k, t=tid: send({"id": t, "event": "step", "step": k})
            )
        except Exception:  # noqa: BLE001 - a fuzzer bug, not a backend one: say so
            result = {"outcome": "error", "detail": traceback.format_exc()}
        dirty = _cleanup()
        if dirty:  # every later sync would fail too: answer, then let the pool replace us
            result["restart"] = f"device state not clean after the program: {dirty}"
        send({"id": tid, "event": "done", **result})
        if dirty:
            return


if __name__ == "__main__":
    main()
