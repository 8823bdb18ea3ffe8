"""LLM inference on "tpu": Hugging Face ``generate()`` with a static KV cache
and prompt-length buckets (``torchtpu.generation``), a progress display, and
the figures: tokens per second, first-token latency, what was compiled.

    python examples/generate.py                      # a small random Llama, built here
    python examples/generate.py --model DIR          # a local checkpoint (nothing is downloaded)
    python examples/generate.py --mode strict --max-new-tokens 16 --sample

Without ``--model``, a word-level tokenizer is built on the spot (the
``tokenizers`` package, over the words of examples/corpus.py's grammar) and a
random 2-layer Llama over it: its text is random words, but every step of a
real model runs. ``--save DIR`` writes that model and tokenizer, loadable with
``--model DIR``. ``--mode``: defer (default), strict, or compile (defer with
the model's forward under ``torch.compile(backend="tpu")``).

Prompts are left-padded to a bucket (16, 32, 64, ... tokens) and the static
cache holds ``bucket + --max-new-tokens`` tokens; the first prompt of each
bucket warms it up (``generation.warm_up``: its programs are compiled then),
and every later prompt of the bucket compiles nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import OBJECTS, PLACES, SUBJECTS, VERBS  # noqa: E402

import torchtpu  # noqa: E402
from torchtpu import generation  # noqa: E402

DEFAULT_PROMPTS = [
    "the cat sees",
    "my sister paints the quiet river in the garden and",
    "a small bird",
    "the robot carries a long letter by the sea after lunch . the cook remembers",
]


def build_tokenizer() -> Any:
    """A word-level tokenizer over the corpus grammar's words (built, not downloaded)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = sorted({w for phrase in SUBJECTS + VERBS + OBJECTS + PLACES for w in phrase.split()})
    specials = ["<pad>", "<unk>", "<s>", "</s>"]
    vocab = {t: i for i, t in enumerate(specials + words + [".", ","])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
    )


def build_model(tokenizer: Any, hidden: int) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 11 // 4,
        num_hidden_layers=2,
        num_attention_heads=max(1, hidden // 32),
        num_key_value_heads=max(1, hidden // 64),
        max_position_embeddings=1024,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return LlamaForCausalLM(config).eval()


def load(model_dir: str | None, hidden: int) -> tuple[Any, Any]:
    if model_dir is None:
        tokenizer = build_tokenizer()
        return tokenizer, build_model(tokenizer, hidden)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        model_dir, local_files_only=True, dtype=torch.float32
    )
    return tokenizer, model.eval()


class Progress:
    """A transformers streamer (``put``/``end``): a progress line per prompt,
    and when the first new token arrived."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show = total, show
        self.start = time.perf_counter()
        self.first: float | None = None
        self.count = 0
        self._prompt_seen = False

    def put(self, value: torch.Tensor) -> None:
        if not self._prompt_seen:  # generate() hands the prompt over first
            self._prompt_seen = True
            return
        now = time.perf_counter()
        if self.first is None:
            self.first = now - self.start
        self.count += 1
        if self.show:
            rate = self.count / max(now - self.start, 1e-9)
            bar = "#" * (20 * self.count // self.total)
            print(f"\r  [{bar:<20}] {self.count}/{self.total} tokens, {rate:7.1f} tok/s", end="")

    def end(self) -> None:
        if self.show:
            print("\r" + " " * 60 + "\r", end="")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--model", help="a local checkpoint directory (transformers format)")
    parser.add_argument("--mode", choices=["defer", "strict", "compile"], default="defer")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--sample", action="store_true", help="top-k/top-p sampling, seeded")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=128, help="the random model's hidden size")
    parser.add_argument("--save", help="write the random model and its tokenizer here")
    parser.add_argument("--prompt", action="append", help="a prompt (repeatable)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args()

    tokenizer, model = load(args.model, args.hidden)
    if args.save:
        model.save_pretrained(args.save)
        tokenizer.save_pretrained(args.save)
        print(f"saved the model and tokenizer to {args.save}")
    torchtpu.set_mode("defer" if args.mode == "compile" else args.mode)
    model = model.to("tpu")
    if args.mode == "compile":
        model.forward = torch.compile(model.forward, backend="tpu")
    options: dict[str, Any] = {"do_sample": False}
    if args.sample:
        options = {"do_sample": True, "top_k": 50, "top_p": 0.95, "temperature": 0.8}
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    n = args.max_new_tokens
    print(
        f"model: {args.model or 'random Llama (built here)'}, "
        f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters; "
        f"device tpu ({torchtpu.info().platform}), mode {args.mode}; {n} new tokens per prompt"
    )

    warmed: set[int] = set()
    latencies: list[float] = []
    rates: list[float] = []
    total_tokens, total_time = 0, 0.0
    for text in args.prompt or DEFAULT_PROMPTS:
        ids = tokenizer(text, return_tensors="pt").input_ids
        bucket = generation.bucket_for(ids.shape[1])
        if bucket not in warmed:
            t0 = time.perf_counter()
            c0 = torchtpu.metrics.counters()
            rounds = generation.warm_up(
                model, bucket, n, pad_token_id=pad, streamer=Progress(n, show=False), **options
            )
            c1 = torchtpu.metrics.counters()
            print(
                f"warm-up of bucket {bucket}: {time.perf_counter() - t0:.1f} s, "
                f"{c1['compiles'] - c0['compiles']} compiles "
                f"({generation.new_programs(c0, c1)} programs; per round {rounds})"
            )
            warmed.add(bucket)
        print(f"> {text}")
        progress = Progress(n, show=not args.quiet and sys.stdout.isatty())
        c0 = torchtpu.metrics.counters()
        torch.manual_seed(args.seed)
        with torch.no_grad():
            out = generation.generate(
                model, ids, max_new_tokens=n, pad_token_id=pad, streamer=progress, **options
            )
        new = out.cpu()[0, bucket:]
        elapsed = time.perf_counter() - progress.start
        c1 = torchtpu.metrics.counters()
        total_tokens += new.numel()
        total_time += elapsed
        latencies.append(progress.first or elapsed)
        rates.append(new.numel() / elapsed)
        print(f"  {tokenizer.decode(new, skip_special_tokens=True)}")
        print(
            f"  {new.numel()} tokens in {elapsed * 1e3:.0f} ms "
            f"({new.numel() / elapsed:.1f} tok/s), "
            f"first token after {(progress.first or elapsed) * 1e3:.1f} ms, "
            f"{generation.new_programs(c0, c1)} new programs"
        )

    print(
        f"\n{total_tokens} tokens in {total_time:.2f} s: {total_tokens / total_time:.1f} tok/s; "
        f"first-token latency median {statistics.median(latencies) * 1e3:.1f} ms"
    )
    print(torchtpu.metrics.report())


if __name__ == "__main__":
    main()
