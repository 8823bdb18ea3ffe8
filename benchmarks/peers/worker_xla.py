"""Worker for PyTorch/XLA's rows (runs in .venv-peers: torch-xla 2.9 and its torch 2.9,
on its CPU PJRT client, PJRT_DEVICE=CPU).

    xla_lazy     lazy tensors (the default): ops are recorded, torch_xla.sync()
                 (or a value read back) compiles and runs the graph
    xla_eager    torch_xla.experimental.eager_mode(True): every op compiled and run
                 as it is called
    xla_openxla  torch.compile(backend="openxla"); what stays eager around the
                 graphs (AdamW) runs lazily, then torch_xla.sync()
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from workloads import LR, WEIGHT_DECAY, Inputs, loss_of, new_model, worker_main
from workloads import chain as chain_fn

os.environ.setdefault("PJRT_DEVICE", "CPU")


class XlaSystem:
    def __init__(self, name: str) -> None:
        import torch
        import torch_xla

        self.name = name
        torch.manual_seed(0)
        if name == "xla_eager":
            import torch_xla.experimental

            torch_xla.experimental.eager_mode(True)
        self.device = torch_xla.device()

    def _compiled(self, fn: Any) -> Any:
        import torch

        return torch.compile(fn, backend="openxla") if self.name == "xla_openxla" else fn

    def train(self, inputs: Inputs) -> Callable[[int], float]:
        import torch
        import torch_xla

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
            torch_xla.sync()
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

        if self.name == "xla_openxla":
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
        import torch_xla.debug.metrics as met

        # Counts lazy graphs' and eager ops' compiles alike (not the in-memory
        # cache's hits, CachedCompile).
        return int(met.counter_value("UncachedCompile") or 0)

    def versions(self) -> dict[str, str]:
        import torch
        import torch_xla

        return {"torch": torch.__version__, "torch_xla": torch_xla.__version__}


if __name__ == "__main__":
    worker_main(
        {name: (lambda n=name: XlaSystem(n)) for name in ("xla_lazy", "xla_eager", "xla_openxla")}
    )
