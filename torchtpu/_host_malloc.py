"""Host malloc settings for the CPU plugin, whose device memory is the host's heap.

The XLA CPU plugin allocates every device buffer (a program's outputs and its
temporaries) with the host's malloc and frees it when the buffer dies. With
glibc's defaults, buffers above 128 KiB are mapped fresh from the kernel (or
the heap's free top is given back to it) and every page of them faults in,
zero-filled, at its first write: a training step of the GPT-style benchmark
model (batch 8) took about 170 page faults in defer mode and 1,500 in strict
mode, and ran 15% (strict 23%) faster without them. Raising malloc's mmap
and trim thresholds keeps freed buffers in the heap for the next program run,
which is what a device allocator's cache does on an accelerator.

The settings are process-wide, so they are only made for the CPU plugin, only
on glibc, and never over the user's own (``GLIBC_TUNABLES`` naming malloc, or
``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_``).
``TORCHTPU_HOST_MALLOC=0`` leaves malloc alone.
"""

from __future__ import annotations

import ctypes
import os
import platform

ENV = "TORCHTPU_HOST_MALLOC"
# mallopt's parameter numbers (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Buffers up to this size come from the heap (glibc's largest dynamic mmap
# threshold on 64-bit hosts: larger ones are mapped as before) ...
MMAP_THRESHOLD = 32 << 20
# ... and up to this much free memory at the heap's top stays for reuse.
TRIM_THRESHOLD = 256 << 20

_applied: bool | None = None


def _user_set() -> bool:
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return "glibc.malloc." in tunables or any(
        v in os.environ for v in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
    )


def tune() -> bool:
    """Applies the settings once per process; says whether they are in effect."""
    global _applied
    if _applied is None:
        _applied = False
        if (
            os.environ.get(ENV, "1") != "0"
            and not _user_set()
            and platform.libc_ver()[0] == "glibc"
        ):
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):
                return False
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            mallopt.restype = ctypes.c_int
            _applied = bool(
                mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
            )
    return _applied


def applied() -> bool:
    """Whether this process runs with the settings (False before the runtime starts)."""
    return bool(_applied)
