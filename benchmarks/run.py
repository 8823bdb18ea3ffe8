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

generate_* is LLM inference with Hugging Face generate() (greedy, a static KV
cache, prompts left-padded to a 32-token bucket: torchtpu.generation's recipe,
warmed up before timing) on a 2-layer Llama-style model (hidden 256, vocabulary
2048), batch 1 (generate_b1) and 8 (generate_b8); generate_overhead is the
same loop with a near-zero model (hidden 8), so its figure is the host's cost
per token. A row's median is the decode latency per token, (T(N) - T(1)) /
(N - 1) where T(n) is one generate() call of n new tokens (N = 32, 8 with
--quick); time to first token is T(1), tokens/s is batch * N / T(N). Configs:
cpu (PyTorch eager, torch's default threads), cpu_1t (one thread), strict and
defer (the forward op by op, or recorded and fused: generate's
disable_compile=True), compiled_tpu (transformers' own torch.compile of the
decoding forward, backend "tpu", the default for a static cache on "tpu"; the
code around it deferred).
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
    ("generate_b1", "cpu"),
    ("generate_b1", "cpu_1t"),
    ("generate_b1", "strict"),
    ("generate_b1", "defer"),
    ("generate_b1", "compiled_tpu"),
    ("generate_b8", "cpu"),
    ("generate_b8", "cpu_1t"),
    ("generate_b8", "strict"),
    ("generate_b8", "defer"),
    ("generate_b8", "compiled_tpu"),
    ("generate_overhead", "cpu"),
    ("generate_overhead", "cpu_1t"),
    ("generate_overhead", "strict"),
    ("generate_overhead", "defer"),
    ("generate_overhead", "compiled_tpu"),
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
    if config == "cpu_1t":
        torch.set_num_threads(1)
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


# generate_*: (batch, hidden size) of the Llama-style model.
GENERATE = {"generate_b1": (1, 256), "generate_b8": (8, 256), "generate_overhead": (1, 8)}
GEN_BUCKET = 32


def measure_generate(bench: str, config: str, quick: bool) -> dict[str, Any]:
    """One generate_* row: warm up, then time calls of 1 and N new tokens."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from torchtpu import generation

    device = _setup(config)
    batch, hidden = GENERATE[bench]
    new = 8 if quick else 32
    cfg = LlamaConfig(
        vocab_size=2048,
        hidden_size=hidden,
        intermediate_size=hidden * 11 // 4,
        num_hidden_layers=2,
        num_attention_heads=max(1, hidden // 32),
        num_key_value_heads=max(1, hidden // 64),
        head_dim=min(32, hidden),
        max_position_embeddings=2 * GEN_BUCKET + new,
        eos_token_id=None,  # every call generates all its tokens
        pad_token_id=0,
    )
    model = LlamaForCausalLM(cfg).eval().to(device)
    g = torch.Generator().manual_seed(1)
    prompts = [torch.randint(1, 2048, (24 - i % 8,), generator=g) for i in range(batch)]
    # strict and defer: the forward op by op / fused (transformers would
    # otherwise compile the decoding step itself, as in compiled_tpu).
    options = {"disable_compile": True} if config in ("strict", "defer") else {}

    def run(n: int) -> float:
        t0 = time.perf_counter()
        with torch.no_grad():
            out = generation.generate(
                model,
                prompts,
                max_new_tokens=n,
                max_new_tokens_ceiling=new,
                buckets=(GEN_BUCKET,),
                **options,
            )
        out.cpu()
        return time.perf_counter() - t0

    t0 = time.perf_counter()
    rounds: list[int] = []
    if device == "tpu":
        rounds = generation.warm_up(model, GEN_BUCKET, new, batch_size=batch, **options)
    for _ in range(2):
        run(new)
        run(1)
    warm_s = time.perf_counter() - t0
    counters0: dict[str, Any] = {}
    if device == "tpu":
        import torchtpu

        counters0 = torchtpu.metrics.counters()
    repeats, inner = (3, 2) if quick else (7, 3)
    per_token, first, whole = [], [], []
    for _ in range(repeats):
        ones, alls = [], []
        for _ in range(inner):  # interleaved, so that load changes hit both
            ones.append(run(1))
            alls.append(run(new))
        t1, tn = statistics.median(ones), statistics.median(alls)
        per_token.append((tn - t1) / (new - 1))
        first.append(t1)
        whole.append(tn)
    result: dict[str, Any] = {
        "median_s": statistics.median(per_token),
        "times_s": per_token,
        "ttft_s": statistics.median(first),
        "call_s": statistics.median(whole),
        "tokens_per_s": batch * new / statistics.median(whole),
        "batch": batch,
        "hidden": hidden,
        "new_tokens": new,
        "warm_up_s": warm_s,
        "warm_up_programs": rounds,
        "inner": inner,
        "repeats": repeats,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
    }
    if device == "tpu":
        import torchtpu

        c = torchtpu.metrics.counters()
        calls = repeats * inner * 2
        result["peak_device_bytes"] = c["peak_live_bytes"]
        result["compiles_after_warmup"] = generation.new_programs(counters0, c)
        result["launches_per_call"] = (c["launches"] - counters0["launches"]) / calls
        result["fallbacks"] = c["fallbacks"]
    return result


BENCHES = {
    "record_op": bench_record_op,
    "tiny_add": bench_tiny_add,
    "elementwise_chain": bench_elementwise_chain,
    "mlp_train_step": bench_mlp_train_step,
    "gpt_train_step": bench_gpt_train_step,
    "gpt_inference": bench_gpt_inference,
}
# Every benchmark, in table order (generate_* run through measure_generate).
ALL_BENCHES = [*BENCHES, *GENERATE]


def worker(bench: str, config: str, quick: bool) -> dict[str, Any]:
    import torch

    if bench in GENERATE:
        return measure_generate(bench, config, quick)
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
    for bench in ALL_BENCHES:
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


def generate_table(results: dict[str, Any]) -> str:
    """Markdown: the generate_* rows' decode latency, throughput, first token, warm-up."""
    lines = [
        "| benchmark | configuration | decode per token | vs CPU eager | vs compiled_tpu "
        "| tokens/s | time to first token | warm-up (programs) | programs after warm-up |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for bench in GENERATE:
        cpu = results.get(f"{bench}/cpu", {}).get("median_s")
        compiled = results.get(f"{bench}/compiled_tpu", {}).get("median_s")
        for b, config in CONFIGS:
            r = results.get(f"{b}/{config}")
            if b != bench or r is None or "failed" in r:
                continue
            m = r["median_s"]
            vs_cpu = f"{cpu / m:.2f}x" if cpu else ""
            vs_compiled = f"{compiled / m:.2f}x" if compiled else ""
            warm = f"{r['warm_up_s']:.1f} s"
            if r.get("warm_up_programs"):
                warm += f" ({sum(r['warm_up_programs'])})"
            lines.append(
                f"| {bench} | {config} | {_fmt(m)} | {vs_cpu} | {vs_compiled} "
                f"| {r['tokens_per_s']:.0f} | {_fmt(r['ttft_s'])} | {warm} "
                f"| {r.get('compiles_after_warmup', '')} |"
            )
    return "\n".join(lines) if len(lines) > 2 else ""


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    benches = [b for b in ALL_BENCHES if any(k.startswith(b + "/") for k in results)]
    cols = min(len(benches), 5)
    rows = -(-len(benches) // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(4 * cols, 4 * rows), squeeze=False)
    axes = list(grid.flat)
    for ax in axes[len(benches) :]:
        ax.set_visible(False)
    for ax, bench in zip(axes, benches, strict=False):
        names, values = [], []
        per_op = bench in SELF_TIMED
        for b, config in CONFIGS:
            r = results.get(f"{b}/{config}")
            if b == bench and r and "median_s" in r:
                names.append(config)
                values.append((1e6 if per_op else 1e3) * r["median_s"])
        ax.bar(names, values, color="tab:blue")
        ax.set_title(bench)
        unit = "us per op" if per_op else "ms per token" if bench in GENERATE else "ms"
        ax.set_ylabel(unit + " (median, lower is better)")
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
    gen = generate_table(results)
    if gen:
        md += (
            "\n\ngenerate_*: Hugging Face generate(), greedy, static cache, prompts padded "
            "to 32 tokens (median: decode latency per token; see the docstring of "
            f"benchmarks/run.py).\n\n{gen}"
        )
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
