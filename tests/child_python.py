"""Python code run in a fresh interpreter, for tests that need a process of
their own: registration from nothing, environment variables read at import,
a memory limit that must not reach the test session."""

from __future__ import annotations

import os
import subprocess
import sys


def run_python(code: str, timeout: int, **env: str) -> subprocess.CompletedProcess[str]:
    """Runs `code` with this environment plus `env`; returns its exit status
    and output."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# The start of a child whose over-large allocations fail without touching the
# machine's memory: the CPU plugin has no memory limit of its own, so the
# child limits its address space. The limit is 5 GiB above what torch,
# torchtpu and the plugin have mapped once started (about 1.4 GiB with the CPU
# build of torch, 3.9 GiB with a CUDA build, which maps its CUDA libraries).
ADDRESS_SPACE_LIMIT = """
import resource
import torch, torchtpu
torch.ones(1, device="tpu").cpu()
with open("/proc/self/status") as f:
    mapped = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
limit = mapped + 5 * 2**30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
"""
