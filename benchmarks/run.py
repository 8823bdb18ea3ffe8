"""Side-by-side benchmarks: each configuration runs in its own process; the
figures are medians over repeated runs after warm-up, and ratios are taken
within one run of this script.

    python benchmarks/run.py [--quick] [--only NAME] [--out benchmarks/results]

Writes results/latest.json, results/latest.md (the README table) and
results/latest.png. With --only, the benchmarks run replace their own rows of
an existing latest.json and the other rows are kept (each row says when it ran).

record_op is the per-op cost of dispatch (CPU eager) and of recording an op
into a DeferAndFuse trace (defer): batches of 100 adds of 8 elements, timed
without a flush (the trace is run after the timer stops); its figure is the
median over repeats of the fastest batch of each repeat, per op.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))

# (benchmark, configuration) pairs; each runs in its own process.
CONFIGS: list[tuple[str, str]] = [
    ("record_op", "cpu"),
    ("record_op", "defer"),
    ("tiny_add", "cpu"),
    ("tiny_add", "strict"),
    ("tiny_add", "defer"),
    ("elementwise_chain", "cpu"),
    ("elementwise_chain", "strict"),
    ("elementwise_chain", "defer"),
    ("mlp_train_step", "cpu"),
    ("mlp_train_step", "strict"),
    ("mlp_train_step", "defer"),
    ("gpt_train_step", "cpu"),
    ("gpt_train_step", "inductor"),
    ("gpt_train_step", "strict"),
    ("gpt_train_step", "defer"),
    ("gpt_train_step", "compiled_tpu"),
    ("gpt_train_step", "jax_jit"),
    ("gpt_inference", "cpu"),
    ("gpt_inference", "inductor"),
    ("gpt_inference", "strict"),
    ("gpt_inference", "defer"),
    ("gpt_inference", "compiled_tpu"),
    ("gpt_inference", "jax_jit"),
]


# ---- the work of one configuration -----------------------------------------------


def _setup(config: str) -> str:
    """Prepare the process for `config`; returns the torch device to use."""
    import torch

    torch.manual_seed(0)
    if config in ("strict", "defer"):
        import torchtpu

        torchtpu.set_mode(config)
        return "tpu"
    if config == "compiled_tpu":
        import torchtpu

        # The model runs as compiled graphs; what stays eager around them (the
        # optimizer) runs deferred and fused.
        torchtpu.set_mode(os.environ.get("BENCH_COMPILED_MODE", "defer"))
        return "tpu"
    return "cpu"


def _sync(device: str) -> None:
    if device == "tpu":
        import torchtpu

        torchtpu.sync()


def _timed(fn: Any, device: str, repeats: int, inner: int) -> list[float]:
    """Seconds per call of fn, one figure per repeat of `inner` calls."""
    out = []
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        _sync(device)
        out.append((time.perf_counter() - t0) / inner)
    return out


# Ops per record_op batch: fewer than the trace's loop-detection minimum
# (kMinLoopOps = 128), so that no flush falls inside a batch.
RECORD_BATCH = 100


def bench_record_op(device: str, quick: bool) -> tuple[Any, int]:
    """Self-timed: each call returns the seconds per op of one batch."""
    import torch

    x = torch.ones(8, device=device)
    y = torch.ones(8, device=device)

    def fn() -> float:
        _sync(device)
        t0 = time.perf_counter()
        z = x
        for _ in range(RECORD_BATCH):
            z = z + y
        elapsed = time.perf_counter() - t0
        _sync(device)  # runs what was recorded, outside the timed region
        return elapsed / RECORD_BATCH

    return fn, 100 if quick else 500


# Benchmarks whose fn times itself (returns seconds per op): a repeat's figure
# is the fastest of its `inner` calls, which filters out other jobs' noise.
SELF_TIMED = {"record_op"}


def bench_tiny_add(device: str, quick: bool) -> tuple[Any, int]:
    import torch

    x = torch.ones(8, device=device)
    y = torch.ones(8, device=device)

    def fn() -> None:
        nonlocal x
        x = x + y

    return fn, 200 if quick else 1000


def bench_elementwise_chain(device: str, quick: bool) -> tuple[Any, int]:
    import torch

    x = torch.randn(512, 512).to(device)

    def fn() -> None:
        y = x
        for _ in range(20):
            y = torch.tanh(y * 1.001 + 0.01)
        y.sum().item()

    return fn, 5 if quick else 20


def bench_mlp_train_step(device: str, quick: bool) -> tuple[Any, int]:
    import torch
    from torch import nn

    model = nn.Sequential(
        nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    ).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(128, 256).to(device)
    y = torch.randint(0, 10, (128,)).to(device)

    def fn() -> None:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss.item()

    return fn, 5 if quick else 20


def _gpt(device: str, compiled: bool) -> tuple[Any, Any, Any]:
    import torch
    from gpt import GPT, GPTConfig

    cfg = GPTConfig(vocab=96, context=64, dim=128, heads=4, layers=2)
    model = GPT(cfg).to(device)
    idx = torch.randint(0, cfg.vocab, (16, cfg.context)).to(device)
    tgt = torch.randint(0, cfg.vocab, (16, cfg.context)).to(device)
    if compiled:
        run = torch.compile(model, backend="tpu" if device == "tpu" else "inductor")
    else:
        run = model
    return model, run, (idx, tgt)


def bench_gpt_train_step(device: str, quick: bool, compiled: bool = False) -> tuple[Any, int]:
    import torch
    from torch.nn import functional as F

    model, run, (idx, tgt) = _gpt(device, compiled)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def fn() -> None:
        opt.zero_grad()
        logits = run(idx)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        loss.backward()
        opt.step()
        loss.item()

    return fn, 3 if quick else 10


def bench_gpt_inference(device: str, quick: bool, compiled: bool = False) -> tuple[Any, int]:
    import torch

    model, run, (idx, _) = _gpt(device, compiled)
    model.eval()

    def fn() -> None:
        with torch.no_grad():
            run(idx)[:, -1].argmax(-1).cpu()

    return fn, 5 if quick else 20


BENCHES = {
    "record_op": bench_record_op,
    "tiny_add": bench_tiny_add,
    "elementwise_chain": bench_elementwise_chain,
    "mlp_train_step": bench_mlp_train_step,
    "gpt_train_step": bench_gpt_train_step,
    "gpt_inference": bench_gpt_inference,
}


def worker(bench: str, config: str, quick: bool) -> dict[str, Any]:
    import torch

    device = _setup(config)
    if config == "jax_jit":
        from jax_gpt import bench_jax_gpt

        fn, inner = bench_jax_gpt(bench, quick)
    elif config in ("inductor", "compiled_tpu"):
        fn, inner = BENCHES[bench](device, quick, compiled=True)  # type: ignore[call-arg]
    else:
        fn, inner = BENCHES[bench](device, quick)
    warm = 5
    for _ in range(warm):
        fn()
    counters0: dict[str, Any] = {}
    if device == "tpu":
        import torchtpu

        _sync(device)
        counters0 = torchtpu.metrics.counters()
    repeats = 3 if quick else 7
    if bench in SELF_TIMED:
        times = [min(fn() for _ in range(inner)) for _ in range(repeats)]
    else:
        times = _timed(fn, device, repeats, inner)
    result: dict[str, Any] = {
        "median_s": statistics.median(times),
        "times_s": times,
        "inner": inner,
        "repeats": repeats,
        "torch": torch.__version__,
    }
    if device == "tpu":
        import torchtpu

        c = torchtpu.metrics.counters()
        calls = repeats * inner
        if bench in SELF_TIMED:
            # One launch per batch, by the sync after the timer: none inside it.
            assert c["launches"] - counters0["launches"] == calls, "a flush inside a batch"
        result["peak_device_bytes"] = c["peak_live_bytes"]
        result["compiles_after_warmup"] = c["compiles"] - counters0["compiles"]
        result["launches_per_call"] = (c["launches"] - counters0["launches"]) / calls
        result["fallbacks"] = c["fallbacks"]
        info = torchtpu.info()
        result["plugin"] = (
            f"{Path(info.path).name} (PJRT API {info.api_version[0]}.{info.api_version[1]})"
        )
    return result


# ---- the driver ---------------------------------------------------------------------


def _fmt(seconds: float) -> str:
    """Milliseconds, or microseconds for per-op figures."""
    return f"{1e6 * seconds:.2f} us" if seconds < 1e-4 else f"{1e3 * seconds:.3f} ms"


def run_all(quick: bool, only: str | None) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for bench, config in CONFIGS:
        if only and only not in bench:
            continue
        name = f"{bench}/{config}"
        print(f"{name:<34}", end=" ", flush=True)
        cmd = [sys.executable, __file__, "--worker", bench, config] + (["--quick"] if quick else [])
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        wall = time.perf_counter() - t0
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if proc.returncode == 0 and lines:
            r = json.loads(lines[-1][len("RESULT ") :])
            r["process_wall_s"] = wall
            r["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            results[name] = r
            print(f"{_fmt(r['median_s']):>13}")
        else:
            err = (proc.stderr.strip().splitlines() or ["?"])[-1]
            results[name] = {"failed": err}
            print(f"FAILED: {err}")
    return results


def table(results: dict[str, Any]) -> str:
    """Markdown: per benchmark, each configuration's median and its ratio to strict."""
    lines = [
        "| benchmark | configuration | median | vs strict | vs CPU eager | peak device memory |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for bench in BENCHES:
        strict = results.get(f"{bench}/strict", {}).get("median_s")
        cpu = results.get(f"{bench}/cpu", {}).get("median_s")
        for b, config in CONFIGS:
            if b != bench or f"{b}/{config}" not in results:
                continue
            r = results[f"{b}/{config}"]
            if "failed" in r:
                lines.append(f"| {bench} | {config} | failed: {r['failed'][:60]} | | | |")
                continue
            m = r["median_s"]
            vs_strict = f"{strict / m:.2f}x" if strict else ""
            vs_cpu = f"{cpu / m:.2f}x" if cpu else ""
            mem = f"{r['peak_device_bytes'] / 1e6:.2f} MB" if "peak_device_bytes" in r else ""
            lines.append(f"| {bench} | {config} | {_fmt(m)} | {vs_strict} | {vs_cpu} | {mem} |")
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    benches = [b for b in BENCHES if any(k.startswith(b + "/") for k in results)]
    fig, axes = plt.subplots(1, len(benches), figsize=(4 * len(benches), 4))
    for ax, bench in zip(axes if len(benches) > 1 else [axes], benches, strict=True):
        names, values = [], []
        per_op = bench in SELF_TIMED
        for b, config in CONFIGS:
            r = results.get(f"{b}/{config}")
            if b == bench and r and "median_s" in r:
                names.append(config)
                values.append((1e6 if per_op else 1e3) * r["median_s"])
        ax.bar(names, values, color="tab:blue")
        ax.set_title(bench)
        ax.set_ylabel(("us per op" if per_op else "ms") + " (median, lower is better)")
        ax.tick_params(axis="x", rotation=45)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worker", nargs=2, metavar=("BENCH", "CONFIG"))
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--only", help="run benchmarks whose name contains this")
    parser.add_argument("--out", default=str(HERE / "results"))
    args = parser.parse_args()
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker[0], args.worker[1], args.quick)))
        return

    import torch

    import torchtpu

    info = torchtpu.info()
    plugin = f"{Path(info.path).name} (PJRT C API {info.api_version[0]}.{info.api_version[1]})"
    try:
        import jax

        jax_version = jax.__version__
    except ImportError:
        jax_version = "not installed"
    repeats = 3 if args.quick else 7
    print(
        f"torch {torch.__version__}, plugin {plugin}, jax {jax_version}, "
        f"python {platform.python_version()}, {os.cpu_count()} cores, {platform.machine()}; "
        f"{len(CONFIGS)} configurations, each in its own process, median of {repeats} "
        f"repeats after 5 warm-up calls"
    )
    results = run_all(args.quick, args.only)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/run.py" + (" --quick" if args.quick else "")
    if args.only:
        command += f" --only {args.only}"
    note = ""
    first: dict[str, str] = {}
    previous = out / "latest.json"
    if args.only and previous.exists():
        # Keep the other benchmarks' rows of the last run.
        old = json.loads(previous.read_text())
        kept = {k: v for k, v in old["results"].items() if k not in results}
        if kept:
            merged = {**kept, **results}
            results = {f"{b}/{c}": merged[f"{b}/{c}"] for b, c in CONFIGS if f"{b}/{c}" in merged}
            first = {
                "first_command": old["meta"].get("first_command", old["meta"]["command"]),
                "first_date": old["meta"].get("first_date", old["meta"]["date"]),
            }
            note = f" (other rows: `{first['first_command']}`, {first['first_date']})"
    meta = {
        "command": command,
        "machine": f"{platform.node()} ({os.cpu_count()} cores, {platform.machine()})",
        "torch": torch.__version__,
        "plugin": plugin,
        "jax": jax_version,
        "repeats": repeats,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        **first,
    }
    (out / "latest.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    md = table(results)
    (out / "latest.md").write_text(
        f"Command: `{meta['command']}` on {meta['machine']}, torch {meta['torch']}, "
        f"plugin {plugin}, jax {jax_version}, median of {repeats} repeats, "
        f"{meta['date']}{note}.\n\n{md}\n"
    )
    print("\n" + md)
    try:
        plot(results, out / "latest.png")
        print(f"\nplot: {out / 'latest.png'}")
    except ImportError:
        print("\n(no plot: pip install matplotlib)")


if __name__ == "__main__":
    main()
