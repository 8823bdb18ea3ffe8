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
    return False


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
    total_memory: int  # bytes; 0 where the plugin does not say


def get_device_properties(device: Any = None) -> DeviceProperties:
    _lazy_init()
    c = _plugin.client()
    idx = _index(device)
    d = c.devices()[idx]
    stats = c.memory_stats(idx) or {}
    return DeviceProperties(
        name=d.kind,
        platform=c.platform_name,
        id=d.id,
        total_memory=int(stats.get("bytes_limit", 0)),
    )


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


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live tpu arrays (all devices of this process). In defer
    mode the recorded work is run first, so the figure counts its results."""
    _lazy_init()
    _C._flush("memory stats")
    return int(_C._metrics()["live_bytes"])


def max_memory_allocated(device: Any = None) -> int:
    _lazy_init()
    _C._flush("memory stats")
    return int(_C._metrics()["peak_live_bytes"])


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start counting the peak (``max_memory_allocated``) from what is allocated now."""
    _lazy_init()
    _C._reset_peak_memory()


def empty_cache() -> None:
    """Nothing to release: device buffers are freed when their last tensor goes."""


def memory_stats(device: Any = None) -> dict[str, int]:
    """Plugin-reported statistics where the plugin has them, plus torchtpu's own."""
    _lazy_init()
    stats: dict[str, int] = {
        "allocated_bytes.all.current": memory_allocated(device),
        "allocated_bytes.all.peak": max_memory_allocated(device),
    }
    plugin_stats = _plugin.client().memory_stats(_index(device))
    if plugin_stats:
        stats.update({f"plugin.{k}": v for k, v in plugin_stats.items()})
    return stats


# ---- AMP ----------------------------------------------------------------------


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.bfloat16, torch.float16]


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return True


# ---- streams and events ----------------------------------------------------------
# PJRT orders work by data dependencies: a stream is an ordering label and an
# event completes once the work launched before it has (see csrc/aten/guard.cc).


class Stream(torch.Stream):
    """A tpu stream (torch.Stream on the "tpu" device)."""

    def __new__(cls, device: Any = None, priority: int = 0, **kwargs: Any) -> Stream:
        _lazy_init()
        return super().__new__(cls, device=torch.device("tpu", _index(device)), priority=priority)


class Event(torch.Event):
    """A tpu event (torch.Event on the "tpu" device)."""

    def __new__(cls, enable_timing: bool = False, **kwargs: Any) -> Event:
        return super().__new__(cls, device="tpu", enable_timing=enable_timing)


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
