"""Worker for PyTorch's CPU eager and torchtpu's rows (runs in torchtpu's .venv).

cpu       PyTorch eager on the CPU
strict    torchtpu, strict mode (every op its own program)
defer     torchtpu, DeferAndFuse (ops recorded and run as fused programs)
compile   torch.compile(backend="tpu"); what stays eager around the graphs
          (AdamW) runs deferred, as in benchmarks/run.py's compiled_tpu rows
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from workloads import LR, WEIGHT_DECAY, Inputs, loss_of, new_model, worker_main
from workloads import chain as chain_fn


class TorchSystem:
    def __init__(self, name: str) -> None:
        import torch

        self.name = name
        self.device = "cpu" if name == "cpu" else "tpu"
        torch.manual_seed(0)
        if self.device == "tpu":
            import torchtpu

            torchtpu.set_mode("strict" if name == "strict" else "defer")

    def _compiled(self, fn: Any) -> Any:
        import torch

        return torch.compile(fn, backend="tpu") if self.name == "compile" else fn

    def train(self, inputs: Inputs) -> Callable[[int], float]:
        import torch

        model = new_model(inputs).to(self.device)
        run = self._compiled(model)
        opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
        idx = [b.to(self.device) for b in inputs.idx]
        tgt = [b.to(self.device) for b in inputs.tgt]

        def step(i: int) -> float:
            opt.zero_grad()
            loss = loss_of(run(idx[i]), tgt[i])
            loss.backward()
            opt.step()
            return loss.item()

        return step

    def infer(self, inputs: Inputs) -> Callable[[], None]:
        import torch

        model = new_model(inputs).to(self.device).eval()
        run = self._compiled(lambda idx: model(idx)[:, -1].argmax(-1))
        idx = inputs.idx[0].to(self.device)

        def fn() -> None:
            with torch.no_grad():
                run(idx).cpu()

        return fn

    def chain(self, inputs: Inputs) -> Callable[[], float]:
        run = self._compiled(chain_fn)
        x = inputs.chain_x.to(self.device)
        return lambda: run(x).item()

    def add(self) -> Callable[[int], None]:
        import torch

        if self.name == "compile":
            raise ValueError("the tiny add is for the eager systems")
        y = torch.ones(8, device=self.device)
        x = torch.ones(8, device=self.device)

        def run(n: int) -> None:
            nonlocal x
            for _ in range(n):
                x = x + y
            x.cpu()

        return run

    def compiles(self) -> int | None:
        if self.device == "cpu":
            return None
        import torchtpu

        c = torchtpu.metrics.counters()
        return int(c["compiles"]) + int(c["graphs_compiled"])

    def versions(self) -> dict[str, str]:
        import torch

        out = {"torch": torch.__version__}
        if self.device == "tpu":
            from pathlib import Path

            import torchtpu

            info = torchtpu.info()
            out["plugin"] = (
                f"{Path(info.path).name} (PJRT C API {info.api_version[0]}.{info.api_version[1]})"
            )
        return out


if __name__ == "__main__":
    worker_main(
        {name: (lambda n=name: TorchSystem(n)) for name in ("cpu", "strict", "defer", "compile")}
    )
