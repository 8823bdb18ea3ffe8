"""torchtpu against its peers: PyTorch's CPU eager, PyTorch/XLA 2.9 and torchax (JAX),
on the same workloads, from the same initial weights and batches.

    python benchmarks/peers/run.py --peers-python .venv-peers/bin/python [--n 5]
        [--systems defer,xla_lazy] [--workloads train,cold] [--quick] [--out DIR]

(`make bench-peers` sets up .venv-peers and runs this.) The driver runs in torchtpu's
venv: it saves the inputs once (the GPT-style model's initial weights, 20 seeded
batches, the chain's input; torch.save), then starts one worker process per
(system, workload, repeat), interleaved: every system once for a workload, then
the next workload, then the whole round again, N rounds. Each figure is the
median over the N processes. The torchtpu and CPU rows run in this Python
(worker_torchtpu.py), the PyTorch/XLA and torchax rows in the peers' Python
(worker_xla.py, worker_torchax.py). Every process starts with cold compile
caches: torchtpu's disk cache (TORCHTPU_CACHE_DIR) and Inductor's
(TORCHINDUCTOR_CACHE_DIR) point at a fresh empty folder, and PyTorch/XLA's and
JAX's persistent caches stay off (their default; the variables that would turn
them on are removed). OMP_WAIT_POLICY=PASSIVE for every process (OpenMP's
spinning threads slow PyTorch's CPU kernels down many times on a busy machine).

Writes peers.json (every process's figures), peers.md (the tables) and
peers.png (if matplotlib is installed) in --out (benchmarks/results).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workloads import ADD_BATCH, BATCH, COLD_STEPS, WORKLOADS, make_inputs  # noqa: E402

# (key, row label, worker module)
SYSTEMS: list[tuple[str, str, str]] = [
    ("cpu", "PyTorch CPU eager", "worker_torchtpu.py"),
    ("strict", "torchtpu strict", "worker_torchtpu.py"),
    ("defer", "torchtpu defer", "worker_torchtpu.py"),
    ("compile", 'torchtpu compile (backend="tpu")', "worker_torchtpu.py"),
    ("torchax_jit", "torchax (JAX) jit", "worker_torchax.py"),
    ("torchax_eager", "torchax (JAX) eager", "worker_torchax.py"),
    ("xla_lazy", "PyTorch/XLA 2.9 lazy", "worker_xla.py"),
    ("xla_eager", "PyTorch/XLA 2.9 eager", "worker_xla.py"),
    ("xla_openxla", 'PyTorch/XLA 2.9 compile (backend="openxla")', "worker_xla.py"),
]
LABELS = {key: label for key, label, _ in SYSTEMS}
# The tiny add measures the per-op cost of the systems that run op by op.
EAGER = {"cpu", "strict", "defer", "torchax_eager", "xla_lazy", "xla_eager"}
# Columns of the table: (name, workload, figure of the worker's result, unit).
COLUMNS: list[tuple[str, str, str, str]] = [
    ("train step", "train", "value", "ms"),
    ("first step", "cold", "first_step_s", "s"),
    (f"first {COLD_STEPS} steps", "cold", "first20_s", "s"),
    ("inference", "infer", "value", "ms"),
    ("elementwise chain", "chain", "value", "ms"),
    ("tiny add, per op", "add", "value", "us"),
]
# Variables that would turn a persistent compile cache on (or point it elsewhere).
CACHE_VARIABLES = (
    "XLA_PERSISTENT_CACHE_PATH",
    "JAX_COMPILATION_CACHE_DIR",
    "JAX_ENABLE_COMPILATION_CACHE",
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES",
)
TIMEOUT_S = 1800
LEGEND = (
    "Train step, inference, chain: the median call after 5 warm-up calls, each call ending "
    "with a value read back (the loss, the argmax, the sum). First step, first 20 steps: "
    "from the start of the first step in a fresh process (imports and moving the weights "
    "not included). Compiles: the programs compiled in that process by the 20th step (XLA's "
    "UncachedCompile, JAX's backend compiles, torchtpu's compiles and graphs_compiled). "
    "Max abs Δloss: over the 20 steps of every process, against the CPU's first. Tiny add: "
    f"batches of {ADD_BATCH} adds of 8 elements, the result read back after each batch. "
    "torchax trains through JAX autodiff and optax.adamw (one jit program per step); "
    "in training, the torch.compile rows compile the model and run AdamW outside the graphs "
    "(torchtpu: deferred; XLA: lazy)."
)


def _applies(system: str, workload: str) -> bool:
    return workload != "add" or system in EAGER


def _env(scratch: Path, quick: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    env.pop("PYTHONPATH", None)
    (scratch / "torchtpu").mkdir()
    (scratch / "inductor").mkdir()
    env.update(
        OMP_WAIT_POLICY="PASSIVE",
        TORCHTPU_CACHE_DIR=str(scratch / "torchtpu"),
        TORCHINDUCTOR_CACHE_DIR=str(scratch / "inductor"),
        PJRT_DEVICE="CPU",
        JAX_PLATFORMS="cpu",
        TF_CPP_MIN_LOG_LEVEL="2",
        PEERS_QUICK="1" if quick else "0",
    )
    return env


def run_one(
    system: str, workload: str, inputs: Path, python: dict[str, str], quick: bool
) -> dict[str, Any]:
    """One worker process, with caches of its own; its result or {"failed": why}."""
    module = next(m for key, _, m in SYSTEMS if key == system)
    exe = python["torchtpu" if module == "worker_torchtpu.py" else "peers"]
    cmd = [exe, str(HERE / module), "--system", system, "--workload", workload]
    cmd += ["--inputs", str(inputs)]
    with tempfile.TemporaryDirectory(prefix="peers-cache-") as scratch:
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                env=_env(Path(scratch), quick),
            )
        except subprocess.TimeoutExpired:
            return {"failed": f"timed out after {TIMEOUT_S} s"}
        wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        errors = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        return {"failed": (errors or [f"exit status {proc.returncode}"])[-1]}
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    result["process_wall_s"] = wall
    return result


def _fmt(value: float, unit: str) -> str:
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    v = value * scale
    digits = 2 if v < 10 else 1 if v < 100 else 0
    return f"{v:.{digits}f} {unit}"


def aggregate(runs: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """Per system and workload: the medians over processes, the failures, and for
    the cold runs the compiles and the largest loss difference from CPU eager."""
    cpu_cold = [r for r in runs.get("cpu", {}).get("cold", []) if "losses" in r]
    reference = cpu_cold[0]["losses"] if cpu_cold else None
    out: dict[str, Any] = {}
    for system, per_workload in runs.items():
        out[system] = {}
        for workload, results in per_workload.items():
            ok = [r for r in results if "failed" not in r]
            agg: dict[str, Any] = {"processes": len(ok)}
            failures = [r["failed"] for r in results if "failed" in r]
            if failures:
                agg["failed"] = failures
            if ok:
                agg["median"] = statistics.median(r["value"] for r in ok)
                agg["median_import_s"] = statistics.median(r["import_s"] for r in ok)
                agg["versions"] = ok[0]["versions"]
                timed = [r["compiles_timed"] for r in ok if "compiles_timed" in r]
                if timed:
                    agg["compiles_while_timed"] = max(timed)
            if ok:
                # How far apart the processes were: the slowest one's figure over the fastest's.
                fields = ("first_step_s", "first20_s") if workload == "cold" else ("value",)
                agg["spread"] = {f: max(r[f] for r in ok) / min(r[f] for r in ok) for f in fields}
            if workload == "cold" and ok:
                agg["first_step_s"] = statistics.median(r["first_step_s"] for r in ok)
                agg["first20_s"] = statistics.median(r["first20_s"] for r in ok)
                compiles = [r["compiles"] for r in ok if r.get("compiles") is not None]
                if compiles:
                    agg["compiles"] = statistics.median(compiles)
                if reference is not None:
                    agg["max_abs_dloss"] = max(
                        abs(a - b) for r in ok for a, b in zip(r["losses"], reference, strict=True)
                    )
            out[system][workload] = agg
    return out


def _figure(agg: dict[str, Any], system: str, workload: str, field: str) -> float | None:
    cell = agg.get(system, {}).get(workload, {})
    value = cell.get("median" if field == "value" else field)
    return float(value) if value is not None else None


def tables(agg: dict[str, Any], systems: list[str]) -> str:
    """Markdown: the medians (with compiles and loss agreement), then the ratios."""
    head = "| system | " + " | ".join(name for name, *_ in COLUMNS)
    lines = [
        head + f" | compiles, first {COLD_STEPS} steps | max abs Δloss vs CPU |",
        "|---|" + "---:|" * (len(COLUMNS) + 2),
    ]
    for system in systems:
        cells = []
        for _, workload, field, unit in COLUMNS:
            value = _figure(agg, system, workload, field)
            cell = agg.get(system, {}).get(workload, {})
            if value is not None:
                cells.append(_fmt(value, unit))
            elif "failed" in cell:
                cells.append("failed")
            else:
                cells.append("")
        cold = agg.get(system, {}).get("cold", {})
        compiles = cold.get("compiles")
        cells.append("" if compiles is None else f"{compiles:g}")
        dloss = cold.get("max_abs_dloss")
        cells.append("" if dloss is None else f"{dloss:.1e}")
        lines.append(f"| {LABELS[system]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Ratios, each against torchtpu defer / against PyTorch CPU eager (the reference's "
        "time over this system's: above 1 is faster):",
        "",
        "| system | " + " | ".join(name for name, *_ in COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for system in systems:
        cells = []
        for _, workload, field, _unit in COLUMNS:
            value = _figure(agg, system, workload, field)
            defer = _figure(agg, "defer", workload, field)
            cpu = _figure(agg, "cpu", workload, field)
            if value is None:
                cells.append("")
                continue
            vs_defer = f"{defer / value:.2f}x" if defer else "-"
            vs_cpu = f"{cpu / value:.2f}x" if cpu else "-"
            cells.append(f"{vs_defer} / {vs_cpu}")
        lines.append(f"| {LABELS[system]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Spread: the slowest of the processes' figures over the fastest's:",
        "",
        "| system | " + " | ".join(name for name, *_ in COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for system in systems:
        cells = []
        for _, workload, field, _unit in COLUMNS:
            spread = agg.get(system, {}).get(workload, {}).get("spread", {})
            key = "value" if field == "value" else field
            cells.append(f"{spread[key]:.1f}x" if key in spread else "")
        lines.append(f"| {LABELS[system]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(agg: dict[str, Any], systems: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    colors = {
        "worker_torchtpu.py": "tab:blue",
        "worker_torchax.py": "tab:green",
        "worker_xla.py": "tab:orange",
    }
    family = {key: module for key, _, module in SYSTEMS}
    fig, axes = plt.subplots(2, 3, figsize=(15, 8), sharey=True)
    for ax, (name, workload, field, unit) in zip(axes.flat, COLUMNS, strict=True):
        scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
        for y, system in enumerate(systems):
            value = _figure(agg, system, workload, field)
            if value is None:
                continue
            ax.barh(y, scale * value, color=colors[family[system]])
            ax.text(scale * value, y, f" {scale * value:.3g}", va="center", fontsize=8)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        left, right = ax.get_xlim()
        ax.set_xlim(left, right * 4)  # room for the figures
        ax.set_title(f"{name} ({unit})")
    axes[0][0].set_yticks(range(len(systems)), [LABELS[s] for s in systems])
    axes[0][0].invert_yaxis()
    fig.suptitle(f"torchtpu and its peers: median of {_n(agg)} processes, lower is better")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def _n(agg: dict[str, Any]) -> int:
    return max((c.get("processes", 0) for per in agg.values() for c in per.values()), default=0)


def _versions(agg: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The versions the workers reported, per venv."""
    out: dict[str, dict[str, str]] = {"torchtpu's venv": {}, "peers' venv": {}}
    for system, venv in (
        ("defer", "torchtpu's venv"),
        ("xla_lazy", "peers' venv"),
        ("torchax_jit", "peers' venv"),
    ):
        for cell in agg.get(system, {}).values():
            out[venv].update(cell.get("versions", {}))
    return {venv: v for venv, v in out.items() if v}


def _commit() -> str:
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
        )
        return proc.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def write_report(meta: dict[str, Any], runs: dict[str, Any], out: Path) -> None:
    """peers.json (meta, summary, every process's result), peers.md and peers.png."""
    systems = [key for key, _, _ in SYSTEMS if key in runs]
    agg = aggregate(runs)
    meta = {**meta, "versions": _versions(agg)}
    loads = [r.get("load_average") for per in runs.values() for rs in per.values() for r in rs]
    loads = [x for x in loads if x is not None]
    out.mkdir(parents=True, exist_ok=True)
    (out / "peers.json").write_text(
        json.dumps({"meta": meta, "labels": LABELS, "summary": agg, "runs": runs}, indent=1)
    )
    versions = "; ".join(
        f"{venv}: " + ", ".join(f"{name} {v}" for name, v in names.items())
        for venv, names in meta["versions"].items()
    )
    load = (
        f" One-minute load average when the processes started: {min(loads):.1f} to "
        f"{max(loads):.1f}."
        if loads
        else ""
    )
    header = (
        f"Command: `{meta['command']}` (torchtpu {meta.get('commit', 'unknown')}) on "
        f"{meta['machine']}, {meta['date']}, {meta['minutes']} min; median of {meta['n']} "
        f"processes per cell{' (--quick)' if meta['quick'] else ''}, interleaved; every "
        f"process with cold compile caches. Versions: {versions}. GPT-style decoder "
        f"(examples/gpt.py: context 64, hidden 128, 4 heads, 2 layers), batch {BATCH}, "
        f"AdamW.{load}"
    )
    md = tables(agg, systems)
    (out / "peers.md").write_text(f"{header}\n\n{LEGEND}\n\n{md}\n")
    print("\n" + md)
    try:
        plot(agg, systems, out / "peers.png")
        print(f"\nplot: {out / 'peers.png'}")
    except ImportError:
        print("\n(no plot: pip install matplotlib)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--peers-python", default=str(HERE.parents[1] / ".venv-peers/bin/python"))
    parser.add_argument("--n", type=int, default=5, help="processes per system and workload")
    parser.add_argument("--systems", help="comma-separated keys (default: all)")
    parser.add_argument("--workloads", help=f"comma-separated, of {','.join(WORKLOADS)}")
    parser.add_argument("--quick", action="store_true", help="fewer timed calls (a smoke test)")
    parser.add_argument("--out", default=str(HERE.parent / "results"))
    parser.add_argument(
        "--report", type=Path, help="rewrite the tables and plot of this peers.json; run nothing"
    )
    args = parser.parse_args()
    if args.report:
        data = json.loads(args.report.read_text())
        write_report(data["meta"], data["runs"], Path(args.out))
        return
    systems = args.systems.split(",") if args.systems else [key for key, _, _ in SYSTEMS]
    workloads = args.workloads.split(",") if args.workloads else list(WORKLOADS)
    unknown = set(systems) - set(LABELS) | set(workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown: {', '.join(sorted(unknown))}")
    python = {"torchtpu": sys.executable, "peers": args.peers_python}

    started = time.time()
    print(
        f"{len(systems)} systems x {len(workloads)} workloads, {args.n} rounds, one process "
        f"each; {platform.node()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        s: {w: [] for w in workloads if _applies(s, w)} for s in systems
    }
    with tempfile.TemporaryDirectory(prefix="peers-inputs-") as tmp:
        inputs = Path(tmp) / "inputs.pt"
        make_inputs(inputs)
        for round_ in range(args.n):
            for workload in workloads:
                for system in systems:
                    if not _applies(system, workload):
                        continue
                    load = os.getloadavg()[0]
                    r = run_one(system, workload, inputs, python, args.quick)
                    r["load_average"] = load
                    runs[system][workload].append(r)
                    shown = r.get("failed") or f"{r['value']:.6g} s ({r['process_wall_s']:.0f} s)"
                    print(f"[{round_ + 1}/{args.n}] {workload:<6} {system:<14} {shown}", flush=True)

    meta = {
        "command": " ".join(["python benchmarks/peers/run.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "minutes": round((time.time() - started) / 60, 1),
        "machine": f"{platform.node()} ({os.cpu_count()} cores, {platform.machine()})",
        "n": args.n,
        "quick": args.quick,
        "batch": BATCH,
        "cold_steps": COLD_STEPS,
        "add_batch": ADD_BATCH,
        "caches": "cold: every process starts with empty compile caches",
        "commit": _commit(),
    }
    write_report(meta, runs, Path(args.out))


if __name__ == "__main__":
    main()
