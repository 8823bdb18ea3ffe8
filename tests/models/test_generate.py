"""LLM inference: Hugging Face ``generate()`` on "tpu" against the CPU.

A tiny random Llama (2 layers, hidden size 32, nothing downloaded) generates a
few tokens on the CPU and on "tpu"; greedy tokens must be the CPU's exactly,
and nothing may fall back to the CPU. Modes: strict, defer, and "compile"
(defer with the model's forward under ``torch.compile(backend="tpu")``,
transformers' documented recipe for a static cache).

- Static KV cache (``cache_implementation="static"``): the CPU's tokens in
  every mode.
- The bucket recipe (``torchtpu.generation``): after ``warm_up`` of a bucket,
  calls with other prompt lengths in that bucket and fewer new tokens build no
  program at all (no compile, no disk-cache load, no graph capture).
- Dynamic cache (the default): the CPU's tokens in strict and defer mode; the
  growing KV cache makes defer mode compile per length, and the growth warning
  names the op and the dimension.
- Sampling (top-k, top-p, temperature) on the device's generator: the same
  seed gives the same tokens, another seed other ones.
- A batch of prompts of different lengths, left-padded: each row's tokens are
  the ones the prompt gets alone on the CPU.
"""

from __future__ import annotations

import copy
import os
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"

import pytest
import torch

import torchtpu
from torchtpu import generation

transformers = pytest.importorskip("transformers")

VOCAB = 96
NEW = 6  # new tokens per call
BUCKET = 16


def make_cpu_model(vocab: int = VOCAB) -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        # No token ends a sequence: every call generates all its tokens, so
        # each call's shapes are known (the recipe's warm-up needs that too).
        eos_token_id=None,
        bos_token_id=None,
        pad_token_id=0,
    )
    return transformers.LlamaForCausalLM(config).eval()


@pytest.fixture(scope="module")
def cpu_model() -> Any:
    return make_cpu_model()


@pytest.fixture(autouse=True)
def _fresh_dynamo() -> Iterator[None]:
    # Each test compiles its own model: dynamo's per-code recompile limit
    # (8) would otherwise be reached over the module's tests.
    torch._dynamo.reset()
    yield
    torchtpu.sync()
    torch._dynamo.reset()


def tpu_model(cpu_model: Any, mode: str) -> Any:
    """The same weights on "tpu"; mode "compile" compiles the forward."""
    model = copy.deepcopy(cpu_model).to("tpu")
    if mode == "compile":
        model.forward = torch.compile(model.forward, backend="tpu")
    return model


def thread_mode(mode: str) -> str:
    return "defer" if mode == "compile" else mode


def prompt(length: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(1, VOCAB, (1, length), generator=g)


def cpu_greedy(model: Any, ids: torch.Tensor, new: int = NEW) -> torch.Tensor:
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=new, do_sample=False)
    return out[:, ids.shape[1] :]


def fallbacks() -> dict[str, int]:
    return dict(torchtpu.metrics.counters()["fallbacks"])


MODES = ["strict", "defer", "compile"]


@pytest.mark.parametrize("mode", MODES)
def test_static_cache_greedy_matches_cpu(cpu_model: Any, mode: str) -> None:
    """The issue's call, unchanged: ``generate(ids, cache_implementation="static")``."""
    model = tpu_model(cpu_model, mode)
    ids = prompt(5, seed=1)
    before = fallbacks()
    with torchtpu.mode(thread_mode(mode)), torch.no_grad():
        out = model.generate(
            ids.to("tpu"), max_new_tokens=NEW, do_sample=False, cache_implementation="static"
        )
    assert torch.equal(out.cpu()[:, 5:], cpu_greedy(cpu_model, ids))
    assert fallbacks() == before


@pytest.mark.parametrize("mode", MODES)
def test_bucketed_calls_after_warm_up_compile_nothing(cpu_model: Any, mode: str) -> None:
    model = tpu_model(cpu_model, mode)
    with torchtpu.mode(thread_mode(mode)):
        rounds = generation.warm_up(model, BUCKET, NEW)
        # The first round builds the bucket's programs; the last builds none.
        assert rounds[0] > 0 and rounds[-1] == 0, rounds
        for length, new, seed in [(5, NEW, 2), (11, 3, 3), (BUCKET, 1, 4), (1, NEW, 5)]:
            ids = prompt(length, seed)
            before = torchtpu.metrics.counters()
            with torch.no_grad():
                out = generation.generate(
                    model, ids, max_new_tokens=new, max_new_tokens_ceiling=NEW, buckets=(BUCKET,)
                )
            got = out.cpu()
            after = torchtpu.metrics.counters()
            assert got.shape == (1, BUCKET + new)
            assert torch.equal(got[:, BUCKET:], cpu_greedy(cpu_model, ids, new)), (length, new)
            assert generation.new_programs(before, after) == 0, (length, new)
            assert after["graph_eager_runs"] == before["graph_eager_runs"]
            # transformers compiles the decoding step's forward itself (static
            # cache on "tpu"); "compile" compiles the prefill too.
            if mode == "compile" or new > 1:
                assert after["graph_runs"] > before["graph_runs"]
            assert after["fallbacks"] == before["fallbacks"]


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_dynamic_cache_greedy_matches_cpu(cpu_model: Any, mode: str) -> None:
    model = tpu_model(cpu_model, mode)
    ids = prompt(4, seed=6)
    before = fallbacks()
    with torchtpu.mode(mode), torch.no_grad():
        out = model.generate(ids.to("tpu"), max_new_tokens=NEW, do_sample=False)
    assert torch.equal(out.cpu()[:, 4:], cpu_greedy(cpu_model, ids))
    assert fallbacks() == before


def test_dynamic_cache_warns_about_growth() -> None:
    """Each new length compiles new programs in defer mode; torchtpu says so
    once, naming the op and the dimension that grows."""
    # A vocabulary of its own: shapes no other test built, so that every
    # length compiles here.
    model = make_cpu_model(vocab=88).to("tpu")
    torchtpu.debug.clear_recompile_report()
    with torchtpu.mode("defer"), torch.no_grad():
        model.generate(prompt(3, seed=7).to("tpu"), max_new_tokens=9, do_sample=False).cpu()
    warnings = torchtpu.debug.growth_warnings()
    assert warnings, "no growth warning"
    text = warnings[0]
    assert "because a dimension grows (dimension " in text, text
    assert " of op #" in text and "aten::" in text, text
    assert "pad such tensors to a few fixed sizes" in text, text


SAMPLING = {"do_sample": True, "top_k": 20, "top_p": 0.9, "temperature": 0.8}


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_sampling_is_reproducible_on_device(cpu_model: Any, mode: str) -> None:
    model = tpu_model(cpu_model, mode)
    ids = prompt(5, seed=8)
    before = fallbacks()

    def sample(seed: int) -> torch.Tensor:
        torch.manual_seed(seed)
        with torchtpu.mode(mode), torch.no_grad():
            out = generation.generate(model, ids, max_new_tokens=8, buckets=(BUCKET,), **SAMPLING)
        return out.cpu()[:, BUCKET:]

    a, b, c = sample(1), sample(1), sample(2)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    assert fallbacks() == before


@pytest.mark.parametrize("mode", ["defer", "compile"])
def test_batch_rows_match_each_prompt_alone(cpu_model: Any, mode: str) -> None:
    model = tpu_model(cpu_model, mode)
    prompts = [prompt(n, seed=10 + n)[0] for n in (3, 9, 14)]
    before = fallbacks()
    with torchtpu.mode(thread_mode(mode)), torch.no_grad():
        out = generation.generate(model, prompts, max_new_tokens=NEW, buckets=(BUCKET,))
    got = out.cpu()[:, BUCKET:]
    for row, p in zip(got, prompts, strict=True):
        assert torch.equal(row[None], cpu_greedy(cpu_model, p[None])), len(p)
    assert fallbacks() == before


def test_bucket_for_and_pad_prompts() -> None:
    assert generation.bucket_for(1) == 16
    assert generation.bucket_for(16) == 16
    assert generation.bucket_for(17) == 32
    assert generation.bucket_for(5, buckets=(8, 4)) == 8
    with pytest.raises(ValueError, match="longer than the largest bucket"):
        generation.bucket_for(9, buckets=(4, 8))
    # A list of prompts of different lengths: left-padded to the bucket.
    ids, mask = generation.pad_prompts([[5, 6], [7, 8, 9]], pad_token_id=1, buckets=(4,))
    assert ids.tolist() == [[1, 1, 5, 6], [1, 7, 8, 9]]
    assert mask.tolist() == [[0, 0, 1, 1], [0, 1, 1, 1]]
    # A right-padded batch with its mask: realigned to the right.
    ids, mask = generation.pad_prompts(
        torch.tensor([[5, 6, 0], [7, 8, 9]]),
        torch.tensor([[1, 1, 0], [1, 1, 1]]),
        pad_token_id=0,
        length=5,
    )
    assert ids.tolist() == [[0, 0, 0, 5, 6], [0, 0, 7, 8, 9]]
    assert mask.tolist() == [[0, 0, 0, 1, 1], [0, 0, 1, 1, 1]]
    with pytest.raises(ValueError, match="shorter than the longest prompt"):
        generation.pad_prompts([[1, 2, 3]], length=2)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "generate.py"


def test_example_generate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """examples/generate.py builds a random model and tokenizer, saves them,
    and generates from them again with --model; a short run of each."""

    def run(*argv: str) -> str:
        saved_argv, saved_mode = sys.argv, torchtpu.get_mode()
        sys.argv = [str(EXAMPLE), "--quiet", "--max-new-tokens", "4", "--hidden", "32", *argv]
        torchtpu.metrics.reset()  # its report is of its own run, as in a process of its own
        try:
            runpy.run_path(str(EXAMPLE), run_name="__main__")
        finally:
            sys.argv = saved_argv
            torchtpu.set_mode(saved_mode)
        return capsys.readouterr().out

    built = run("--save", str(tmp_path), "--prompt", "the cat sees", "--prompt", "a dog")
    loaded = run("--model", str(tmp_path), "--prompt", "the cat sees")
    for out in (built, loaded):
        assert "warm-up of bucket 16" in out, out
        assert "tok/s; first-token latency median" in out, out
        assert "CPU fallbacks       none" in out, out
        assert "compiles" in out and "cache hits" in out, out
    # Both prompts are in bucket 16: after its warm-up nothing compiles.
    assert built.count(", 0 new programs") == 2, built
    # The same weights and tokenizer: the same text for the same prompt.
    text = [ln for ln in built.splitlines() if ln.startswith("  ") and "tokens in" not in ln]
    again = [ln for ln in loaded.splitlines() if ln.startswith("  ") and "tokens in" not in ln]
    assert text[0] == again[0], (text, again)
