"""Paged attention for vLLM on "tpu", in plain PyTorch ops (no vLLM CUDA ops).

vLLM keeps each layer's keys and values in a paged KV cache and gives the
attention backend, every step, the tokens it schedules: for each request a
run of queries (a prompt, a chunk of one, or one decode token) and the table
of cache blocks that hold the request's earlier tokens. This backend writes
the step's keys and values into their slots, then, request by request, gathers
the request's blocks and runs ``scaled_dot_product_attention`` with a causal
mask. That is correct for prefill, chunked prefill and decode alike, and slow:
one attention per request per layer, and a new program to compile for each new
(query length, number of blocks) pair. Decoder self-attention only: no sliding
window, ALiBi, logit soft-capping or quantized KV cache.

The cache of each layer has vLLM's logical shape ``[num_blocks, num_kv_heads,
block_size, 2 * head_size]`` (layout LBHNC), viewed as ``[num_blocks,
num_kv_heads, 2 * block_size, head_size]`` and split in two along dim 2: keys,
then values (the convention of vLLM's CPU backend).

Written against vLLM 0.32.0's ``vllm.v1.attention.backend`` interfaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
import torch.nn.functional as F

from torchtpu.vllm import vllm_import_error

try:  # vLLM 0.32.0
    from vllm.config import VllmConfig
    from vllm.v1.attention.backend import (
        AttentionBackend,
        AttentionImpl,
        AttentionMetadataBuilder,
        AttentionType,
        CommonAttentionMetadata,
        MultipleOf,
    )
    from vllm.v1.kv_cache_interface import AttentionSpec
    from vllm.v1.kv_cache_layout import KVCacheLayout
except ImportError as e:
    raise vllm_import_error(e) from e


class TorchTPUAttentionBackend(AttentionBackend):
    """vLLM's description of this backend: names its metadata builder and
    implementation, and what it supports."""

    # vLLM writes the step's keys and values first (do_kv_cache_update), then
    # calls forward.
    forward_includes_kv_cache_update: bool = False
    supported_dtypes: ClassVar[list[torch.dtype]] = [torch.float32, torch.bfloat16, torch.float16]
    supported_kv_cache_dtypes: ClassVar[list[Any]] = ["auto"]

    @staticmethod
    def get_name() -> str:
        return "CUSTOM"

    @staticmethod
    def get_supported_kernel_block_sizes(kv_cache_spec: Any = None) -> list[int | MultipleOf]:
        return [MultipleOf(16)]

    @classmethod
    def supported_kv_cache_layouts(cls) -> tuple[KVCacheLayout, ...]:
        return (KVCacheLayout.LBHNC,)

    @classmethod
    def supports_attn_type(cls, attn_type: str) -> bool:
        return attn_type == AttentionType.DECODER

    @staticmethod
    def get_impl_cls() -> type[TorchTPUAttentionImpl]:
        return TorchTPUAttentionImpl

    @staticmethod
    def get_builder_cls() -> type[TorchTPUAttentionMetadataBuilder]:
        return TorchTPUAttentionMetadataBuilder


@dataclass
class RequestSlice:
    """One request's part of a step: its queries and the cache they attend to."""

    query_start: int  # its first query's row in the step's tokens
    query_end: int
    blocks: torch.Tensor  # [num_blocks] long, on "tpu": the blocks holding its tokens
    mask: torch.Tensor  # [query_len, num_blocks * block_size] bool, on "tpu": may attend


@dataclass
class TorchTPUAttentionMetadata:
    """What every layer's attention needs for one step (built once per step)."""

    num_actual_tokens: int
    requests: list[RequestSlice]
    slot_mapping: torch.Tensor  # [num_actual_tokens], the cache slot of each token


class TorchTPUAttentionMetadataBuilder(AttentionMetadataBuilder[TorchTPUAttentionMetadata]):
    """Turns vLLM's per-step metadata into per-request slices, on the host: the
    query lengths and sequence lengths are known there, so each layer's
    attention needs no device-to-host read."""

    def __init__(
        self,
        kv_cache_spec: AttentionSpec,
        layer_names: list[str],
        vllm_config: VllmConfig,
        device: torch.device,
    ) -> None:
        super().__init__(kv_cache_spec, layer_names, vllm_config, device)
        self.block_size = kv_cache_spec.block_size

    def build(
        self,
        common_prefix_len: int,
        common_attn_metadata: CommonAttentionMetadata,
        fast_build: bool = False,
    ) -> TorchTPUAttentionMetadata:
        m = common_attn_metadata
        n = m.num_reqs
        query_start_loc = m.query_start_loc_cpu[: n + 1].tolist()
        # Exact without speculative decoding and async scheduling (both off here).
        seq_lens_cpu = m.seq_lens_cpu_upper_bound
        seq_lens = (seq_lens_cpu if seq_lens_cpu is not None else m.seq_lens.cpu())[:n].tolist()
        requests = []
        for i, seq_len in enumerate(seq_lens):
            start, end = query_start_loc[i], query_start_loc[i + 1]
            if end == start:
                continue
            num_blocks = -(-seq_len // self.block_size)
            # Query j sits at position seq_len - query_len + j; it sees keys at
            # positions up to its own (the padding past seq_len is never seen).
            query_pos = torch.arange(seq_len - (end - start), seq_len)
            key_pos = torch.arange(num_blocks * self.block_size)
            mask = key_pos[None, :] <= query_pos[:, None]
            requests.append(
                RequestSlice(
                    query_start=start,
                    query_end=end,
                    blocks=m.block_table_tensor[i, :num_blocks].to(torch.long),
                    mask=mask.to(self.device),
                )
            )
        return TorchTPUAttentionMetadata(
            num_actual_tokens=m.num_actual_tokens,
            requests=requests,
            slot_mapping=m.slot_mapping[: m.num_actual_tokens],
        )


def split_kv_cache(kv_cache: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A layer's cache as its keys and its values, each ``[num_blocks,
    num_kv_heads, block_size, head_size]`` (views)."""
    num_blocks, num_kv_heads, block_size, _ = kv_cache.shape
    keys, values = kv_cache.view(num_blocks, num_kv_heads, 2 * block_size, -1).chunk(2, dim=2)
    return keys, values


class TorchTPUAttentionImpl(AttentionImpl):
    """One attention layer's cache write and attention."""

    def __init__(
        self,
        num_heads: int,
        head_size: int,
        scale: float,
        num_kv_heads: int | None = None,
        alibi_slopes: list[float] | None = None,
        sliding_window: int | None = None,
        kv_cache_dtype: str = "auto",
        logits_soft_cap: float | None = None,
        attn_type: str = AttentionType.DECODER,
        kv_sharing_target_layer_name: str | None = None,
        **kwargs: Any,
    ) -> None:
        unsupported = [
            name
            for name, used in (
                ("ALiBi", alibi_slopes is not None),
                ("sliding-window attention", sliding_window is not None),
                ("logit soft-capping", bool(logits_soft_cap)),
                (f"attention type {attn_type!r}", attn_type != AttentionType.DECODER),
                (f"KV cache dtype {kv_cache_dtype!r}", kv_cache_dtype != "auto"),
            )
            if used
        ]
        if unsupported:
            raise NotImplementedError(
                "torchtpu's vLLM attention does not support " + ", ".join(unsupported)
            )
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = float(scale)
        self.num_kv_heads = num_kv_heads or num_heads
        self.kv_cache_dtype = kv_cache_dtype
        self.attn_type = attn_type
        self.kv_sharing_target_layer_name = kv_sharing_target_layer_name

    def do_kv_cache_update(
        self,
        layer: torch.nn.Module,
        key: torch.Tensor,
        value: torch.Tensor,
        kv_cache: torch.Tensor,
        slot_mapping: torch.Tensor,
    ) -> None:
        """Writes the step's keys and values ``[tokens, num_kv_heads, head_size]``
        into their cache slots."""
        keys, values = split_kv_cache(kv_cache)
        block_size = keys.shape[2]
        tokens = slot_mapping.shape[0]
        slots = slot_mapping.to(torch.long)
        block, offset = slots // block_size, slots % block_size
        keys[block, :, offset] = key[:tokens].to(keys.dtype)
        values[block, :, offset] = value[:tokens].to(values.dtype)

    def forward(
        self,
        layer: torch.nn.Module,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        kv_cache: torch.Tensor,
        attn_metadata: TorchTPUAttentionMetadata | None,
        output: torch.Tensor,
        output_scale: torch.Tensor | None = None,
        output_block_scale: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Attention of the step's queries ``[tokens, num_heads * head_size]``,
        written into ``output`` (same shape)."""
        if attn_metadata is None:  # vLLM's profiling and dummy runs
            return output
        keys, values = split_kv_cache(kv_cache)
        block_size = keys.shape[2]
        out = output.view(-1, self.num_heads, self.head_size)
        queries = query.view(-1, self.num_heads, self.head_size)
        group = self.num_heads // self.num_kv_heads
        for r in attn_metadata.requests:
            length = r.blocks.shape[0] * block_size
            # [blocks, kv_heads, block_size, head] -> [kv_heads, blocks * block_size, head]
            k = keys[r.blocks].transpose(0, 1).reshape(self.num_kv_heads, length, -1)
            v = values[r.blocks].transpose(0, 1).reshape(self.num_kv_heads, length, -1)
            if group > 1:
                k = k.repeat_interleave(group, dim=0)
                v = v.repeat_interleave(group, dim=0)
            q = queries[r.query_start : r.query_end].transpose(0, 1)  # [heads, queries, head]
            o = F.scaled_dot_product_attention(
                q, k.to(q.dtype), v.to(q.dtype), attn_mask=r.mask, scale=self.scale
            )
            out[r.query_start : r.query_end] = o.transpose(0, 1)
        return output
