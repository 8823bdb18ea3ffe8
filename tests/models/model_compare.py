"""The shared check of the model tests: train a model for a few steps on the
CPU and on "tpu" from identical initial weights and identical batches, and
compare the loss of every step, the final parameters and buffers (batch-norm
running statistics), and which ops fell back to the CPU.

Every comparison records an Outcome in RESULTS; tests/models/conftest.py
prints them as a table at the end of the pytest run.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

import torchtpu

# The stated tolerances, the same in every mode. Losses are compared step by
# step; parameters after the last optimizer step (Adam-style optimizers divide
# by the gradients' own scale, so a tiny gradient computed in another order can
# move a weight by a visible fraction of the learning rate: hence the looser
# bound there).
LOSS_RTOL = 1e-4
LOSS_ATOL = 1e-5

Batch = tuple[torch.Tensor, ...]
POOL = 2  # distinct batches per case


@dataclass(frozen=True)
class Case:
    """A model, its data, its loss and its optimizer."""

    name: str
    make_model: Callable[[], nn.Module]
    # A pool of n batches (CPU tensors) from a seeded generator; step k trains
    # on batch k % n, so the loss on a batch seen again shows learning.
    make_batches: Callable[[torch.Generator, int], list[Batch]]
    loss: Callable[[nn.Module, Batch], torch.Tensor]
    make_opt: Callable[[list[nn.Parameter]], torch.optim.Optimizer]
    steps: int = 5
    # Ops expected to fall back to the CPU on "tpu" (none, ideally).
    fallbacks: frozenset[str] = field(default_factory=frozenset)
    # The bound on the final weights' difference from the CPU's.
    param_atol: float = 1e-3
    param_rtol: float = 1e-3


@dataclass
class Outcome:
    model: str
    mode: str
    steps: int
    cpu_losses: list[float]
    tpu_losses: list[float]
    max_loss_diff: float
    max_param_diff: float
    fallbacks: dict[str, int]
    tpu_seconds: float


RESULTS: list[Outcome] = []


def _train(
    case: Case, model: nn.Module, batches: Sequence[Batch], device: str, compiled: bool = False
) -> tuple[list[float], nn.Module]:
    model.train()
    opt = case.make_opt(list(model.parameters()))
    # Compiled: the model's forward and the loss as torch.compile graphs (their
    # backward too); the optimizer step stays eager.
    loss_fn = torch.compile(case.loss, backend="tpu") if compiled else case.loss
    losses = []
    for batch in batches:
        opt.zero_grad()
        loss = loss_fn(model, tuple(t.to(device) for t in batch))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def sharing(model: nn.Module) -> list[list[str]]:
    """The parameter names that share one Parameter object (tied weights), and
    those that share storage without being the same object."""
    by_object: dict[int, list[str]] = {}
    by_storage: dict[tuple[str, int], list[str]] = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        by_object.setdefault(id(p), []).append(name)
        key = (p.device.type, p.untyped_storage().data_ptr())
        by_storage.setdefault(key, []).append(name)
    groups = [sorted(g) for g in by_object.values() if len(g) > 1]
    groups += [["storage", *sorted(g)] for g in by_storage.values() if len(g) > 1]
    return sorted(groups)


def _state(model: nn.Module) -> dict[str, torch.Tensor]:
    """Parameters and floating-point buffers, on the CPU."""
    out = {f"param {k}": v.detach().cpu() for k, v in model.named_parameters()}
    for k, v in model.named_buffers():
        if v.is_floating_point():
            out[f"buffer {k}"] = v.detach().cpu()
    return out


_cpu_runs: dict[str, tuple[nn.Module, list[Batch], list[float], dict[str, torch.Tensor]]] = {}


def _cpu_reference(case: Case) -> tuple[nn.Module, list[Batch], list[float], dict]:
    """The initial model, the batches, and the CPU run (computed once per case)."""
    if case.name not in _cpu_runs:
        torch.manual_seed(0)
        initial = case.make_model()
        pool = case.make_batches(torch.Generator().manual_seed(1), POOL)
        batches = [pool[k % POOL] for k in range(case.steps)]
        losses, trained = _train(case, copy.deepcopy(initial), batches, "cpu")
        _cpu_runs[case.name] = (initial, batches, losses, _state(trained))
    return _cpu_runs[case.name]


def compare(case: Case, mode: str) -> Outcome:
    """Trains `case` on the CPU and on "tpu" in `mode` ("strict", "defer", or
    "compiled": torch.compile(backend="tpu") in strict mode), asserts that the
    losses and final weights agree within the stated tolerances and that
    exactly `case.fallbacks` fell back to the CPU, and records the outcome."""
    initial, batches, cpu_losses, cpu_state = _cpu_reference(case)
    model = copy.deepcopy(initial)
    params_before = list(model.parameters())
    model = model.to("tpu")
    # .to() keeps every Parameter object (tied weights stay tied), as on CUDA.
    assert all(a is b for a, b in zip(params_before, model.parameters(), strict=True))
    assert sharing(model) == sharing(initial), "the parameters' sharing changed on tpu"
    torchtpu.sync()
    torchtpu.metrics.reset()
    start = time.perf_counter()
    compiled = mode == "compiled"
    if compiled:
        torch._dynamo.reset()
    with torchtpu.mode("strict" if compiled else mode):
        tpu_losses, model = _train(case, model, batches, "tpu", compiled)
        tpu_state = _state(model)
    assert sharing(model) == sharing(initial), "training changed the parameters' sharing"

    seconds = time.perf_counter() - start
    counters = torchtpu.metrics.counters()
    fallbacks = dict(counters["fallbacks"])
    if compiled:
        # Every graph ran as one captured program.
        assert counters["graphs_compiled"] >= 2 and counters["graph_eager_runs"] == 0, counters

    loss_diff = max(abs(a - b) for a, b in zip(cpu_losses, tpu_losses, strict=True))
    assert tpu_state.keys() == cpu_state.keys()
    param_diff = max((tpu_state[k] - cpu_state[k]).abs().max().item() for k in cpu_state)
    outcome = Outcome(
        case.name,
        mode,
        case.steps,
        cpu_losses,
        tpu_losses,
        loss_diff,
        param_diff,
        fallbacks,
        seconds,
    )
    RESULTS.append(outcome)

    assert set(fallbacks) == set(case.fallbacks), f"CPU fallbacks: {fallbacks}"
    torch.testing.assert_close(
        torch.tensor(tpu_losses),
        torch.tensor(cpu_losses),
        rtol=LOSS_RTOL,
        atol=LOSS_ATOL,
        msg=lambda m: f"{case.name} ({mode}) losses per step differ from the CPU's:\n{m}",
    )
    for k, want in cpu_state.items():
        torch.testing.assert_close(
            tpu_state[k],
            want,
            rtol=case.param_rtol,
            atol=case.param_atol,
            msg=lambda m, k=k: f"{case.name} ({mode}) {k} after training:\n{m}",
        )
    # It learns: the last step's loss is below the first one's on the same batch.
    last = case.steps - 1 - (case.steps - 1) % POOL
    assert cpu_losses[last] < cpu_losses[0], f"{case.name} does not learn: {cpu_losses}"
    return outcome


def table(results: Sequence[Outcome]) -> str:
    """The outcomes as a fixed-width table."""
    head = (
        f"{'model':<8} {'mode':<8} {'steps':>5} {'max |dloss|':>12} {'max |dparam|':>13} "
        f"{'tpu s':>7}  fallbacks"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        fb = ", ".join(f"{op} x{n}" for op, n in sorted(r.fallbacks.items())) or "none"
        lines.append(
            f"{r.model:<8} {r.mode:<8} {r.steps:>5} {r.max_loss_diff:>12.2e} "
            f"{r.max_param_diff:>13.2e} {r.tpu_seconds:>7.1f}  {fb}"
        )
    return "\n".join(lines)
