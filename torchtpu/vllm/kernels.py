"""vLLM's Triton kernels on the decoder path, rewritten in PyTorch ops so they
run on "tpu" (registered through vLLM's kernel-override registry, which is how
a platform replaces a Triton kernel of vLLM's core).

Written against vLLM 0.32.0: each function takes the arguments of the kernel
it replaces, in the kernel's order and under its names.
"""

from __future__ import annotations

import torch

from torchtpu.vllm import vllm_import_error


def compute_slot_mapping(
    num_tokens: int,
    max_num_tokens: int,
    query_start_loc_ptr: torch.Tensor,
    positions_ptr: torch.Tensor,
    block_table_ptr: torch.Tensor,
    block_table_stride: int,
    slot_mapping_ptr: torch.Tensor,
    KV_CACHE_BLOCK_SIZE: int,  # noqa: N803 - the kernel's names
    TOTAL_CP_WORLD_SIZE: int = 1,  # noqa: N803
    TOTAL_CP_RANK: int = 0,  # noqa: N803
    CP_KV_CACHE_INTERLEAVE_SIZE: int = 1,  # noqa: N803
    PAD_ID: int = -1,  # noqa: N803
    BLOCK_SIZE: int = 1024,  # noqa: N803
) -> None:
    """``vllm.v1.worker.block_table.ComputeSlotMappingKernel.kernel``: the KV cache
    slot of each scheduled token (its request's block for its position, times the
    block size, plus the offset in the block); slots past ``num_tokens`` up to
    ``max_num_tokens`` get ``PAD_ID``. No context parallelism."""
    if TOTAL_CP_WORLD_SIZE != 1:
        raise NotImplementedError("context parallelism is not supported on torchtpu")
    n = int(num_tokens)
    block_size = int(KV_CACHE_BLOCK_SIZE)
    device = positions_ptr.device
    # The request of each token: how many requests end at or before it.
    ends = query_start_loc_ptr[1:].to(torch.long)
    token = torch.arange(n, device=device)
    request = (token[:, None] >= ends[None, :]).sum(1)
    position = positions_ptr[:n].to(torch.long)
    table = block_table_ptr.view(-1, block_table_stride)
    block = table[request, position // block_size].to(torch.long)
    slot_mapping_ptr[:n] = block * block_size + position % block_size
    if max_num_tokens > n:
        slot_mapping_ptr[n:max_num_tokens] = PAD_ID


def register() -> None:
    """Installs the replacements (vLLM calls this through its platform's
    ``register_triton_kernel_overrides``, in each worker)."""
    try:  # vLLM 0.32.0
        from vllm.triton_utils.dispatcher import register_kernels
    except ImportError as e:
        raise vllm_import_error(e) from e

    register_kernels(
        {"vllm.v1.worker.block_table.ComputeSlotMappingKernel.kernel": compute_slot_mapping}
    )
