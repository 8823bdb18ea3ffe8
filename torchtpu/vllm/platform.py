"""The vLLM platform class for torchtpu: what vLLM asks of a device platform
(its name, memory, seeds, which worker, attention backend and communicator to
use) and the engine configuration it forces (eager execution, no CUDA graphs,
no async scheduling, one device, no features this plugin does not implement).

Written against vLLM 0.32.0's ``vllm.platforms.interface.Platform``.

The parent process vLLM runs in may fork() its engine process, so nothing here
starts the PJRT client unless it already runs in this process: the device's
name and memory are asked of the plugin only where torchtpu is already started
(in the engine's worker, or a process that used "tpu" before).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import torch

import torchtpu
from torchtpu.vllm import LOGGER, vllm_import_error

try:  # vLLM 0.32.0
    from vllm.logger import init_logger
    from vllm.platforms.interface import Platform, PlatformEnum
except ImportError as e:
    raise vllm_import_error(e) from e

if TYPE_CHECKING:
    from vllm.config import VllmConfig

logger = init_logger(LOGGER)


def runtime_started() -> bool:
    """Whether this process has started torchtpu's runtime (the PJRT client)."""
    return bool(torchtpu._C._runtime_initialized())


class TorchTPUPlatform(Platform):
    """vLLM's view of torchtpu's "tpu" device (one device per engine)."""

    _enum = PlatformEnum.OOT
    device_name: str = "tpu"
    device_type: str = "tpu"
    # vLLM registers its custom ops (attention, KV cache update) for this key.
    dispatch_key: str = "PrivateUse1"
    # vLLM compiles a few small helper functions with this torch.compile backend;
    # "eager" keeps them as plain ops on "tpu".
    simple_compile_backend: str = "eager"
    # One device, so no collective ever runs; gloo gives vLLM the process groups
    # it creates at start-up without any device work.
    dist_backend: str = "gloo"
    supported_quantization: list[str] = []

    @property
    def supported_dtypes(self) -> list[torch.dtype]:
        # The first is what dtype="auto" gives a float32 checkpoint: kept as is.
        return [torch.float32, torch.bfloat16, torch.float16]

    @classmethod
    def import_kernels(cls) -> None:
        """vLLM's compiled ops (``vllm._C``) are CUDA ops: nothing to import."""

    @classmethod
    def register_triton_kernel_overrides(cls) -> None:
        from torchtpu.vllm import kernels

        kernels.register()

    @classmethod
    def get_device_name(cls, device_id: int = 0) -> str:
        if runtime_started():
            return torch.tpu.get_device_name(device_id)
        # Starting the runtime here would make the parent unsafe to fork.
        return f"tpu ({os.path.basename(torchtpu.resolve())}, not started in this process)"

    @classmethod
    def get_device_uuid(cls, device_id: int = 0) -> str:
        return f"torchtpu-{device_id}"

    @classmethod
    def get_device_total_memory(cls, device_id: int = 0) -> int:
        """The device's memory (the host's on the XLA CPU plugin). Raises where the
        runtime is not started in this process; vLLM's engine-argument defaults
        then take the values for a small device."""
        if not runtime_started():
            raise RuntimeError("the tpu runtime is not started in this process")
        return torch.tpu.mem_get_info(device_id)[1]

    @classmethod
    def set_device(cls, device: torch.device) -> None:
        torch.tpu.set_device(device)

    @classmethod
    def manual_seed_all(cls, seed: int) -> None:
        torch.tpu.manual_seed_all(seed)

    @classmethod
    def get_current_memory_usage(cls, device: torch.types.Device | None = None) -> float:
        return float(torch.tpu.memory_allocated(device))

    @classmethod
    def get_attn_backend_cls(
        cls, selected_backend: Any, attn_selector_config: Any, num_heads: int | None = None
    ) -> str:
        return "torchtpu.vllm.attention.TorchTPUAttentionBackend"

    @classmethod
    def get_punica_wrapper(cls) -> str:
        raise NotImplementedError("LoRA is not supported by torchtpu's vLLM platform")

    @classmethod
    def opaque_attention_op(cls) -> bool:
        # Attention runs as vLLM's one custom op per layer, its body in PyTorch ops.
        return True

    @classmethod
    def check_and_update_config(cls, vllm_config: VllmConfig) -> None:
        """Refuses what this plugin does not implement, and sets what it needs."""
        from vllm.config import CompilationMode
        from vllm.config.compilation import CUDAGraphMode

        _refuse_unsupported(vllm_config)

        # This plugin's worker builds vLLM's V1 model runner (the V2 runner is
        # chosen by default where Triton is installed, and needs its kernels).
        os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "0"
        # A PJRT client does not survive fork(): where this process has started the
        # runtime (it used "tpu" before it made the engine), the processes vLLM starts
        # from it must be spawned, as vLLM does where CUDA is initialized
        # (vllm.utils.system_utils._maybe_force_spawn, which knows only CUDA and XPU).
        # Otherwise vLLM's default, fork, is kept: nothing in vLLM's parent process
        # starts the runtime, not even this platform.
        if runtime_started() and os.environ.get("VLLM_WORKER_MULTIPROC_METHOD") != "spawn":
            logger.info(
                "torchtpu's runtime is started in this process: vLLM spawns, not forks, "
                "the processes it starts from here (VLLM_WORKER_MULTIPROC_METHOD=spawn)"
            )
            os.environ["VLLM_WORKER_MULTIPROC_METHOD"] = "spawn"

        parallel_config = vllm_config.parallel_config
        if parallel_config.worker_cls == "auto":
            parallel_config.worker_cls = "torchtpu.vllm.worker.TorchTPUWorker"
        # CUDA's custom all-reduce, and dual-batch overlap on CUDA streams.
        parallel_config.disable_custom_all_reduce = True
        parallel_config.enable_dbo = False

        cache_config = vllm_config.cache_config
        if not cache_config.user_specified_block_size:
            cache_config.block_size = 16  # the attention backend's multiple
        if cache_config.enable_prefix_caching:
            logger.info("torchtpu's vLLM platform: prefix caching is turned off")
            cache_config.enable_prefix_caching = False

        # Async scheduling overlaps steps on CUDA streams and events.
        vllm_config.scheduler_config.async_scheduling = False

        # Eager execution: every op runs on "tpu" through torchtpu's kernels.
        compilation_config = vllm_config.compilation_config
        compilation_config.mode = CompilationMode.NONE
        compilation_config.cudagraph_mode = CUDAGraphMode.NONE
        compilation_config.cudagraph_capture_sizes = []
        # The profiler's table of CUDA times (as vLLM's CPU platform does).
        vllm_config.profiler_config.torch_profiler_dump_cuda_time_total = False


def _refuse_unsupported(vllm_config: VllmConfig) -> None:
    """A clear error for each configured feature this plugin does not implement."""
    parallel = vllm_config.parallel_config
    refused = []
    if parallel.world_size > 1 or parallel.data_parallel_size > 1:
        refused.append(
            "more than one device (tensor_parallel_size, pipeline_parallel_size and "
            "data_parallel_size must be 1)"
        )
    if vllm_config.lora_config is not None:
        refused.append("LoRA")
    if vllm_config.speculative_config is not None:
        refused.append("speculative decoding")
    model_config = vllm_config.model_config
    if model_config is not None:
        if model_config.quantization is not None:
            refused.append(f"quantization ({model_config.quantization})")
        if model_config.is_multimodal_model:
            refused.append("multimodal models")
        if getattr(model_config.hf_text_config, "sliding_window", None):
            refused.append("sliding-window attention")
    if refused:
        raise ValueError(
            "torchtpu's vLLM platform does not support " + "; ".join(refused) + " (README, 'vLLM')"
        )
