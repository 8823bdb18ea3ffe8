"""PEFT, unchanged, on "tpu": LoRA adapters on the tiny Llama of hf_tiny,
fine-tuned for 10 steps with the Trainer; only the adapter weights change,
and the merged model equals the CPU's (issue 19)."""

from __future__ import annotations

import functools

import pytest
import torch
from hf_tiny import (
    STEPS,
    assert_close_losses,
    assert_close_states,
    make_model,
    state_on_cpu,
    train,
)
from torch import nn

import torchtpu

peft = pytest.importorskip(
    "peft", reason="peft is not installed (make setup installs peft==0.21.2)"
)

# The adapters themselves: 2e-4, a fifth of one AdamW step (lr 1e-3). lora_B
# starts at zero, and where its first gradients are near zero Adam's update
# lr * m / (sqrt(v) + eps) turns an ulp-level gradient difference into a
# visible fraction of lr (measured: 1.2e-4 in one of 128 elements of one
# adapter in defer mode, 4e-5 in strict, under 1e-6 on average). The merged
# weights, what the model computes with, hold the common 1e-4.
ADAPTER_ATOL = 2e-4


def lora_model() -> nn.Module:
    model = make_model()
    config = peft.LoraConfig(
        r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["q_proj", "v_proj"]
    )
    torch.manual_seed(2)  # the adapters' own initialization, the same on every call
    return peft.get_peft_model(model, config)


Result = tuple[list[float], dict[str, torch.Tensor], dict[str, torch.Tensor], dict[str, int]]


def fine_tune(device: str, mode: str, out: str) -> Result:
    """The losses, the trained adapter model's state, the merged model's state,
    and the CPU fallbacks of training and merging."""
    run = train(device, mode, out, lora_model())
    model = run.trainer.model
    assert all(p.device.type == device for p in model.parameters())
    torchtpu.metrics.reset()
    with torchtpu.mode(mode):
        merged = state_on_cpu(model.merge_and_unload())
    fallbacks = {**run.fallbacks, **torchtpu.metrics.counters()["fallbacks"]}
    return run.losses, run.state, merged, fallbacks


@functools.cache
def cpu_result(out: str) -> Result:
    return fine_tune("cpu", "strict", out)


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_lora_matches_cpu(mode: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    initial = state_on_cpu(lora_model())
    base = state_on_cpu(make_model())
    adapters = {k for k in initial if "lora_" in k}
    assert adapters and all(
        p.requires_grad == ("lora_" in n) for n, p in lora_model().named_parameters()
    )

    cpu_losses, cpu_state, cpu_merged, _ = cpu_result(str(tmp_path_factory.mktemp("cpu")))
    losses, state, merged, fallbacks = fine_tune("tpu", mode, str(tmp_path_factory.mktemp("tpu")))
    assert fallbacks == {}, f"CPU fallbacks: {fallbacks}"

    # Only the adapters changed; every other weight is bit for bit the initial one.
    assert state.keys() == initial.keys()
    for k, v in state.items():
        if k in adapters:
            assert not torch.equal(v, initial[k]), f"{k} did not train"
        else:
            assert torch.equal(v, initial[k]), f"{k} changed, but only LoRA adapters train"

    assert len(losses) == STEPS
    loss_diff = assert_close_losses(losses, cpu_losses)
    adapter_diff = assert_close_states(state, cpu_state, atol=ADAPTER_ATOL)
    # The merged model: a plain Llama's state (names, dtypes, shapes) equal to
    # the CPU's merge; only the adapted projections differ from the base.
    assert merged.keys() == base.keys()
    merged_diff = assert_close_states(merged, cpu_merged)
    for k, v in merged.items():
        adapted = k.endswith(("q_proj.weight", "v_proj.weight"))
        assert torch.equal(v, base[k]) != adapted, k
    print(
        f"\n[peft {mode}] max |dloss| {loss_diff:.2e}, max |dadapter| {adapter_diff:.2e}, "
        f"max |dmerged| {merged_diff:.2e}"
    )
