"""The main job: train a small MLP classifier on synthetic data on "tpu", then
run the same training on the CPU and show that the loss curves match.

    python examples/train.py [--steps N] [--mode strict|launch_blocking]
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
from torch import nn

import torchtpu


def make_data(n: int, dim: int, classes: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Points around one random centre per class."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, dim, generator=g) * 2.0
    labels = torch.randint(0, classes, (n,), generator=g)
    points = centres[labels] + torch.randn(n, dim, generator=g)
    return points, labels


def make_model(dim: int, classes: int, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(dim, 128),
        nn.GELU(),
        nn.LayerNorm(128),
        nn.Linear(128, 128),
        nn.ReLU(),
        nn.Linear(128, classes),
    )


def progress(step: int, total: int, loss: float, rate: float) -> None:
    width = 30
    done = int(width * step / total)
    bar = "#" * done + "." * (width - done)
    sys.stdout.write(f"\r[{bar}] {step:4d}/{total} loss {loss:7.4f} {rate:7.1f} steps/s")
    sys.stdout.flush()


def train(device: str, steps: int, batch: int, show: bool) -> list[float]:
    dim, classes = 32, 10
    x_all, y_all = make_data(batch * 8, dim, classes, seed=0)
    model = make_model(dim, classes, seed=1).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    loss_fn = nn.CrossEntropyLoss()
    losses: list[float] = []
    t0 = time.perf_counter()
    for step in range(steps):
        i = (step % 8) * batch
        x = x_all[i : i + batch].to(device)
        y = y_all[i : i + batch].to(device)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if show and (step % 5 == 0 or step == steps - 1):
            progress(step + 1, steps, losses[-1], (step + 1) / (time.perf_counter() - t0))
    if show:
        sys.stdout.write("\n")
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--mode", default=torchtpu.get_mode())
    args = parser.parse_args()

    info = torchtpu.info()
    print(f"torchtpu {torchtpu.__version__} on {torch.tpu.get_device_name()}")
    print(f"plugin {info.path} (PJRT API {info.api_version[0]}.{info.api_version[1]})")
    print(f"mode {args.mode}; training a {args.steps}-step MLP on tpu")
    torchtpu.set_mode(args.mode)
    torchtpu.metrics.reset()
    t0 = time.perf_counter()
    tpu_losses = train("tpu", args.steps, args.batch, show=True)
    tpu_time = time.perf_counter() - t0

    print("the same run on the CPU, for comparison ...")
    t0 = time.perf_counter()
    cpu_losses = train("cpu", args.steps, args.batch, show=False)
    cpu_time = time.perf_counter() - t0

    diff = max(abs(a - b) for a, b in zip(tpu_losses, cpu_losses, strict=True))
    print(f"\n{'step':>6} {'tpu loss':>10} {'cpu loss':>10}")
    for s in sorted({0, 1, 2, args.steps // 4, args.steps // 2, args.steps - 1}):
        print(f"{s:>6} {tpu_losses[s]:>10.5f} {cpu_losses[s]:>10.5f}")
    print(f"max |tpu - cpu| loss difference over {args.steps} steps: {diff:.2e}")
    print(f"time: tpu {tpu_time:.1f} s, cpu {cpu_time:.1f} s\n")
    print(torchtpu.metrics.report())
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    if fallbacks:
        print(f"note: {len(fallbacks)} op(s) ran on the CPU through the fallback (listed above)")
    if diff > 1e-3:
        sys.exit("the tpu loss curve does not match the CPU one")


if __name__ == "__main__":
    main()
