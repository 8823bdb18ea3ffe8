"""The main job: train a small GPT-style model on "tpu" in DeferAndFuse mode,
on a text corpus generated on the spot, then sample from it; finally, replay
the first steps on the CPU and show that the loss curves match.

    python examples/train.py [--steps 300] [--mode defer|strict|launch_blocking]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import make_corpus  # noqa: E402
from gpt import GPT, GPTConfig  # noqa: E402

import torchtpu  # noqa: E402


class Data:
    def __init__(self, text: str, context: int, batch: int, seed: int) -> None:
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}
        self.ids = torch.tensor([self.index[c] for c in text], dtype=torch.long)
        self.context, self.batch = context, batch
        self.gen = torch.Generator().manual_seed(seed)

    def next(self) -> tuple[torch.Tensor, torch.Tensor]:
        starts = torch.randint(
            0, len(self.ids) - self.context - 1, (self.batch,), generator=self.gen
        )
        x = torch.stack([self.ids[s : s + self.context] for s in starts])
        y = torch.stack([self.ids[s + 1 : s + 1 + self.context] for s in starts])
        return x, y

    def decode(self, ids: list[int]) -> str:
        return "".join(self.chars[i] for i in ids)


def train(device: str, steps: int, cfg: GPTConfig, batch: int, show: bool) -> list[float]:
    torch.manual_seed(0)
    data = Data(make_corpus(), cfg.context, batch, seed=1)
    model = GPT(cfg).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    losses: list[float] = []
    t0 = time.perf_counter()
    tokens = 0
    for step in range(steps):
        x, y = data.next()
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        loss = model.loss(x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        tokens += x.numel()
        if show and (step % 10 == 0 or step == steps - 1):
            rate = tokens / (time.perf_counter() - t0)
            done = int(30 * (step + 1) / steps)
            sys.stdout.write(
                f"\r[{'#' * done}{'.' * (30 - done)}] step {step + 1:4d}/{steps} "
                f"loss {losses[-1]:.3f}  {rate:8.0f} tokens/s"
            )
            sys.stdout.flush()
    if show:
        sys.stdout.write("\n")
        model.eval()
        prompt = data.ids[: cfg.context].view(1, -1).to(device)
        out = model.generate(prompt, 120)[0].tolist()
        print(f"prompt: {data.decode(out[: cfg.context])!r}")
        print(f"sample: {data.decode(out[cfg.context :])!r}")
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--mode", default="defer")
    parser.add_argument("--compare-steps", type=int, default=20, help="steps replayed on the CPU")
    args = parser.parse_args()

    cfg = GPTConfig(vocab=len(set(make_corpus())), context=64, dim=128, heads=4, layers=2)
    info = torchtpu.info()
    print(f"torchtpu {torchtpu.__version__}, device: {torch.tpu.get_device_name()}")
    print(f"plugin: {info.path} (PJRT API {info.api_version[0]}.{info.api_version[1]})")
    print(
        f"mode {args.mode}: GPT with {cfg.layers} layers, dim {cfg.dim}, context {cfg.context}, "
        f"batch {args.batch}, {args.steps} steps"
    )
    torchtpu.set_mode(args.mode)
    torchtpu.metrics.reset()
    t0 = time.perf_counter()
    losses = train("tpu", args.steps, cfg, args.batch, show=True)
    elapsed = time.perf_counter() - t0
    print(f"trained in {elapsed:.1f} s; loss {losses[0]:.3f} -> {losses[-1]:.3f}\n")
    print(torchtpu.metrics.report())
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    if fallbacks:
        print(f"note: {len(fallbacks)} op(s) ran on the CPU through the fallback (listed above)")

    n = min(args.compare_steps, args.steps)
    if n > 0:
        print(f"\nreplaying the first {n} steps on the CPU ...")
        torchtpu.set_mode("strict")
        cpu = train("cpu", n, cfg, args.batch, show=False)
        diff = max(abs(a - b) for a, b in zip(losses[:n], cpu, strict=True))
        for s in sorted({0, n // 2, n - 1}):
            print(f"  step {s:3d}: tpu {losses[s]:.5f}  cpu {cpu[s]:.5f}")
        print(f"max |tpu - cpu| loss difference over {n} steps: {diff:.2e}")
        if diff > 1e-3:
            sys.exit("the tpu loss curve does not match the CPU one")


if __name__ == "__main__":
    main()
