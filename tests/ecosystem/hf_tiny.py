"""A tiny random-config Llama causal LM, its data, and one Hugging Face
``Trainer`` run on the CPU or on "tpu", shared by the Trainer and PEFT tests.

How the Trainer is told to use "tpu": transformers 5.23 already picks
``tpu:0`` for its own ``TrainingArguments.device`` (it asks
``torch.accelerator``, whose current accelerator is the PrivateUse1 backend
"tpu"), but accelerate 1.15's ``PartialState`` knows only its own list of
device types and would keep the model and batches on the CPU. Its public
``ACCELERATE_TORCH_DEVICE`` environment variable names the device instead;
the tpu runs set it, the CPU runs (``use_cpu=True``) leave it unset.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
import torch
from torch import nn

import torchtpu

transformers = pytest.importorskip("transformers")
pytest.importorskip(
    "accelerate", reason="accelerate is not installed (make setup installs accelerate==1.15.0)"
)

VOCAB = 128
SEQ = 16
EXAMPLES = 16
BATCH = 4
STEPS = 10
SAVE_STEPS = 5

# Losses: the stated tolerance of tests/models (float32 sums in another order
# differ by a few ulps per step). Weights after 10 AdamW steps: Adam divides by
# the gradients' own scale, so an ulp-level gradient difference can move a
# weight by a small fraction of the learning rate (1e-3); 1e-4 absolute is a
# tenth of one step's size.
LOSS_RTOL, LOSS_ATOL = 1e-4, 1e-5
WEIGHT_RTOL, WEIGHT_ATOL = 1e-4, 1e-4


def make_model() -> nn.Module:
    """The same random weights on every call (seeded), on the CPU."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2 * SEQ,
    )
    return transformers.LlamaForCausalLM(config)


class Tokens(torch.utils.data.Dataset):
    """Random token sequences, the labels being the inputs (the model shifts them)."""

    def __init__(self) -> None:
        g = torch.Generator().manual_seed(1)
        self.ids = torch.randint(0, VOCAB, (EXAMPLES, SEQ), generator=g)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


@dataclass
class Run:
    trainer: transformers.Trainer
    losses: list[float]  # per optimizer step, from the Trainer's own log
    state: dict[str, torch.Tensor]  # the trained model's state dict, on the CPU
    fallbacks: dict[str, int]


def state_on_cpu(model: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


def train(
    device: str,
    mode: str,
    output_dir: str,
    model: nn.Module,
    resume_from: str | None = None,
) -> Run:
    """Fine-tunes `model` for STEPS steps with an unmodified Trainer (its default
    optimizer, fused AdamW, and linear schedule), saving a checkpoint every
    SAVE_STEPS steps; `resume_from` resumes from a checkpoint instead."""
    on_tpu = device == "tpu"
    saved = os.environ.pop("ACCELERATE_TORCH_DEVICE", None)
    if on_tpu:
        os.environ["ACCELERATE_TORCH_DEVICE"] = "tpu"
    try:
        args = transformers.TrainingArguments(
            output_dir=output_dir,
            max_steps=STEPS,
            per_device_train_batch_size=BATCH,
            learning_rate=1e-3,
            logging_steps=1,
            save_steps=SAVE_STEPS,
            report_to="none",
            disable_tqdm=True,
            use_cpu=not on_tpu,
            seed=0,
        )
        assert args.device.type == device
        trainer = transformers.Trainer(model=model, args=args, train_dataset=Tokens())
        torchtpu.sync()
        torchtpu.metrics.reset()
        with torchtpu.mode(mode):
            trainer.train(resume_from_checkpoint=resume_from)
            state = state_on_cpu(trainer.model)
        fallbacks = dict(torchtpu.metrics.counters()["fallbacks"])
    finally:
        os.environ.pop("ACCELERATE_TORCH_DEVICE", None)
        if saved is not None:
            os.environ["ACCELERATE_TORCH_DEVICE"] = saved
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    return Run(trainer, losses, state, fallbacks)


def assert_close_states(
    got: dict[str, torch.Tensor], want: dict[str, torch.Tensor], atol: float = WEIGHT_ATOL
) -> float:
    """Same names, dtypes and shapes; values within the stated tolerance. Returns
    the largest absolute difference."""
    assert got.keys() == want.keys()
    worst = 0.0
    for k, w in want.items():
        g = got[k]
        assert g.dtype == w.dtype and g.shape == w.shape, (k, g.dtype, g.shape, w.dtype, w.shape)
        torch.testing.assert_close(
            g, w, rtol=WEIGHT_RTOL, atol=atol, msg=lambda m, k=k: f"{k}: {m}"
        )
        worst = max(worst, (g.double() - w.double()).abs().max().item())
    return worst


def assert_close_losses(got: list[float], want: list[float]) -> float:
    assert len(got) == len(want), (got, want)
    torch.testing.assert_close(
        torch.tensor(got, dtype=torch.float64),
        torch.tensor(want, dtype=torch.float64),
        rtol=LOSS_RTOL,
        atol=LOSS_ATOL,
    )
    return max(abs(a - b) for a, b in zip(got, want, strict=True))
