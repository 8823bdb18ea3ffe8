"""One TorchTitan training run, through TorchTitan's own config and Trainer, on
"tpu" or on the CPU (the reference), shared by tests/ecosystem/test_torchtitan.py.

What runs is ``--module llama3 --config llama3_debugmodel`` with command-line
overrides only (TorchTitan's own public mechanisms):

- ``--override.imports titan_sdpa.sdpa_attention``: the debug model's
  FlexAttention becomes TorchTitan's own ``ScaledDotProductAttention``
  (FlexAttention is compiled by Inductor for CUDA/CPU only: it refuses other
  devices, and its CPU kernel has no backward).
- ``--parallelism.spmd_backend partial_dtensor``: FSDP2 over DTensor. The
  default, ``spmd_types``, fails in FSDP2 under torch 2.13, on the CPU with
  Gloo as on "tpu": ``ValueError: When dp_mesh_dims is provided, all
  parameters must be DTensors on the full SPMD mesh (e.g. via
  distribute_module). Got plain tensor for parameter 'weight'.`` (from
  ``torch/distributed/fsdp/_fully_shard/_fsdp_param.py``,
  ``_init_sharding_spec``).
- a tiny corpus and tokenizer made here (``--hf_assets_path``,
  ``--dataloader.dataset_path``): the wheel ships neither.
- every run starts from one seed checkpoint, made on the CPU by TorchTitan's
  own ``--checkpoint.create_seed_checkpoint`` and loaded with
  ``--checkpoint.initial_load_path``: TorchTitan initializes weights on the
  training device, and torchtpu's random generator is not the CPU's.

As a script (``python titan_run.py OUT WHERE ARGS...``) it is one torchrun
rank (WHERE ``cpu`` or ``tpu``), or two thread ranks of
``torchtpu.distributed.run_threads`` in one process (``threads``).

The CPU reference: TorchTitan has no CPU device (it takes the first
accelerator, else CUDA). Only for the reference run, ``cpu_reference()``
makes TorchTitan see the CPU as its device before it is imported: torch's
``_get_available_device_type`` answers "cpu", ``torch.cpu`` gets the few
device-module calls TorchTitan makes (names, properties, memory statistics),
``torch.distributed.set_timeout`` (torch 2.14's) is torch 2.13's private
``_set_pg_timeout``, and FSDP2 reduces gradients with a plain SUM (Gloo has no PREMUL_SUM; the
factor is 1). Nothing of this is done on "tpu", where TorchTitan finds the
device itself and the "tpu" process group runs PREMUL_SUM.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import threading
import types
from typing import Any

import torch

_parse_lock = threading.Lock()

VOCAB_TEXT = (
    "the quick brown fox jumps over the lazy dog while a small model learns to "
    "count words and letters in short sentences about trees rivers and stones"
).split()


def make_assets(folder: pathlib.Path) -> tuple[str, str]:
    """A word-level tokenizer (tokenizer.json, tokenizer_config.json) and a tiny
    C4-style corpus (one JSON-lines file), made from a fixed seed; returns the
    tokenizer folder and the dataset folder."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok_dir, data_dir = folder / "tokenizer", folder / "c4_test"
    tok_dir.mkdir(parents=True, exist_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    vocab = {"<unk>": 0, "<|begin_of_text|>": 1, "<|end_of_text|>": 2}
    for w in VOCAB_TEXT:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(tok_dir / "tokenizer.json"))
    config = {
        "bos_token": "<|begin_of_text|>",
        "eos_token": "<|end_of_text|>",
        "add_bos_token": True,
        "add_eos_token": True,
    }
    (tok_dir / "tokenizer_config.json").write_text(json.dumps(config))
    g = torch.Generator().manual_seed(0)
    with open(data_dir / "c4.json", "w") as f:
        for _ in range(64):
            n = int(torch.randint(8, 40, (1,), generator=g))
            idx = torch.randint(0, len(VOCAB_TEXT), (n,), generator=g).tolist()
            f.write(json.dumps({"text": " ".join(VOCAB_TEXT[i] for i in idx)}) + "\n")
    return str(tok_dir), str(data_dir)


STEPS = 3


def titan_args(assets: tuple[str, str], dump: str, seed: str | None) -> list[str]:
    """TorchTitan's command line for the debug model: 3 steps of 2 sequences of
    32 tokens per rank, float32 parameters (FSDP2's bfloat16 mixed precision is
    TorchTitan's default; float32 compares with the CPU within float32 rounding),
    no validation. ``seed=None`` makes the seed checkpoint into `dump`; otherwise
    the run starts from that checkpoint (``seed``, a step folder) and saves
    nothing. With ``torch.compile``: add ``--compile.enable --compile.backend tpu``."""
    tok_dir, data_dir = assets
    args = [
        "--module", "llama3",
        "--config", "llama3_debugmodel",
        "--override.imports", "titan_sdpa.sdpa_attention",
        "--parallelism.spmd_backend", "partial_dtensor",
        "--training.mixed_precision_param", "float32",
        "--hf_assets_path", tok_dir,
        "--dataloader.dataset_path", data_dir,
        "--dump_folder", dump,
        "--training.steps", str(STEPS),
        "--training.seq_len", "32",
        "--training.local_batch_size", "2",
        "--debug.seed", "0",
        "--validator.no-enable",
        "--checkpoint.enable",
    ]  # fmt: skip
    if seed is None:
        return [*args, "--checkpoint.create_seed_checkpoint", "--checkpoint.last_save_model_only"]
    return [*args, "--checkpoint.load_only", "--checkpoint.initial_load_path", seed]


def cpu_reference() -> None:
    """For the CPU reference run only, before TorchTitan is imported: the CPU
    as TorchTitan's device (see the module docstring)."""
    torch._utils._get_available_device_type = lambda: "cpu"  # type: ignore[assignment]
    cpu = torch.cpu
    extras: dict[str, Any] = {
        "get_device_name": lambda device=None: "cpu",
        "get_device_properties": lambda device=None: types.SimpleNamespace(
            name="cpu", total_memory=1 << 40
        ),
        "memory_stats": lambda device=None: {},
        "reset_peak_memory_stats": lambda device=None: None,
        "empty_cache": lambda: None,
    }
    for name, fn in extras.items():
        if not hasattr(cpu, name):
            setattr(cpu, name, fn)
    cpu.current_device = lambda: 0  # a device index (barrier's device_ids), not "cpu"
    # torch.distributed.set_timeout is torch 2.14's; on the tpu runs torchtpu
    # provides it for older torch, here torch's own older name does.
    if not hasattr(torch.distributed, "set_timeout"):
        torch.distributed.set_timeout = torch.distributed.distributed_c10d._set_pg_timeout
    # Gloo has no ReduceOp.PREMUL_SUM, which FSDP2 picks for TorchTitan's
    # gradient divide factor of 1: on the CPU, the same sum without a premultiply.
    from torch.distributed.fsdp._fully_shard import _fsdp_collectives

    factors = _fsdp_collectives._get_gradient_divide_factors

    def sum_for_gloo(*args: Any) -> Any:
        return factors(*args[:5], True)

    _fsdp_collectives._get_gradient_divide_factors = sum_for_gloo  # type: ignore[assignment]


def train(argv: list[str]) -> dict[str, Any]:
    """Builds TorchTitan's Trainer from its own config (command-line style
    arguments), trains, and returns the losses it logged (every step) and its
    parameters as full tensors on the CPU."""
    from torchtitan.config import ConfigManager

    with _parse_lock:  # tyro's parser keeps a global stack: one thread rank at a time
        config = ConfigManager().parse_args(argv)
    trainer = config.build()
    if config.checkpoint.create_seed_checkpoint:
        # TorchTitan's seed checkpoint (as its train.py makes it): the initial
        # weights, made once on the CPU, that every run then loads.
        trainer.checkpointer.save(curr_step=0, last_step=True)
        trainer.close()
        return {}
    losses: list[float] = []
    log = trainer.metrics_processor.log

    def record(step: int, global_avg_loss: float, *args: Any, **kwargs: Any) -> None:
        losses.append(float(global_avg_loss))
        log(step, global_avg_loss, *args, **kwargs)

    trainer.metrics_processor.log = record  # the harness's own record of each step's loss
    try:
        trainer.train()
        params = {}
        for model in trainer.model_parts:
            for name, p in model.named_parameters():
                full = p.full_tensor() if hasattr(p, "full_tensor") else p
                params[name] = full.detach().cpu().clone()
    finally:
        trainer.close()
    return {"losses": losses, "params": params}


def run_thread(rank: int, argv: list[str]) -> dict[str, Any]:
    """One thread rank (torchtpu.distributed.run_threads gives it its device,
    its own RANK/LOCAL_RANK and its process group)."""
    del rank
    return train(argv)


def main() -> None:
    """``titan_run.py OUT {cpu,tpu,threads} ARGS...``: a torchrun rank on the CPU
    or on "tpu", or (``threads``) two thread ranks in this process; rank 0 saves
    its losses, parameters, CPU fallbacks and graph counters to OUT."""
    out, where, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    if where == "cpu":
        cpu_reference()
        result = train(argv)
    elif where == "threads":
        import torchtpu.distributed

        ranks = torchtpu.distributed.run_threads(run_thread, 2, argv)
        assert ranks[0]["losses"] == ranks[1]["losses"], ranks
        result = ranks[0]
    else:
        result = train(argv)
    if where != "cpu":
        import torchtpu

        counters = torchtpu.metrics.counters()
        result["fallbacks"] = dict(counters["fallbacks"])
        result["graphs"] = {k: v for k, v in counters.items() if k.startswith("graph")}
    if int(os.environ.get("RANK", "0")) == 0:
        torch.save(result, out)
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
