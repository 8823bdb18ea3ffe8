"""Run the OpInfo sweep in worker processes and write the coverage report.

    python tests/opinfo/sweep.py                    # full sweep -> docs/coverage.{md,json}
    python tests/opinfo/sweep.py --max-samples 1 --dtypes float32 --out /tmp/cov

Every (OpInfo, dtype) pair is one item; items are dealt to ``--jobs`` shards, each
run by a worker process. A worker that crashes or stays on one item longer than
``--timeout`` seconds is ended, that item is recorded as ``failing`` (crash or
timeout), and a new worker continues with the shard's remaining items, so no
sample can stop the sweep.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _worker(items_path: str, progress_path: str, max_samples: int | None) -> None:
    import warnings

    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(HERE))
    import engine

    db = engine.op_db()
    items = json.loads(Path(items_path).read_text())
    with open(progress_path, "a", buffering=1) as out:
        for index, dtype in items:
            out.write(json.dumps({"start": [index, dtype]}) + "\n")
            result = engine.run_op(db[index], dtype, max_samples)
            result["index"] = index
            out.write(json.dumps(result) + "\n")


def _run_shard(
    shard: list[list[Any]],
    names: dict[int, str],
    max_samples: int | None,
    timeout: float,
    results: list[dict[str, Any]],
    lock: threading.Lock,
    log: Any,
) -> None:
    pending = list(shard)
    while pending:
        with tempfile.TemporaryDirectory(prefix="torchtpu-opinfo-") as tmp:
            items_path = os.path.join(tmp, "items.json")
            progress_path = os.path.join(tmp, "progress.jsonl")
            Path(items_path).write_text(json.dumps(pending))
            Path(progress_path).touch()
            cmd = [sys.executable, __file__, "--worker", items_path, progress_path]
            if max_samples is not None:
                cmd += ["--max-samples", str(max_samples)]
            env = dict(os.environ, TORCHTPU_MODE="strict", TORCHTPU_CPU_FALLBACK="1")
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env, cwd=ROOT)
            done: list[dict[str, Any]] = []
            started: list[Any] | None = None
            started_at = time.monotonic()
            pos = 0
            killed = None
            while True:
                rc = proc.poll()
                with open(progress_path) as f:
                    f.seek(pos)
                    chunk = f.read()
                complete = chunk[: chunk.rfind("\n") + 1]
                pos += len(complete)
                for line in complete.splitlines():
                    rec = json.loads(line)
                    if "start" in rec:
                        started, started_at = rec["start"], time.monotonic()
                    else:
                        done.append(rec)
                        started = None
                if rc is not None:
                    break
                if started is not None and time.monotonic() - started_at > timeout:
                    proc.kill()
                    proc.wait()
                    killed = f"timeout: no result within {timeout:.0f} s"
                    break
                time.sleep(0.2)
            with lock:
                results.extend(done)
            pending = pending[len(done) :]
            if not pending:
                break
            # The first pending item is the one that crashed or hung.
            index, dtype = pending.pop(0)
            reason = killed or f"crash: the worker died (exit status {proc.returncode})"
            with lock:
                results.append(
                    {
                        "op": names[index],
                        "dtype": dtype,
                        "index": index,
                        "status": "failing",
                        "reason": reason,
                    }
                )


def sweep(
    dtypes: list[str],
    max_samples: int | None,
    jobs: int,
    timeout: float,
    only: list[str] | None = None,
    log: Any = None,
) -> tuple[list[dict[str, Any]], float]:
    sys.path.insert(0, str(HERE))
    import engine

    db = engine.op_db()
    names = {i: engine.full_name(op) for i, op in enumerate(db)}
    items: list[list[Any]] = []
    for i, op in enumerate(db):
        if only and names[i] not in only and op.name not in only:
            continue
        for dt in engine.declared_dtypes(op):
            if dt in dtypes:
                items.append([i, dt])
    # Deal whole OpInfos to shards, round robin, so their cost spreads evenly.
    ops = sorted({i for i, _ in items})
    shard_of = {op: n % jobs for n, op in enumerate(ops)}
    shards: list[list[list[Any]]] = [[] for _ in range(jobs)]
    for item in items:
        shards[shard_of[item[0]]].append(item)
    results: list[dict[str, Any]] = []
    lock = threading.Lock()
    t0 = time.perf_counter()
    threads = [
        threading.Thread(
            target=_run_shard,
            args=(s, names, max_samples, timeout, results, lock, log or subprocess.DEVNULL),
        )
        for s in shards
        if s
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    results.sort(key=lambda r: (r["index"], list(engine.DTYPES).index(r["dtype"])))
    return results, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--worker", nargs=2, metavar=("ITEMS", "PROGRESS"), help=argparse.SUPPRESS)
    ap.add_argument("--dtypes", default="float32,bfloat16,int64,bool")
    ap.add_argument("--max-samples", type=int, default=None, help="samples per OpInfo (all)")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per (OpInfo, dtype)")
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names (all)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "coverage"), help="report path stem")
    ap.add_argument(
        "--update",
        action="store_true",
        help="keep the results of OUT.json for the pairs not run now (partial reruns)",
    )
    args = ap.parse_args()
    if args.worker:
        _worker(args.worker[0], args.worker[1], args.max_samples)
        return
    sys.path.insert(0, str(HERE))
    import report

    dtypes = [d for d in args.dtypes.split(",") if d]
    only = [o for o in args.ops.split(",") if o] or None
    results, wall = sweep(dtypes, args.max_samples, args.jobs, args.timeout, only, log=None)
    print(f"{len(results)} results in {wall:.0f} s")
    print(report.summary_table(report.summarize(results)))
    run = {
        "dtypes": dtypes,
        "ops": only or "all",
        "results": len(results),
        "wall_s": round(wall, 1),
    }
    runs = [run]
    if args.update and Path(args.out).with_suffix(".json").exists():
        old = json.loads(Path(args.out).with_suffix(".json").read_text())
        fresh = {(r["op"], r["dtype"]) for r in results}
        kept = [r for r in old["results"] if (r["op"], r["dtype"]) not in fresh]
        results = sorted(kept + results, key=lambda r: (r["index"], report.dtype_rank(r)))
        runs = old["settings"].get("runs", []) + runs
        dtypes = [d for d in report.DTYPE_ORDER if any(r["dtype"] == d for r in results)]
    settings = {
        "dtypes": dtypes,
        "max_samples": args.max_samples,
        "jobs": args.jobs,
        "timeout_s": args.timeout,
        "wall_s": round(sum(r["wall_s"] for r in runs if r["ops"] == "all"), 1),
        "runs": runs,
        "command": "make coverage",
    }
    md, js = report.write(results, settings, Path(args.out))
    print(f"{len(results)} results -> {md}, {js}")
    print(report.summary_table(report.summarize(results)))


if __name__ == "__main__":
    main()
