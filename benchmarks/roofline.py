"""The fastest the GPT-style training step can run on this machine, and where
each mode's time goes: the step's floating-point work (PyTorch's
FlopCounterMode, forward and backward), this machine's matrix-multiply
throughput per core (PyTorch's own CPU matmul on one thread, on the model's
shapes: the best a core does here), and the CPU time each mode spends per step
on each kind of thread (the Python thread that records or dispatches ops,
PyTorch's autograd thread, the plugin's compute threads), read from /proc.

On the XLA CPU plugin the device's work runs on the same cores as the host's.
A step cannot take less than (the matmuls' core time at peak + the host's CPU
time) / cores, whatever the mode; strict mode's step time over that bound is
the largest speed-up any fusion could give over strict here.

    python benchmarks/roofline.py [--steps 200] [--out benchmarks/results]

Model and batches: the peer benchmark's (benchmarks/peers/workloads.py: vocab
96, context 64, hidden 128, 4 heads, 2 layers, batch 8, AdamW). Writes
results/roofline.json and results/roofline.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE / "peers"), str(HERE.parent / "examples")]

MODES = ("cpu", "strict", "defer")


def _thread_cpu() -> dict[str, float]:
    """CPU seconds so far per thread kind (the thread's name, digits dropped)."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path("/proc/self/task").iterdir():
        try:
            name = (task / "comm").read_text().strip().rstrip("0123456789_")
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def worker(mode: str, steps: int, inputs_path: str) -> dict[str, Any]:
    """Trains `steps` steps after warm-up in `mode`; wall and CPU per step."""
    import torch
    from workloads import LR, WEIGHT_DECAY, load_inputs, loss_of, new_model

    device = "cpu" if mode == "cpu" else "tpu"
    if device == "tpu":
        import torchtpu

        torchtpu.set_mode(mode)
    inputs = load_inputs(Path(inputs_path))
    model = new_model(inputs).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    idx = [b.to(device) for b in inputs.idx]
    tgt = [b.to(device) for b in inputs.tgt]

    def step(i: int) -> float:
        opt.zero_grad()
        loss = loss_of(model(idx[i % len(idx)]), tgt[i % len(tgt)])
        loss.backward()
        opt.step()
        return loss.item()

    for i in range(10):
        step(i)
    times = []
    before = _thread_cpu()
    start = time.perf_counter()
    for i in range(steps):
        t = time.perf_counter()
        step(i)
        times.append(time.perf_counter() - t)
    wall = time.perf_counter() - start
    after = _thread_cpu()
    cpu = {k: (v - before.get(k, 0.0)) / steps for k, v in after.items()}
    times.sort()
    return {
        "median_s": times[len(times) // 2],
        "mean_s": wall / steps,
        "cpu_s_per_step": {k: v for k, v in cpu.items() if v > 0},
    }


def step_flops(inputs_path: str) -> float:
    """Floating-point operations of one training step's forward and backward."""
    from torch.utils.flop_counter import FlopCounterMode
    from workloads import load_inputs, loss_of, new_model

    inputs = load_inputs(Path(inputs_path))
    model = new_model(inputs)
    counter = FlopCounterMode(display=False)
    with counter:
        loss = loss_of(model(inputs.idx[0]), inputs.tgt[0])
        loss.backward()
    return float(counter.get_total_flops())


def matmul_peak() -> dict[str, float]:
    """GFLOP/s of PyTorch's CPU matmul on one thread, per model shape."""
    import torch

    torch.set_num_threads(1)
    rows = 8 * 64  # batch x context
    shapes = {
        "qkv": (rows, 128, 384),
        "mlp up": (rows, 128, 512),
        "mlp down": (rows, 512, 128),
        "1024 square": (1024, 1024, 1024),
    }
    out = {}
    for name, (m, k, n) in shapes.items():
        a, b = torch.randn(m, k), torch.randn(k, n)
        for _ in range(20):
            a @ b
        reps = max(20, int(2e9 / (2 * m * k * n)))
        t = time.perf_counter()
        for _ in range(reps):
            a @ b
        out[name] = 2 * m * k * n * reps / (time.perf_counter() - t) / 1e9
    return out


def _run_worker(mode: str, steps: int, inputs_path: str) -> dict[str, Any]:
    p = subprocess.run(
        [sys.executable, __file__, "--worker", mode, "--steps", str(steps)]
        + ["--inputs", inputs_path],
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
    )
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3, help="worker runs per mode, interleaved")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument("--worker", choices=MODES)
    ap.add_argument("--inputs")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.steps, args.inputs)))
        sys.stdout.flush()
        os._exit(0)  # no interpreter teardown to time or to fail

    from workloads import make_inputs

    cores = len(os.sched_getaffinity(0))
    peak = matmul_peak()
    best = max(peak.values())
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    with tempfile.TemporaryDirectory() as d:
        inputs_path = str(Path(d) / "inputs.pt")
        make_inputs(Path(inputs_path))
        flops = step_flops(inputs_path)
        for _ in range(args.repeats):
            for mode in MODES:
                runs[mode].append(_run_worker(mode, args.steps, inputs_path))
                print(mode, json.dumps(runs[mode][-1]), flush=True)

    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    rows = {}
    for mode, rs in runs.items():
        kinds = sorted({k for r in rs for k in r["cpu_s_per_step"]})
        rows[mode] = {
            "step_s": med([r["median_s"] for r in rs]),
            "cpu_s_per_step": {
                k: med([r["cpu_s_per_step"].get(k, 0.0) for r in rs]) for k in kinds
            },
        }
    matmul_core_s = flops / (best * 1e9)
    defer_cpu = rows["defer"]["cpu_s_per_step"]
    defer_host = sum(v for k, v in defer_cpu.items() if not k.startswith("tf_"))
    defer_plugin = sum(v for k, v in defer_cpu.items() if k.startswith("tf_"))
    bound = (matmul_core_s + defer_host) / cores
    result = {
        "ran": time.strftime("%Y-%m-%d %H:%M"),
        "cores": cores,
        "step_gflop": flops / 1e9,
        "matmul_gflops_per_core": peak,
        "matmul_core_s": matmul_core_s,
        "defer_host_cpu_s": defer_host,
        "defer_plugin_cpu_s": defer_plugin,
        "bound_s": bound,
        "strict_over_bound": rows["strict"]["step_s"] / bound,
        "strict_over_defer": rows["strict"]["step_s"] / rows["defer"]["step_s"],
        "modes": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "roofline.json").write_text(json.dumps(result, indent=1))
    ms = 1e3
    lines = [
        f"Step: {flops / 1e9:.2f} GFLOP (forward and backward); matmul on one core: "
        + ", ".join(f"{k} {v:.0f}" for k, v in peak.items())
        + f" GFLOP/s; {cores} cores.",
        "",
        f"Medians of {args.repeats} processes per mode, {args.steps} steps each, interleaved.",
        "",
        "| mode | step | Python thread CPU | autograd thread CPU | plugin threads CPU "
        "| other CPU |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for mode, r in rows.items():
        c = r["cpu_s_per_step"]
        py = c.get("python", 0.0)
        ag = sum(v for k, v in c.items() if k.startswith("pt_autograd"))
        xla = sum(v for k, v in c.items() if k.startswith("tf_"))
        other = sum(c.values()) - py - ag - xla
        lines.append(
            f"| {mode} | {r['step_s'] * ms:.2f} ms | {py * ms:.2f} ms | {ag * ms:.2f} ms "
            f"| {xla * ms:.2f} ms | {other * ms:.2f} ms |"
        )
    lines += [
        "",
        f"Matmuls at one core's peak: {matmul_core_s * ms:.2f} ms of core time per step. "
        f"With defer's host CPU ({defer_host * ms:.2f} ms: every thread but the plugin's), "
        f"no step can take less than {bound * ms:.2f} ms on {cores} cores. "
        f"Strict's step over that bound: {result['strict_over_bound']:.2f}x (the most any "
        f"fusion can gain over strict here); defer's gain: {result['strict_over_defer']:.2f}x. "
        f"Defer's plugin threads spend {defer_plugin * ms:.2f} ms of CPU per step, "
        f"{(defer_plugin - matmul_core_s) * ms:.2f} ms more than the matmuls at peak (the rest "
        "of the programs: elementwise fusions, reductions, copies, and the pool's waiting).",
    ]
    (args.out / "roofline.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
