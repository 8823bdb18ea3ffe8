"""Threads in defer mode, side by side: N threads each training a small MLP
(forward, backward, SGD) for a fixed time, against one thread alone; also an
elementwise chain. Each configuration runs in its own process. Mode "cpu" is
PyTorch's own CPU eager on the same workloads: the reference for what Python
threads get from PyTorch, whose op bindings release the GIL at every op.

    python benchmarks/threads.py [--seconds 5] [--threads 4] [--out benchmarks/results]

Runs 1, 2 and --threads threads. Writes results/threads.json, results/threads.md
and results/threads.png: iterations per second in total and per thread, the
ratio of N threads to one, the programs compiled and recompiled after warm-up,
and where the CPU goes (from /proc, over the timed window): per iteration, the
CPU of the threads that run the steps (and how much of it is in the kernel),
of autograd's device thread and of every other thread (the plugin's pool and
torchtpu's helpers), the context switches, and how many of the cores are busy.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

WORKER = r"""
import contextlib, json, os, sys, threading, time, torch, torchtpu
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

def cpu_by_thread():
    # Per thread: its name, user and system CPU seconds, context switches.
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/self/task/{tid}/status") as f:
                status = f.read()
        except OSError:  # the thread ended
            continue
        switches = sum(int(line.split()[1]) for line in status.splitlines()
                       if "ctxt_switches:" in line)
        out[tid] = (name, int(fields[11]) / tick, int(fields[12]) / tick, switches)
    return out

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
cpu_before = cpu_by_thread()
time.sleep(seconds)
cpu_after = cpu_by_thread()  # before the workers stop
stop.set()
for t in threads:
    t.join()
elapsed = time.perf_counter() - t0
after = torchtpu.metrics.counters()
workers = {str(t.native_id) for t in threads}
cpu = {c: {"user": 0.0, "sys": 0.0} for c in ("workers", "autograd", "other")}
switches = 0
for tid, (name, user, system, sw) in cpu_after.items():
    _, user0, system0, sw0 = cpu_before.get(tid, (name, 0.0, 0.0, 0))
    c = "workers" if tid in workers else "autograd" if name.startswith("pt_autograd") else "other"
    cpu[c]["user"] += user - user0
    cpu[c]["sys"] += system - system0
    switches += sw - sw0
print(json.dumps({"iterations": sum(counts), "per_thread": counts, "seconds": elapsed,
                  "compiles": after["compiles"] - before["compiles"],
                  "recompiles": after["recompiles"] - before["recompiles"],
                  "cpu": cpu, "switches": switches}))
"""


def run_one(workload: str, mode: str, n: int, seconds: float) -> dict[str, Any]:
    p = subprocess.run(
        [sys.executable, "-c", WORKER, workload, mode, str(n), str(seconds)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"OMP_WAIT_POLICY": "PASSIVE", **os.environ},
    )
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    r: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    r["per_second"] = r["iterations"] / r["seconds"]
    return r


def where_cpu_goes(r: dict[str, Any], seconds: float) -> dict[str, float]:
    """Per iteration: microseconds of CPU by thread class and context switches;
    and the cores busy. The CPU was sampled over `seconds`."""
    iterations = r["per_second"] * seconds
    cpu = r["cpu"]

    def total(c: str) -> float:  # CPU seconds
        return cpu[c]["user"] + cpu[c]["sys"]

    def us(c: str) -> float:
        return total(c) / iterations * 1e6

    return {
        "workers_us": us("workers"),
        "workers_kernel_share": cpu["workers"]["sys"] / total("workers")
        if total("workers")
        else 0.0,
        "autograd_us": us("autograd"),
        "other_us": us("other"),
        "switches": r["switches"] / iterations,
        "cores_busy": sum(total(c) for c in cpu) / seconds,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    counts = sorted({1, 2, args.threads})
    rows = []
    for workload in ("mlp", "chain"):
        for mode in ("defer", "strict", "cpu"):
            runs = {n: run_one(workload, mode, n, args.seconds) for n in counts}
            one = runs[1]["per_second"]
            many = runs[args.threads]
            rows.append(
                {
                    "workload": workload,
                    "mode": mode,
                    "n": args.threads,
                    "per_s": {n: r["per_second"] for n, r in runs.items()},
                    "ratio": {n: r["per_second"] / one for n, r in runs.items()},
                    "compiles_after_warmup": many["compiles"],
                    "recompiles_after_warmup": many["recompiles"],
                    "per_thread": many["per_thread"],
                    "cpu": {n: where_cpu_goes(r, args.seconds) for n, r in runs.items()},
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    (args.out / "threads.json").write_text(json.dumps({"ran": stamp, "rows": rows}, indent=1))
    (args.out / "threads.md").write_text(markdown(rows, counts, args.threads))
    plot(rows, counts, args.out / "threads.png")


def markdown(rows: list[dict[str, Any]], counts: list[int], n: int) -> str:
    many = [c for c in counts if c > 1]
    head = " | ".join(f"{c} threads (it/s, ratio)" for c in many)
    lines = [
        f"| workload | mode | 1 thread (it/s) | {head} | compiles after warm-up | recompiles |",
        "|---|---|---:|" + "---:|" * len(many) + "---:|---:|",
    ]
    for r in rows:
        cells = " | ".join(f"{r['per_s'][c]:.0f} ({r['ratio'][c]:.2f})" for c in many)
        lines.append(
            f"| {r['workload']} | {r['mode']} | {r['per_s'][1]:.0f} | {cells} "
            f"| {r['compiles_after_warmup']} | {r['recompiles_after_warmup']} |"
        )
    lines += [
        "",
        f"Where the CPU goes, per iteration, with 1 thread → {n} threads: the threads that "
        "run the steps (the share of it in the kernel), autograd's device thread, every "
        "other thread (the plugin's pool, torchtpu's helpers), context switches, and the "
        "cores busy on average.",
        "",
        "| workload | mode | step threads (µs) | in the kernel | autograd thread (µs) "
        "| other threads (µs) | switches | cores busy |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        a, b = r["cpu"][1], r["cpu"][n]
        lines.append(
            f"| {r['workload']} | {r['mode']} | {a['workers_us']:.0f} → {b['workers_us']:.0f} "
            f"| {a['workers_kernel_share']:.0%} → {b['workers_kernel_share']:.0%} "
            f"| {a['autograd_us']:.0f} → {b['autograd_us']:.0f} "
            f"| {a['other_us']:.0f} → {b['other_us']:.0f} "
            f"| {a['switches']:.1f} → {b['switches']:.1f} "
            f"| {a['cores_busy']:.2f} → {b['cores_busy']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def plot(rows: list[dict[str, Any]], counts: list[int], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 3))
    names = [f"{r['workload']}/{r['mode']}" for r in rows]
    many = [c for c in counts if c > 1]
    width = 0.8 / len(many)
    for k, c in enumerate(many):
        xs = [i + (k - (len(many) - 1) / 2) * width for i in range(len(rows))]
        ax.bar(xs, [r["ratio"][c] for r in rows], width, label=f"{c} threads")
    ax.set_xticks(range(len(rows)), names)
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_ylabel("N threads / 1 thread")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    main()
