"""Custom-kernel benchmarks: each example kernel (Pallas softmax, RMSNorm and
attention, Helion RMSNorm, a StableHLO kernel) against the same computation
written with plain PyTorch ops, both on "tpu", in strict and defer mode.

    python benchmarks/kernels.py [--quick] [--out benchmarks/results]

Writes results/kernels.json and results/kernels.md. A step is one call and
reading its result on the host (``.cpu()``: in defer mode that runs the fused
program; torchtpu.sync() alone does not yet wait for a fused program to
finish). Figures are medians over repeats after warm-up, in one process.
On the CPU plugin, Pallas kernels run through Pallas' interpret mode (a loop
over the grid), so they are not expected to beat XLA's fused plain ops there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples" / "kernels"))


def _cases(quick: bool) -> dict[str, tuple[Callable[[], Any], Callable[[], Any], str]]:
    """name -> (kernel step, plain-PyTorch step, input description)."""
    import torch
    from attention_pallas import attention
    from rmsnorm_pallas import rmsnorm, rmsnorm_reference
    from softmax_pallas import softmax
    from stablehlo_scaled_add import scaled_add

    torch.manual_seed(0)
    rows = 256 if quick else 1024
    x = torch.randn(rows, 512, device="tpu")
    w = torch.randn(512, device="tpu")
    q, k, v = (torch.randn(2, 4, 128 if quick else 256, 64, device="tpu") for _ in range(3))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any], str]] = {
        "softmax (Pallas)": (
            lambda: softmax(x),
            lambda: torch.softmax(x, dim=-1),
            f"f32[{rows}, 512]",
        ),
        "rmsnorm (Pallas)": (
            lambda: rmsnorm(x, w),
            lambda: rmsnorm_reference(x, w),
            f"f32[{rows}, 512]",
        ),
        "attention (Pallas)": (
            lambda: attention(q, k, v, causal=True),
            lambda: sdpa(q, k, v, is_causal=True),
            "f32[" + ", ".join(str(d) for d in q.shape) + "], causal",
        ),
        "scaled_add (StableHLO)": (
            lambda: scaled_add(x, x, 0.5),
            lambda: 0.5 * x + x,
            f"f32[{rows}, 512]",
        ),
    }
    try:
        from helion_rmsnorm import rmsnorm as helion_rmsnorm
    except ImportError as e:
        print(f"skipping the Helion kernel: {e}")
    else:
        cases["rmsnorm (Helion)"] = (
            lambda: helion_rmsnorm(x, w),
            lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
            f"f32[{rows}, 512]",
        )
    return cases


def _time(step: Callable[[], Any], mode: str, repeats: int) -> float:
    import torchtpu

    with torchtpu.mode(mode):
        for _ in range(3):
            step().cpu()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            step().cpu()
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def _max_diff(a: Any, b: Any) -> float:
    return float((a.cpu() - b.cpu()).abs().max())


def run(quick: bool) -> list[dict[str, Any]]:
    import torchtpu

    repeats = 5 if quick else 20
    rows = []
    for name, (kernel, plain, shapes) in _cases(quick).items():
        diff = _max_diff(kernel(), plain())
        for mode in ("strict", "defer"):
            k_ms = _time(kernel, mode, repeats)
            p_ms = _time(plain, mode, repeats)
            rows.append(
                {
                    "kernel": name,
                    "inputs": shapes,
                    "mode": mode,
                    "kernel_ms": k_ms,
                    "plain_ms": p_ms,
                    "speedup": p_ms / k_ms,
                    "max_abs_diff": diff,
                }
            )
            print(f"{name:24s} {mode:6s} kernel {k_ms:8.3f} ms  plain {p_ms:8.3f} ms")
    torchtpu.sync()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| kernel | inputs | mode | kernel | plain PyTorch ops | plain / kernel | max abs diff |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['kernel']} | {r['inputs']} | {r['mode']} | {r['kernel_ms']:.3f} ms | "
            f"{r['plain_ms']:.3f} ms | {r['speedup']:.2f}x | {r['max_abs_diff']:.1e} |"
        )
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small inputs, few repeats")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()

    import torch

    import torchtpu

    rows = run(args.quick)
    meta = {
        "command": "python benchmarks/kernels.py" + (" --quick" if args.quick else ""),
        "machine": f"{platform.node()} ({os.cpu_count()} cores, {platform.machine()})",
        "torch": torch.__version__,
        "plugin": torchtpu.info().platform if hasattr(torchtpu.info(), "platform") else "",
        "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kernels.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    md = (
        f"Command: `{meta['command']}` on {meta['machine']}, torch {meta['torch']}, "
        f"plugin {meta['plugin']}, {meta['time']}.\n\n" + table(rows)
    )
    (args.out / "kernels.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
