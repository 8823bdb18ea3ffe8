"""Worker for torchax's rows (runs in .venv-peers: torchax 0.0.13 on torch 2.9 and
jax/jaxlib 0.10.2, JAX's CPU backend).

torchax runs PyTorch code on JAX arrays. Its training step is its own:
`loss.backward()` on torchax tensors does not train, so the step is
torchax.train.make_train_step (JAX autodiff of the same PyTorch forward and loss,
then optax.adamw with torch.optim.AdamW's hyperparameters).

    torchax_jit    the step, the inference and the chain each one jax.jit
                   program (torchax.interop.jax_jit)
    torchax_eager  the same functions unjitted: JAX runs them op by op
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from workloads import LR, WEIGHT_DECAY, Inputs, loss_of, new_model, worker_main
from workloads import chain as chain_fn

os.environ.setdefault("JAX_PLATFORMS", "cpu")

# JAX reports each backend compile as this duration event (jax._src.dispatch).
_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class TorchaxSystem:
    def __init__(self, name: str) -> None:
        import jax
        import torch
        import torchax

        self.name = name
        self.jit = name == "torchax_jit"
        self.env = torchax.default_env()
        torch.manual_seed(0)
        self._compiles = 0

        def count(event: str, duration: float, **kwargs: Any) -> None:
            if event == _COMPILE_EVENT:
                self._compiles += 1

        jax.monitoring.register_event_duration_secs_listener(count)

    def _maybe_jit(self, fn: Any) -> Any:
        from torchax import interop

        return interop.jax_jit(fn) if self.jit else fn

    def _to_jax(self, value: Any) -> Any:
        return self.env.to_xla(value)

    def train(self, inputs: Inputs) -> Callable[[int], float]:
        import optax
        import torch
        from torchax import interop
        from torchax import train as tx_train

        model = new_model(inputs)
        weights = self._to_jax(dict(model.named_parameters()))
        buffers = self._to_jax(dict(model.named_buffers()))

        def model_fn(weights: Any, buffers: Any, args: Any) -> Any:
            return torch.func.functional_call(model, {**weights, **buffers}, args)

        # torch.optim.AdamW's defaults: betas (0.9, 0.999), eps 1e-8.
        optimizer = optax.adamw(LR, b1=0.9, b2=0.999, eps=1e-8, weight_decay=WEIGHT_DECAY)
        opt_state = interop.call_jax(optimizer.init, weights)
        step_fn = self._maybe_jit(tx_train.make_train_step(model_fn, loss_of, optimizer))
        idx = [self._to_jax(b) for b in inputs.idx]
        tgt = [self._to_jax(b) for b in inputs.tgt]

        def step(i: int) -> float:
            nonlocal weights, opt_state
            loss, weights, opt_state = step_fn(weights, buffers, opt_state, idx[i], tgt[i])
            return float(interop.jax_view(loss))

        return step

    def infer(self, inputs: Inputs) -> Callable[[], None]:
        import numpy as np
        import torch
        from torchax import interop

        model = new_model(inputs).eval()
        weights = self._to_jax(dict(model.state_dict()))

        def forward(weights: Any, idx: Any) -> Any:
            with self.env:
                return torch.func.functional_call(model, weights, (idx,))[:, -1].argmax(-1)

        run = self._maybe_jit(forward)
        idx = self._to_jax(inputs.idx[0])

        def fn() -> None:
            with torch.no_grad():
                np.asarray(interop.jax_view(run(weights, idx)))

        return fn

    def chain(self, inputs: Inputs) -> Callable[[], float]:
        from torchax import interop

        def body(x: Any) -> Any:
            with self.env:
                return chain_fn(x)

        run = self._maybe_jit(body)
        x = self._to_jax(inputs.chain_x)
        return lambda: float(interop.jax_view(run(x)))

    def add(self) -> Callable[[int], None]:
        import jax
        import torch
        from torchax import interop

        if self.jit:
            raise ValueError("the tiny add is for the eager systems")
        y = self._to_jax(torch.ones(8))
        x = self._to_jax(torch.ones(8))

        def run(n: int) -> None:
            nonlocal x
            with self.env:
                for _ in range(n):
                    x = x + y
            jax.device_get(interop.jax_view(x))

        return run

    def compiles(self) -> int | None:
        return self._compiles

    def versions(self) -> dict[str, str]:
        from importlib.metadata import version

        import torch

        # torchax.__version__ says 0.0.6 in 0.0.13: the installed distribution's version.
        out = {"torch": torch.__version__}
        out.update({name: version(name) for name in ("torchax", "jax", "jaxlib", "optax")})
        return out


if __name__ == "__main__":
    worker_main(
        {name: (lambda n=name: TorchaxSystem(n)) for name in ("torchax_jit", "torchax_eager")}
    )
