"""The vLLM worker on "tpu": vLLM's GPU worker and its V1 model runner, with
the steps that are CUDA-specific there replaced.

Written against vLLM 0.32.0's ``vllm.v1.worker.gpu_worker.Worker``. What
differs from it:

- ``init_device`` picks ``tpu:<local_rank>`` (the base class accepts only
  CUDA devices) and skips the CUDA memory snapshot;
- the KV cache gets ``kv_cache_memory_bytes`` (an engine argument) or
  :data:`DEFAULT_KV_CACHE_BYTES`, not what a profiling run leaves free of
  ``gpu_memory_utilization`` (torchtpu keeps no allocator pool to measure, and
  on the XLA CPU plugin the device's memory is the host's);
- no warm-up run and no CUDA graph capture: torchtpu compiles each op's program
  at its first call (and caches it on disk);
- no memory pool (vLLM's cumem allocator, for sleep mode, is CUDA's).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

import torch

from torchtpu.vllm import LOGGER, vllm_import_error

try:  # vLLM 0.32.0
    from vllm.logger import init_logger
    from vllm.platforms import current_platform
    from vllm.utils.torch_utils import set_random_seed
    from vllm.v1.worker.gpu_worker import Worker, init_worker_distributed_environment
    from vllm.v1.worker.worker_base import CompilationTimes
except ImportError as e:
    raise vllm_import_error(e) from e

logger = init_logger(LOGGER)

#: The KV cache's size where ``kv_cache_memory_bytes`` is not given.
DEFAULT_KV_CACHE_BYTES = 256 << 20


class TorchTPUWorker(Worker):
    """One engine worker on one tpu device."""

    def init_device(self) -> None:
        count = torch.tpu.device_count()
        if self.local_rank >= count:
            raise RuntimeError(f"vLLM worker {self.local_rank}: only {count} tpu device(s)")
        self.device = torch.device(f"tpu:{self.local_rank}")
        torch.tpu.set_device(self.device)
        init_worker_distributed_environment(
            self.vllm_config,
            self.rank,
            self.distributed_init_method,
            self.local_rank,
            current_platform.dist_backend,
        )
        set_random_seed(self.model_config.seed)
        self._init_workspace_and_model_runner()

    def determine_available_memory(self) -> int:
        size = self.cache_config.kv_cache_memory_bytes or DEFAULT_KV_CACHE_BYTES
        logger.info("torchtpu: %.1f MiB for the KV cache", size / (1 << 20))
        return size

    def compile_or_warm_up_model(self) -> CompilationTimes:
        set_random_seed(self.model_config.seed)
        return CompilationTimes(language_model=0.0, encoder=0.0)

    def _maybe_get_memory_pool_context(self, tag: str) -> AbstractContextManager[None]:
        # The base class takes vLLM's cumem allocator on every platform that is
        # not CUDA, XPU or CPU.
        return nullcontext()
