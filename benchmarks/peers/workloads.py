"""The workloads of the peer benchmark, in plain PyTorch, and the worker protocol.

Every worker process (one per system, workload and repeat) imports this module,
whichever torch it runs on (torchtpu's, or the peers' torch 2.9): it loads the
inputs that the driver saved once (the GPT-style model's initial weights, the
batches, the elementwise chain's input), runs one workload through a `System`
(what a worker module provides for one row of the table) and prints one line,
`RESULT {json}`.

The workloads:

    train   the GPT-style decoder's training step (forward, cross-entropy,
            backward, AdamW, the loss read back), median after warm-up
    cold    the first 20 steps of a fresh process: the first step's time, the
            20 steps' wall time, the compiles they made and their losses
    infer   the inference step (forward, the last position's argmax read back)
    chain   20 steps of tanh(y * 1.001 + 0.01) on a 512x512 tensor, its sum read
            back (benchmarks/run.py's elementwise_chain)
    add     the cost per op of a tiny add (8 elements), in batches of 1000 adds
            with the results read back after each batch (the eager systems)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "examples"))

# The model of benchmarks/run.py's gpt rows (examples/gpt.py's GPTConfig defaults:
# vocab 96, context 64, hidden 128, 4 heads, 2 layers), at batch 8.
BATCH = 8
COLD_STEPS = 20  # the cold run's steps; also the number of saved batches
LR, WEIGHT_DECAY = 1e-3, 0.01  # AdamW's (torch.optim.AdamW's betas and eps)
CHAIN_SIZE, CHAIN_STEPS = 512, 20
ADD_BATCH = 1000
WORKLOADS = ("train", "cold", "infer", "chain", "add")

# Timing: after warm-up, up to MAX_SAMPLES calls, each timed on its own (every
# call reads a value back, so it ends synchronized), stopping early once
# MIN_SAMPLES have run and BUDGET_S has passed (the slow eager systems).
WARMUP, MIN_SAMPLES, MAX_SAMPLES, BUDGET_S = 5, 5, 20, 60.0
ADD_REPEATS = 7
if os.environ.get("PEERS_QUICK") == "1":  # run.py --quick: a smoke test of the set-up
    MIN_SAMPLES, MAX_SAMPLES, BUDGET_S, ADD_REPEATS = 2, 3, 10.0, 2


@dataclass
class Inputs:
    """What every system starts from: saved once by the driver, loaded by each worker."""

    state: dict[str, Any]  # the GPT's initial weights (CPU tensors)
    idx: Any  # [COLD_STEPS, BATCH, context] token ids
    tgt: Any  # [COLD_STEPS, BATCH, context] targets
    chain_x: Any  # [CHAIN_SIZE, CHAIN_SIZE] float32


def make_inputs(path: Path) -> None:
    """Seeded weights, batches and chain input, saved with torch.save."""
    import torch
    from gpt import GPT, GPTConfig

    torch.manual_seed(0)
    cfg = GPTConfig()
    model = GPT(cfg)
    g = torch.Generator().manual_seed(1)
    shape = (COLD_STEPS, BATCH, cfg.context)
    data = {
        "state": model.state_dict(),
        "idx": torch.randint(0, cfg.vocab, shape, generator=g),
        "tgt": torch.randint(0, cfg.vocab, shape, generator=g),
        "chain_x": torch.randn(CHAIN_SIZE, CHAIN_SIZE, generator=g),
    }
    torch.save(data, path)


def load_inputs(path: Path) -> Inputs:
    import torch

    data = torch.load(path, weights_only=True)
    return Inputs(data["state"], data["idx"], data["tgt"], data["chain_x"])


def new_model(inputs: Inputs) -> Any:
    """The GPT-style decoder on the CPU, with the saved initial weights."""
    from gpt import GPT, GPTConfig

    model = GPT(GPTConfig())
    model.load_state_dict(inputs.state)
    return model


def loss_of(logits: Any, tgt: Any) -> Any:
    from torch.nn import functional as F

    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))


def chain(x: Any) -> Any:
    import torch

    y = x
    for _ in range(CHAIN_STEPS):
        y = torch.tanh(y * 1.001 + 0.01)
    return y.sum()


class System(Protocol):
    """One row of the table, in a worker process."""

    def train(self, inputs: Inputs) -> Callable[[int], float]:
        """Sets up the model and optimizer; returns a step on batch i, returning its loss."""
        ...

    def infer(self, inputs: Inputs) -> Callable[[], None]: ...

    def chain(self, inputs: Inputs) -> Callable[[], float]: ...

    def add(self) -> Callable[[int], None]:
        """Returns a function that runs n tiny adds and reads the result back."""
        ...

    def compiles(self) -> int | None:
        """Programs compiled so far in this process (None where nothing compiles)."""
        ...

    def versions(self) -> dict[str, str]: ...


def _timed(call: Callable[[], Any], system: System) -> dict[str, Any]:
    """Seconds per call after warm-up, and the compiles made while timing."""
    for _ in range(WARMUP):
        call()
    before = system.compiles()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < MAX_SAMPLES:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
        if len(times) >= MIN_SAMPLES and time.perf_counter() - start > BUDGET_S:
            break
    after = system.compiles()
    result: dict[str, Any] = {"times_s": times, "value": statistics.median(times)}
    if before is not None and after is not None:
        result["compiles_timed"] = after - before
    return result


def run_workload(system: System, workload: str, inputs: Inputs) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if workload == "cold":
        t0 = time.perf_counter()
        step = system.train(inputs)
        result["setup_s"] = time.perf_counter() - t0
        losses, ends = [], []
        t0 = time.perf_counter()
        for i in range(COLD_STEPS):
            losses.append(step(i))
            ends.append(time.perf_counter() - t0)
        result.update(first_step_s=ends[0], first20_s=ends[-1], losses=losses)
        result["value"] = ends[-1]
        result["compiles"] = system.compiles()
        return result
    if workload == "add":
        run = system.add()
        for _ in range(2):  # warm-up: compiles what a batch compiles (the first may differ)
            run(ADD_BATCH)
        per_op = []
        for _ in range(ADD_REPEATS):
            t0 = time.perf_counter()
            run(ADD_BATCH)
            per_op.append((time.perf_counter() - t0) / ADD_BATCH)
        result.update(times_s=per_op, value=statistics.median(per_op))
        return result
    if workload == "train":
        step = system.train(inputs)
        i = 0

        def fn() -> None:
            nonlocal i
            step(i % COLD_STEPS)
            i += 1

        call: Callable[[], Any] = fn
    elif workload == "infer":
        call = system.infer(inputs)
    elif workload == "chain":
        call = system.chain(inputs)
    else:
        raise ValueError(f"unknown workload {workload}")
    result.update(_timed(call, system))
    return result


def worker_main(systems: dict[str, Callable[[], System]]) -> None:
    """The entry point of a worker module: `--system S --workload W --inputs PATH`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--system", required=True, choices=sorted(systems))
    parser.add_argument("--workload", required=True, choices=WORKLOADS)
    parser.add_argument("--inputs", required=True, type=Path)
    args = parser.parse_args()
    t0 = time.perf_counter()
    system = systems[args.system]()
    inputs = load_inputs(args.inputs)
    result = {"import_s": time.perf_counter() - t0}
    result.update(run_workload(system, args.workload, inputs))
    result["versions"] = system.versions()
    print("RESULT " + json.dumps(result), flush=True)
