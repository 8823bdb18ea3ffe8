"""Threads in defer mode, side by side: N threads each training a small MLP
(forward, backward, SGD) for a fixed time, against one thread alone; also an
elementwise chain. Each configuration runs in its own process. Mode "cpu" is
PyTorch's own CPU eager on the same workloads: the reference for what Python
threads get from PyTorch, whose op bindings release the GIL at every op.

    python benchmarks/threads.py [--seconds 5] [--threads 4] [--out benchmarks/results]

Writes results/threads.json, results/threads.md and results/threads.png:
iterations per second in total, per thread, the ratio of N threads to one, and
the programs compiled and recompiled after warm-up.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

WORKER = r"""
import contextlib, json, sys, threading, time, torch, torchtpu
from torch import nn
workload, mode, n, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
dev = "cpu" if mode == "cpu" else "tpu"  # "cpu": PyTorch's own CPU eager, the reference

def mlp_step(state):
    model, opt, x, y = state
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss

def chain_step(state):
    (x,) = state
    for _ in range(20):
        x = torch.sin(x) * 1.01 + 0.1
    return x.sum()

def make(seed):
    torch.manual_seed(seed)
    if workload == "mlp":
        model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        return (model, opt, torch.randn(32, 64, device=dev), torch.randn(32, 8, device=dev))
    return (torch.randn(256, device=dev),)

step = mlp_step if workload == "mlp" else chain_step
counts = [0] * n
start = threading.Barrier(n + 1)
stop = threading.Event()

def run(k):
    with contextlib.nullcontext() if mode == "cpu" else torchtpu.mode(mode):
        state = make(k)
        for _ in range(3):  # warm-up
            step(state).item()
        start.wait()
        while not stop.is_set():
            step(state).item()
            counts[k] += 1

threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
for t in threads:
    t.start()
start.wait()
before = torchtpu.metrics.counters()
t0 = time.perf_counter()
time.sleep(seconds)
stop.set()
for t in threads:
    t.join()
elapsed = time.perf_counter() - t0
after = torchtpu.metrics.counters()
print(json.dumps({"iterations": sum(counts), "per_thread": counts, "seconds": elapsed,
                  "compiles": after["compiles"] - before["compiles"],
                  "recompiles": after["recompiles"] - before["recompiles"]}))
"""


def run_one(workload: str, mode: str, n: int, seconds: float) -> dict[str, Any]:
    p = subprocess.run(
        [sys.executable, "-c", WORKER, workload, mode, str(n), str(seconds)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"OMP_WAIT_POLICY": "PASSIVE", **__import__("os").environ},
    )
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    r: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    r["per_second"] = r["iterations"] / r["seconds"]
    return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    rows = []
    for workload in ("mlp", "chain"):
        for mode in ("defer", "strict", "cpu"):
            one = run_one(workload, mode, 1, args.seconds)
            many = run_one(workload, mode, args.threads, args.seconds)
            rows.append(
                {
                    "workload": workload,
                    "mode": mode,
                    "one_thread_per_s": one["per_second"],
                    "n_threads_per_s": many["per_second"],
                    "ratio": many["per_second"] / one["per_second"],
                    "n": args.threads,
                    "compiles_after_warmup": many["compiles"],
                    "recompiles_after_warmup": many["recompiles"],
                    "per_thread": many["per_thread"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    (args.out / "threads.json").write_text(json.dumps({"ran": stamp, "rows": rows}, indent=1))
    lines = [
        f"| workload | mode | 1 thread (it/s) | {args.threads} threads (it/s) | ratio "
        "| compiles after warm-up | recompiles |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['workload']} | {r['mode']} | {r['one_thread_per_s']:.0f} "
            f"| {r['n_threads_per_s']:.0f} | {r['ratio']:.2f} | {r['compiles_after_warmup']} "
            f"| {r['recompiles_after_warmup']} |"
        )
    (args.out / "threads.md").write_text("\n".join(lines) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3))
        names = [f"{r['workload']}/{r['mode']}" for r in rows]
        ax.bar(names, [r["ratio"] for r in rows])
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_ylabel(f"{args.threads} threads / 1 thread")
        fig.tight_layout()
        fig.savefig(args.out / "threads.png")
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)


if __name__ == "__main__":
    main()
