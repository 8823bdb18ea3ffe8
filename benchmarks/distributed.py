"""Distributed benchmarks, side by side in one run on 2 ranks:

- all_reduce and all_gather_into_tensor throughput, 1 KB to 64 MB: tpu tensors on
  the "tpu" backend against CPU tensors on plain Gloo; the "tpu" backend twice:
  ranks as processes (torchrun; host-staged through Gloo) and ranks as threads of
  one process on two CPU-plugin devices (run_threads; compiled collectives);
- one training step of an MLP: FSDP2 (fully_shard) against DDP, both on "tpu",
  with both kinds of ranks.

    python benchmarks/distributed.py [--quick] [--out benchmarks/results]

Writes results/distributed.json and results/distributed.md. Not a timed test.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIZES = [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]


def _fmt_size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def _time(fn: Any, iters: int, sync: Any) -> float:
    """Median seconds per call, after one warm-up call; ranks start each call together."""
    import torch.distributed as dist

    fn()
    sync()
    samples = []
    for _ in range(iters):
        dist.barrier()
        start = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_collectives(quick: bool, threads: bool = False) -> list[dict[str, Any]]:
    import torch
    import torch.distributed as dist

    import torchtpu

    n = dist.get_world_size()
    gloo = None if threads else dist.new_group(backend="gloo")
    configs: tuple[tuple[str, str, Any], ...] = (
        (("tpu (compiled)", "tpu", None),)
        if threads
        else (
            ("tpu (host-staged)", "tpu", None),
            ("tpu (no check)", "tpu", None),
            ("gloo", "cpu", gloo),
        )
    )
    rows = []
    for size in SIZES[:6] if quick else SIZES:
        numel = size // 4
        iters = 20 if size <= 1 << 20 else (5 if size <= 1 << 24 else 3)
        for backend, dev, group in configs:
            # the cross-rank shape/dtype check costs one small Gloo exchange per collective
            os.environ["TORCHTPU_DIST_CHECK"] = "0" if backend == "tpu (no check)" else "1"
            x = torch.ones(numel, device=dev)
            out = torch.empty(numel * n, device=dev)

            def sync(dev: str = dev, x: torch.Tensor = x) -> None:
                if dev == "tpu":
                    torchtpu.sync()

            def allreduce(x: torch.Tensor = x, group: Any = group) -> None:
                dist.all_reduce(x, group=group)

            def allgather(x: torch.Tensor = x, out: torch.Tensor = out, group: Any = group) -> None:
                dist.all_gather_into_tensor(out, x, group=group)

            for name, fn in (("all_reduce", allreduce), ("all_gather", allgather)):
                sec = _time(fn, iters, sync)
                # bus bandwidth as nccl-tests defines it: algbw x 2(n-1)/n (all_reduce),
                # x (n-1)/n (all_gather, counting the gathered bytes)
                moved = size * 2 * (n - 1) / n if name == "all_reduce" else size * n * (n - 1) / n
                rows.append(
                    {
                        "collective": name,
                        "bytes": size,
                        "backend": backend,
                        "median_ms": sec * 1e3,
                        "busbw_GBps": moved / sec / 1e9,
                    }
                )
    return rows


def bench_training(quick: bool, ranks: str = "processes") -> list[dict[str, Any]]:
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.distributed.fsdp import fully_shard
    from torch.nn.parallel import DistributedDataParallel as DDP

    import torchtpu

    width, depth, batch = (256, 4, 32) if quick else (1024, 6, 64)
    rows = []
    os.environ["TORCHTPU_DIST_CHECK"] = "1"
    for mode in ("strict", "defer"):
        for kind in ("ddp", "fsdp2"):
            torch.manual_seed(0)
            layers: list[nn.Module] = []
            for _ in range(depth):
                layers += [nn.Linear(width, width), nn.GELU()]
            model = nn.Sequential(*layers).to("tpu")
            if kind == "ddp":
                model = DDP(model)
            else:
                for m in model:
                    if isinstance(m, nn.Linear):
                        fully_shard(m)
                fully_shard(model)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
            x = torch.randn(batch, width).to("tpu")

            def step(
                model: nn.Module = model, opt: Any = opt, x: torch.Tensor = x, mode: str = mode
            ) -> None:
                with torchtpu.mode(mode):
                    opt.zero_grad()
                    model(x).pow(2).mean().backward()
                    opt.step()
                    torchtpu.sync()

            for _ in range(2):
                step()
            sec = _time(step, 5 if quick else 10, lambda: None)
            params = sum(p.numel() for p in model.parameters())
            rows.append(
                {
                    "step": f"MLP {depth}x{width}, batch {batch}/rank",
                    "mode": mode,
                    "wrapper": kind,
                    "ranks": ranks,
                    "median_ms": sec * 1e3,
                    "params": params,
                    "peak_device_MB": torch.tpu.max_memory_allocated() / 2**20,
                }
            )
            torch.tpu.reset_peak_memory_stats()
            dist.barrier()
    return rows


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Command: `python benchmarks/distributed.py` on {result['host']} "
        f"({result['cores']} cores), {result['world_size']} processes, torch {result['torch']}, "
        f"{result['date']}; load average {result['load_before']:.1f} before the run.",
        "",
        "Processes: torchrun, the tpu collectives staged through Gloo (with and without",
        "the cross-rank shape check). Threads: `run_threads`, one CPU-plugin device per",
        "rank, each collective one compiled replicated program.",
        "",
        "| collective | size | tpu, processes (host-staged) | tpu, processes, no check "
        "| tpu, threads (compiled) | gloo (CPU tensors) | staged / gloo | compiled / gloo |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = result["collectives"] + result.get("compiled", [])
    by = {(r["collective"], r["bytes"], r["backend"]): r for r in rows}

    def cell(r: dict[str, Any] | None) -> str:
        return f"{r['median_ms']:.3f} ms ({r['busbw_GBps']:.2f} GB/s)" if r else "-"

    for name in ("all_reduce", "all_gather"):
        for size in sorted({r["bytes"] for r in result["collectives"]}):
            t, g = by[(name, size, "tpu (host-staged)")], by[(name, size, "gloo")]
            u = by[(name, size, "tpu (no check)")]
            c = by.get((name, size, "tpu (compiled)"))
            ratio = f"{c['median_ms'] / g['median_ms']:.2f}x" if c else "-"
            lines.append(
                f"| {name} | {_fmt_size(size)} | {cell(t)} | {cell(u)} | {cell(c)} | {cell(g)}"
                f" | {t['median_ms'] / g['median_ms']:.2f}x | {ratio} |"
            )
    lines += [
        "",
        "| training step | ranks | mode | DDP | FSDP2 | FSDP2 / DDP |",
        "|---|---|---|---:|---:|---:|",
    ]
    training = result["training"] + result.get("training_threads", [])
    tr = {(r.get("ranks", "processes"), r["mode"], r["wrapper"]): r for r in training}
    for ranks in ("processes", "threads"):
        for mode in ("strict", "defer"):
            if (ranks, mode, "ddp") not in tr:
                continue
            d, f = tr[(ranks, mode, "ddp")], tr[(ranks, mode, "fsdp2")]
            lines.append(
                f"| {d['step']} | {ranks} | {mode} | {d['median_ms']:.1f} ms "
                f"| {f['median_ms']:.1f} ms | {f['median_ms'] / d['median_ms']:.2f}x |"
            )
    return "\n".join(lines) + "\n"


def worker(args: argparse.Namespace) -> None:
    import torch
    import torch.distributed as dist

    import torchtpu  # noqa: F401 - registers the "tpu" backend

    warnings.filterwarnings("ignore")
    dist.init_process_group("tpu", timeout=datetime.timedelta(seconds=300))
    result: dict[str, Any] = {
        "host": platform.node(),
        "cores": os.cpu_count(),
        "world_size": dist.get_world_size(),
        "torch": torch.__version__,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": os.getloadavg()[0],
        "collectives": bench_collectives(args.quick),
        "training": bench_training(args.quick),
    }
    if dist.get_rank() == 0:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "distributed.json").write_text(json.dumps(result, indent=1))
        (out / "distributed.md").write_text(markdown(result))
        print(markdown(result))
    dist.destroy_process_group()


def thread_worker(args: argparse.Namespace) -> None:
    """The thread-rank half: adds compiled-collective rows to the processes' JSON."""
    import torch.distributed as dist

    from torchtpu.distributed import run_threads

    warnings.filterwarnings("ignore")

    def body(rank: int) -> dict[str, Any]:
        assert dist.group.WORLD.compiled, "thread ranks did not take the compiled path"
        return {
            "compiled": bench_collectives(args.quick, threads=True),
            "training_threads": bench_training(args.quick, ranks="threads"),
        }

    got = run_threads(body, args.nproc, timeout=datetime.timedelta(seconds=300))[0]
    out = Path(args.out)
    result = json.loads((out / "distributed.json").read_text())
    result.update(got)
    (out / "distributed.json").write_text(json.dumps(result, indent=1))
    (out / "distributed.md").write_text(markdown(result))
    print(markdown(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--out", default=str(HERE / "results"))
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--threads", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if "RANK" in os.environ:
        worker(args)
        return
    if args.threads:
        thread_worker(args)
        return
    common = ["--out", args.out] + (["--quick"] if args.quick else [])
    cmd = [
        sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={args.nproc}",
        "--master_addr=127.0.0.1", "--master_port=29533", __file__, *common,
    ]  # fmt: skip
    rc = subprocess.call(cmd)
    if rc == 0:
        env = {**os.environ, "TORCHTPU_CPU_DEVICE_COUNT": str(args.nproc)}
        threads = [sys.executable, __file__, "--threads", f"--nproc={args.nproc}", *common]
        rc = subprocess.call(threads, env=env)
    sys.exit(rc)


if __name__ == "__main__":
    main()
