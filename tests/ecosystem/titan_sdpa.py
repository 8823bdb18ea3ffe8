"""TorchTitan's own override mechanism (``--override.imports
titan_sdpa.sdpa_attention``): the debug model's FlexAttention becomes
TorchTitan's ``ScaledDotProductAttention``. FlexAttention runs only through
Inductor's kernels for CUDA and the CPU (it refuses other devices, and its
CPU kernel has no backward); the CPU reference takes the same override, so
both runs compute the same model."""

from __future__ import annotations

from torchtitan.config.override import override
from torchtitan.models.common.attention import FlexAttention, ScaledDotProductAttention


@override(target=FlexAttention.Config, description="SDPA instead of FlexAttention")
def sdpa_attention(cfg: FlexAttention.Config) -> ScaledDotProductAttention.Config:
    del cfg
    return ScaledDotProductAttention.Config()
