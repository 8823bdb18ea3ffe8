"""The Hugging Face Trainer (transformers + accelerate), unchanged, on "tpu":
a tiny random-config Llama fine-tuned for 10 steps, checkpointed at step 5 and
resumed from there, against the same run on the CPU (issue 19).

"compiled" is the model under torch.compile(backend="tpu") in strict mode,
through ``model.compile(backend="tpu")`` before the Trainer gets it: the
Trainer's own ``torch_compile_backend="tpu"`` is refused by accelerate 1.15
(``ValueError: 'TPU' is not a valid DynamoBackend``, from
``TorchDynamoPlugin.__post_init__``: its backends are a fixed enum)."""

from __future__ import annotations

import functools
import json
import pathlib

import pytest
import torch
from hf_tiny import (
    SAVE_STEPS,
    STEPS,
    Run,
    assert_close_losses,
    assert_close_states,
    make_model,
    train,
)

import torchtpu


@functools.cache
def cpu_run(tmp: str) -> Run:
    return train("cpu", "strict", tmp, make_model())


@pytest.fixture(scope="module")
def cpu(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return cpu_run(str(tmp_path_factory.mktemp("cpu")))


def tpu_model(mode: str) -> torch.nn.Module:
    model = make_model()
    if mode == "compiled":
        torch._dynamo.reset()
        model.compile(backend="tpu")
    return model


@pytest.mark.parametrize("mode", ["strict", "defer", "compiled"])
def test_trainer_matches_cpu_and_resumes(mode: str, cpu: Run, tmp_path: pathlib.Path) -> None:
    out = str(tmp_path / "tpu")
    eager_mode = "strict" if mode == "compiled" else mode
    run = train("tpu", eager_mode, out, tpu_model(mode))
    if mode == "compiled":
        # The forward and the backward graph, one program each, every step.
        c = torchtpu.metrics.counters()
        assert (c["graphs_compiled"], c["graph_runs"], c["graph_eager_runs"]) == (
            2,
            2 * STEPS,
            0,
        ), c
    params = list(run.trainer.model.parameters())
    assert params and all(p.device.type == "tpu" for p in params)
    assert run.fallbacks == {}, f"CPU fallbacks: {run.fallbacks}"
    assert len(run.losses) == STEPS
    loss_diff = assert_close_losses(run.losses, cpu.losses)
    weight_diff = assert_close_states(run.state, cpu.state)
    # It learns: the last loss is below the first.
    assert run.losses[-1] < run.losses[0] - 0.05, run.losses

    # The checkpoint: weights, optimizer, schedule, RNG and trainer state, as on the CPU.
    ckpt = tmp_path / "tpu" / f"checkpoint-{SAVE_STEPS}"
    names = {p.name for p in ckpt.iterdir()}
    cpu_names = {p.name for p in (pathlib.Path(cpu.trainer.args.output_dir) / ckpt.name).iterdir()}
    assert names == cpu_names and {"model.safetensors", "optimizer.pt"} <= names, names
    optim = torch.load(ckpt / "optimizer.pt", map_location="cpu", weights_only=True)
    assert len(optim["state"]) == len(params)
    assert json.loads((ckpt / "trainer_state.json").read_text())["global_step"] == SAVE_STEPS

    # Resumed from step 5 in a fresh Trainer: steps 6-10 and the final weights
    # are those of the uninterrupted run.
    resumed = train("tpu", eager_mode, out, tpu_model(mode), resume_from=str(ckpt))
    assert resumed.fallbacks == {}, f"CPU fallbacks: {resumed.fallbacks}"
    # (The log of steps 1-5 comes back with the checkpoint's trainer state.)
    assert len(resumed.losses) == STEPS
    assert_close_losses(resumed.losses[SAVE_STEPS:], run.losses[SAVE_STEPS:])
    assert_close_states(resumed.state, run.state)
    print(f"\n[trainer {mode}] max |dloss| {loss_diff:.2e}, max |dweight| {weight_diff:.2e}")
