"""The ``torch.tpu`` device module: what ``torch.cuda`` offers, for "tpu"."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

import torch

from torchtpu import _C, _plugin

_initialized = False


def _lazy_init() -> None:
    global _initialized
    _plugin.init()
    _initialized = True


def is_initialized() -> bool:
    return _initialized


def _is_in_bad_fork() -> bool:
    """True in a process forked after its parent started the tpu runtime: tpu
    ops raise there (a PJRT client does not survive fork()); use 'spawn'."""
    return bool(_C._forked_after_start())


def is_available() -> bool:
    try:
        _lazy_init()
    except RuntimeError:
        return False
    return _C._device_count() > 0


def device_count() -> int:
    try:
        _lazy_init()
    except RuntimeError:
        return 0
    return _C._device_count()


def current_device() -> int:
    _lazy_init()
    return _C._current_device()


def _index(device: Any) -> int:
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    d = torch.device(device)
    if d.type != "tpu":
        raise ValueError(f"expected a tpu device, got {d}")
    return d.index if d.index is not None else current_device()


def set_device(device: Any) -> None:
    _lazy_init()
    idx = _index(device)
    if idx >= 0:
        _C._set_device(idx)


class device:  # noqa: N801 - mirrors torch.cuda.device
    """Context manager that changes the current tpu device."""

    def __init__(self, device: Any) -> None:
        self.idx = _index(device)
        self.prev = -1

    def __enter__(self) -> None:
        self.prev = current_device()
        if self.idx >= 0 and self.idx != self.prev:
            _C._set_device(self.idx)

    def __exit__(self, *exc: object) -> None:
        if self.prev != self.idx:
            _C._set_device(self.prev)


def synchronize(device: Any = None) -> None:
    """Wait for all launched work on a device."""
    _lazy_init()
    _C._synchronize(_index(device))


def get_device_name(device: Any = None) -> str:
    """The device kind reported by the plugin, with its platform."""
    _lazy_init()
    c = _plugin.client()
    d = c.devices()[_index(device)]
    return f"{d.kind} ({c.platform_name} PJRT plugin)"


@dataclasses.dataclass(frozen=True)
class DeviceProperties:
    """What ``torch.tpu.get_device_properties`` reports (as torch.cuda's does)."""

    name: str
    platform: str
    id: int
    total_memory: int  # bytes (the host's on the XLA CPU plugin); 0 where unknown


def get_device_properties(device: Any = None) -> DeviceProperties:
    _lazy_init()
    c = _plugin.client()
    idx = _index(device)
    d = c.devices()[idx]
    stats = c.memory_stats(idx) or {}
    total = int(stats.get("bytes_limit", 0))
    if total == 0:
        # The XLA CPU plugin has no limit of its own: its memory is the host's
        # (mem_get_info's total), as libraries that size batches or report a
        # percentage of device memory (TorchTitan's memory monitor) expect.
        info = _C._mem_get_info(idx)
        total = int(info[1]) if info is not None else 0
    return DeviceProperties(name=d.kind, platform=c.platform_name, id=d.id, total_memory=total)


# ---- random numbers ----------------------------------------------------------


def manual_seed(seed: int) -> None:
    _lazy_init()
    _C._manual_seed(current_device(), int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def manual_seed_all(seed: int) -> None:
    _lazy_init()
    for i in range(device_count()):
        _C._manual_seed(i, int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def seed() -> None:
    _lazy_init()
    _C._seed(current_device())


def seed_all() -> None:
    _lazy_init()
    for i in range(device_count()):
        _C._seed(i)


def initial_seed() -> int:
    _lazy_init()
    return _C._initial_seed(current_device())


def get_rng_state(device: Any = "tpu") -> torch.Tensor:
    _lazy_init()
    return _C._get_rng_state(_index(device))


def get_rng_state_all() -> list[torch.Tensor]:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: torch.Tensor, device: Any = "tpu") -> None:
    _lazy_init()
    _C._set_rng_state(_index(device), new_state)


def set_rng_state_all(new_states: list[torch.Tensor]) -> None:
    for i, s in enumerate(new_states):
        set_rng_state(s, i)


def default_generator(device: Any = None) -> torch.Generator:
    _lazy_init()
    return _C._default_generator(_index(device))


# ---- memory -------------------------------------------------------------------


def _device_stats(device: Any) -> tuple[int, dict[str, int]]:
    """The device's index and torchtpu's own counts for it, after running the
    work recorded for it (in defer mode, results exist only once it runs)."""
    _lazy_init()
    idx = _index(device)
    _C._flush("memory stats", idx)
    return idx, _C._device_memory_stats(idx)


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live tpu arrays on ``device`` (default: the current one)."""
    return int(_device_stats(device)[1]["bytes"])


def max_memory_allocated(device: Any = None) -> int:
    """The peak of ``memory_allocated`` since the start or the last
    ``reset_peak_memory_stats``."""
    return int(_device_stats(device)[1]["peak_bytes"])


def memory_reserved(device: Any = None) -> int:
    """Bytes reserved for tensors on ``device``: torchtpu keeps no cache of freed
    buffers (the plugin frees a buffer when its last tensor goes), so this is
    ``memory_allocated``."""
    return memory_allocated(device)


def max_memory_reserved(device: Any = None) -> int:
    return max_memory_allocated(device)


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start counting the peaks (``max_memory_allocated``) from what is allocated now."""
    idx, _ = _device_stats(device)
    _C._reset_peak_device_memory(idx)
    _C._reset_peak_memory()


def reset_max_memory_allocated(device: Any = None) -> None:
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Zero the totals (allocated and freed bytes and arrays, out-of-memory errors)."""
    idx, _ = _device_stats(device)
    _C._reset_accumulated_device_memory(idx)


def empty_cache() -> None:
    """Release memory that freed tensors leave behind. Device buffers are freed
    when their last tensor goes; on the XLA CPU plugin, whose buffers are host
    mallocs that the heap keeps for reuse (see torchtpu/_host_malloc.py), the
    heap's free memory goes back to the system."""
    _C._release_freed_device_memory()  # nothing to do before the runtime starts


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of ``device``: from the plugin's limit, or on the XLA CPU
    plugin, whose device memory is the host's, the host's available and total
    memory; raises where neither is known."""
    idx, _ = _device_stats(device)
    info = _C._mem_get_info(idx)
    if info is None:
        raise RuntimeError(
            f"torch.tpu.mem_get_info: the plugin reports no memory limit for tpu:{idx}"
        )
    return int(info[0]), int(info[1])


def memory_stats(device: Any = None) -> dict[str, int]:
    """``torch.cuda.memory_stats``' keys for what torchtpu counts (arrays are its
    allocations; with no cache of freed buffers, reserved and active bytes are
    the allocated ones), plus the plugin's own statistics as ``plugin.*``."""
    idx, s = _device_stats(device)
    stats: dict[str, int] = {}
    for kind in ("allocated_bytes", "active_bytes", "reserved_bytes", "requested_bytes"):
        stats[f"{kind}.all.current"] = s["bytes"]
        stats[f"{kind}.all.peak"] = s["peak_bytes"]
        stats[f"{kind}.all.allocated"] = s["allocated_bytes"]
        stats[f"{kind}.all.freed"] = s["freed_bytes"]
    for kind in ("allocation", "active", "segment"):
        stats[f"{kind}.all.current"] = s["arrays"]
        stats[f"{kind}.all.peak"] = s["peak_arrays"]
        stats[f"{kind}.all.allocated"] = s["allocations"]
        stats[f"{kind}.all.freed"] = s["frees"]
    stats["num_ooms"] = s["out_of_memory"]
    stats["num_alloc_retries"] = 0
    stats["num_device_alloc"] = s["allocations"]
    stats["num_device_free"] = s["frees"]
    plugin_stats = _plugin.client().memory_stats(idx)
    if plugin_stats:
        stats.update({f"plugin.{k}": v for k, v in plugin_stats.items()})
    return dict(sorted(stats.items()))


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """A readable table of ``memory_stats`` (as ``torch.cuda.memory_summary``),
    with the largest arrays alive on the device."""
    idx, s = _device_stats(device)
    rows = [
        ("Allocated memory", "bytes", True),
        ("Allocations", "arrays", False),
    ]
    lines = [
        f"torchtpu memory summary, device tpu:{idx}",
        f"{'':<20}{'current':>14}{'peak':>14}{'allocated':>14}{'freed':>14}",
    ]
    for label, key, is_bytes in rows:
        cur, peak = s[key], s["peak_" + key]
        alloc = s["allocated_bytes"] if is_bytes else s["allocations"]
        freed = s["freed_bytes"] if is_bytes else s["frees"]
        fmt = _human if is_bytes else str
        lines.append(f"{label:<20}{fmt(cur):>14}{fmt(peak):>14}{fmt(alloc):>14}{fmt(freed):>14}")
    lines.append(f"Out-of-memory errors: {s['out_of_memory']}")
    if not abbreviated:
        largest = _C._largest_live_arrays(idx, 5)
        if largest:
            lines.append("Largest arrays alive:")
            lines.extend(
                f"  {t} ({_human(int(b))})" + (f", made by {o}" if o else "")
                for _, t, b, o in largest
            )
    return "\n".join(lines) + "\n"


# ---- AMP ----------------------------------------------------------------------


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.bfloat16, torch.float16]


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return True


# ---- streams and events ----------------------------------------------------------
# PJRT orders work by data dependencies: a stream is an ordering label and an
# event completes once the work launched before it has (see csrc/aten/guard.cc).


class _OnTpu(type):
    """isinstance(x, torch.tpu.Stream / Event): a torch.Stream / torch.Event on a
    tpu device. The constructors return torch's own objects, not subclasses:
    torch's methods that take another stream or event (wait_stream,
    elapsed_time) refuse instances of Python subclasses."""

    _base: type

    def __instancecheck__(cls, obj: object) -> bool:
        device = getattr(obj, "device", None)
        return isinstance(obj, cls._base) and getattr(device, "type", None) == "tpu"


class Stream(metaclass=_OnTpu):
    """A tpu stream: a torch.Stream on a "tpu" device."""

    _base = torch.Stream

    def __new__(cls, device: Any = None, priority: int = 0, **kwargs: Any) -> Any:
        _lazy_init()
        return torch.Stream(device=torch.device("tpu", _index(device)), priority=priority)


class Event(metaclass=_OnTpu):
    """A tpu event: a torch.Event on the "tpu" device. It completes once the work
    launched on its device before record() has (in defer mode, record() runs the
    thread's recorded work); with enable_timing=True, elapsed_time() gives the
    milliseconds between two events' completions."""

    _base = torch.Event

    def __new__(cls, enable_timing: bool = False, **kwargs: Any) -> Any:
        return torch.Event(device="tpu", enable_timing=enable_timing)


def current_stream(device: Any = None) -> torch.Stream:
    _lazy_init()
    return torch.accelerator.current_stream(torch.device("tpu", _index(device)))


def default_stream(device: Any = None) -> torch.Stream:
    return current_stream(device)


@contextlib.contextmanager
def stream(s: torch.Stream | None) -> Iterator[None]:
    """Make `s` the current stream inside the block."""
    if s is None:
        yield
        return
    prev = current_stream(s.device)
    torch.accelerator.set_stream(s)
    try:
        yield
    finally:
        torch.accelerator.set_stream(prev)


def set_stream(s: torch.Stream) -> None:
    torch.accelerator.set_stream(s)
