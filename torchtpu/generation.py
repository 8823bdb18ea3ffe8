"""Hugging Face ``generate()`` on "tpu" with a fixed set of programs.

XLA programs have static shapes. ``generate()`` grows its token, attention-mask
and position tensors by one column per new token, and sizes its static KV cache
by the prompt's length plus ``max_new_tokens``, so every new prompt length and
every new ``max_new_tokens`` gives new shapes, hence new programs. The recipe
here keeps the shapes within a small set, using transformers' public API only:

- **Prompt-length buckets.** Prompts are left-padded (with an attention mask)
  to the smallest bucket that holds them (``bucket_for``, ``pad_prompts``):
  a prompt of 5 tokens and one of 12 both run as 16.
- **A fixed cache length per bucket.** The static KV cache holds
  ``bucket + max_new_tokens`` tokens, where ``max_new_tokens`` is the bucket's
  ceiling, not the call's (``static_cache_kwargs``). The cache is passed to
  ``generate`` as ``past_key_values``, created on the device beforehand
  (``StaticCache.early_initialization``), so that a compiled prefill never
  creates it inside its graph.
- **A warm-up per (batch size, bucket)** (``warm_up``): ``generate`` at the
  ceiling ``max_new_tokens``, with and without padding. Every step's shapes of
  any later call with ``max_new_tokens`` up to the ceiling were then seen once:
  such a call compiles nothing.

``generate`` (this module's) does all of it for one call::

    from torchtpu import generation

    generation.warm_up(model, bucket=32, max_new_tokens=64)          # once
    out = generation.generate(model, prompts, max_new_tokens=20, max_new_tokens_ceiling=64)

transformers itself compiles the forward of a static-cache decode step with
``torch.compile(backend="tpu")`` on "tpu" (``GenerationConfig.disable_compile``
turns that off). Nothing here patches transformers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from transformers import StaticCache

__all__ = [
    "DEFAULT_BUCKETS",
    "bucket_for",
    "generate",
    "new_programs",
    "pad_prompts",
    "static_cache",
    "static_cache_kwargs",
    "warm_up",
]

# Prompt-length buckets: powers of two from 16. A prompt of n tokens runs as the
# smallest bucket >= n; longer than the largest raises.
DEFAULT_BUCKETS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)

Prompts = torch.Tensor | Sequence[Sequence[int] | torch.Tensor]


def bucket_for(length: int, buckets: Sequence[int] = DEFAULT_BUCKETS) -> int:
    """The smallest bucket that holds a prompt of ``length`` tokens."""
    if length < 1:
        raise ValueError(f"a prompt needs at least one token, got length {length}")
    for b in sorted(buckets):
        if length <= b:
            return int(b)
    raise ValueError(
        f"a prompt of {length} tokens is longer than the largest bucket ({max(buckets)})"
    )


def _rows(prompts: Prompts, attention_mask: torch.Tensor | None) -> list[torch.Tensor]:
    """Each prompt's real tokens, as a 1-D int64 CPU tensor."""
    if isinstance(prompts, torch.Tensor):
        ids = prompts.detach().cpu()
        if ids.dim() == 1:
            ids = ids[None]
        if ids.dim() != 2:
            raise ValueError(f"input_ids must be 1-D or 2-D, got shape {tuple(prompts.shape)}")
        if attention_mask is None:
            return [row.long() for row in ids]
        mask = attention_mask.detach().cpu()
        if mask.dim() == 1:
            mask = mask[None]
        if mask.shape != ids.shape:
            raise ValueError(
                f"attention_mask has shape {tuple(mask.shape)}, input_ids {tuple(ids.shape)}"
            )
        return [row[m.bool()].long() for row, m in zip(ids, mask, strict=True)]
    if attention_mask is not None:
        raise ValueError("attention_mask goes with a 2-D input_ids tensor, not a list of prompts")
    return [torch.as_tensor(p, dtype=torch.long).detach().cpu().reshape(-1) for p in prompts]


def pad_prompts(
    prompts: Prompts,
    attention_mask: torch.Tensor | None = None,
    *,
    pad_token_id: int = 0,
    buckets: Sequence[int] = DEFAULT_BUCKETS,
    length: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Left-pads prompts to one bucket's length.

    ``prompts`` is a 2-D ``input_ids`` tensor (its ``attention_mask`` says which
    tokens are real, wherever the padding is: left, right or none) or a list of
    token sequences of any lengths. Returns ``(input_ids, attention_mask)``, both
    int64 ``[batch, length]`` on the CPU, each row's tokens at the right end;
    ``length`` defaults to the bucket of the longest prompt.
    """
    rows = _rows(prompts, attention_mask)
    if not rows:
        raise ValueError("no prompts")
    longest = max(len(r) for r in rows)
    if length is None:
        length = bucket_for(longest, buckets)
    elif length < longest:
        raise ValueError(f"length {length} is shorter than the longest prompt ({longest} tokens)")
    if min(len(r) for r in rows) < 1:
        raise ValueError("a prompt needs at least one token")
    ids = torch.full((len(rows), length), pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(rows), length), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, length - len(r) :] = r
        mask[i, length - len(r) :] = 1
    return ids, mask


def _head_shapes(config: Any) -> tuple[int | list[int], int | list[int]]:
    """Per layer (or one for all): key/value heads and head size, as
    transformers' own static-cache initialization reads them."""
    layers = getattr(config, "per_layer_config", None) or [config]
    heads = [getattr(c, "num_key_value_heads", None) or c.num_attention_heads for c in layers]
    dims = [getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads for c in layers]
    return (
        heads[0] if len(set(heads)) == 1 else heads,
        dims[0] if len(set(dims)) == 1 else dims,
    )


def static_cache(model: Any, batch_size: int, max_cache_len: int) -> StaticCache:
    """A ``transformers.StaticCache`` of ``max_cache_len`` tokens for ``batch_size``
    sequences, already allocated on the model's device and dtype (zeros).

    Allocated here rather than by the first forward so that a prefill under
    ``torch.compile`` does not create the cache inside its graph (such a graph
    reads a CPU tensor and runs op by op)."""
    from transformers import StaticCache

    config = model.config.get_text_config(decoder=True)
    cache = StaticCache(config=config, max_cache_len=max_cache_len)
    heads, dims = _head_shapes(config)
    cache.early_initialization(
        batch_size=batch_size,
        num_heads=heads,
        head_dim=dims,
        dtype=model.dtype,
        device=model.device,
    )
    return cache


def static_cache_kwargs(model: Any, input_ids: torch.Tensor, max_new_tokens: int) -> dict[str, Any]:
    """``generate()`` keyword arguments for a static KV cache sized for
    ``input_ids`` (already padded to its bucket) and ``max_new_tokens`` new tokens.

    Pass the bucket's ceiling as ``max_new_tokens`` (the largest any call of the
    bucket asks for), not the call's own: the cache's length is part of every
    program's shapes, so calls that ask for fewer tokens then reuse the programs.
    """
    batch, length = input_ids.shape
    return {"past_key_values": static_cache(model, int(batch), int(length) + int(max_new_tokens))}


def _pad_token_id(model: Any, pad_token_id: int | None) -> int:
    if pad_token_id is not None:
        return pad_token_id
    gc = getattr(model, "generation_config", None)
    for candidate in (getattr(gc, "pad_token_id", None), getattr(gc, "eos_token_id", None)):
        if isinstance(candidate, list | tuple):
            candidate = candidate[0] if candidate else None
        if candidate is not None:
            return int(candidate)
    return 0


def generate(
    model: Any,
    prompts: Prompts,
    attention_mask: torch.Tensor | None = None,
    *,
    max_new_tokens: int,
    max_new_tokens_ceiling: int | None = None,
    buckets: Sequence[int] = DEFAULT_BUCKETS,
    pad_token_id: int | None = None,
    **generate_kwargs: Any,
) -> Any:
    """``model.generate`` with the bucket recipe: prompts left-padded to their
    bucket, a static cache of ``bucket + max_new_tokens_ceiling`` tokens
    (default: ``max_new_tokens``) on the model's device.

    Returns what ``model.generate`` returns: the padded prompts followed by the
    new tokens, on the model's device (``out[:, padded_length:]`` are the new
    tokens; each row's prompt is right-aligned at ``padded_length``).
    """
    ceiling = max_new_tokens if max_new_tokens_ceiling is None else max_new_tokens_ceiling
    if max_new_tokens > ceiling:
        raise ValueError(
            f"max_new_tokens={max_new_tokens} is over max_new_tokens_ceiling={ceiling}"
        )
    pad = _pad_token_id(model, pad_token_id)
    ids, mask = pad_prompts(prompts, attention_mask, pad_token_id=pad, buckets=buckets)
    device = model.device
    return model.generate(
        ids.to(device),
        attention_mask=mask.to(device),
        max_new_tokens=max_new_tokens,
        pad_token_id=pad,
        **static_cache_kwargs(model, ids, ceiling),
        **generate_kwargs,
    )


def new_programs(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Programs built between two ``torchtpu.metrics.counters()`` snapshots:
    compiled, loaded from the disk cache, or captured graphs."""
    return sum(after[k] - before[k] for k in ("compiles", "disk_cache_hits", "graphs_compiled"))


def warm_up(
    model: Any,
    bucket: int,
    max_new_tokens: int,
    *,
    batch_size: int = 1,
    pad_token_id: int | None = None,
    max_rounds: int = 4,
    **generate_kwargs: Any,
) -> list[int]:
    """Builds the programs of one (batch size, bucket) for calls of up to
    ``max_new_tokens`` new tokens, so that such calls compile nothing.

    A round is four ``generate`` calls on random prompts: one new token, then
    ``max_new_tokens``, each with prompts that fill the bucket and prompts one
    token shorter (padded: another attention mask, other prefill programs). The
    one-token calls come first because their stopping flag is already True: in
    defer mode a Python number that changes between runs becomes a program
    input after one recompile of each program that had it as a constant, and
    the flag, False until the last step, would otherwise recompile every step
    of the next call. A call that an end-of-sequence token stopped early is
    tried again with other prompts. Rounds repeat until one builds no program
    (the second, in the cases measured). Pass the generation options the real
    calls use (``do_sample``, ``top_k``, ``eos_token_id``, a ``streamer``, ...):
    they choose other programs. Returns the number of programs built per round.
    """
    from torchtpu import metrics

    vocab = int(model.config.get_text_config(decoder=True).vocab_size)
    pad = _pad_token_id(model, pad_token_id)
    counts: list[int] = []
    g = torch.Generator().manual_seed(0)
    for _ in range(max_rounds):
        before = metrics.counters()
        for length, new in (
            (bucket, 1),
            (max(1, bucket - 1), 1),
            (bucket, max_new_tokens),
            (max(1, bucket - 1), max_new_tokens),
        ):
            for _attempt in range(8):
                tokens = torch.randint(0, vocab, (batch_size, length), generator=g)
                with torch.no_grad():
                    out = generate(
                        model,
                        list(tokens),
                        max_new_tokens=new,
                        max_new_tokens_ceiling=max_new_tokens,
                        buckets=(bucket,),
                        pad_token_id=pad,
                        **generate_kwargs,
                    )
                out.cpu()  # as callers read it (a copy's program)
                if out.shape[1] == bucket + new:
                    break
        counts.append(new_programs(before, metrics.counters()))
        if counts[-1] == 0:
            break
    return counts
