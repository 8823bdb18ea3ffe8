"""What the runtime did: compiles, cache hits, launches, CPU fallbacks, transfers."""

from __future__ import annotations

from typing import Any

from torchtpu import _C


def counters() -> dict[str, Any]:
    """A snapshot of the counters (``fallbacks`` is a dict op -> count)."""
    return dict(_C._metrics())


def reset() -> None:
    """Zero the counters (live buffers and bytes keep counting what exists)."""
    _C._reset_metrics()


def report() -> str:
    """The counters as readable text."""
    c = counters()
    lines = [
        f"compiles            {c['compiles']} ({c['compile_seconds']:.2f} s)",
        f"cache hits          {c['cache_hits']}",
        f"launches            {c['launches']}",
        f"compiled collectives {c['compiled_collectives']}",
        f"host -> device      {c['host_to_device_bytes'] / 1e6:.2f} MB",
        f"device -> host      {c['device_to_host_bytes'] / 1e6:.2f} MB",
        f"live buffers        {c['live_buffers']} ({c['live_bytes'] / 1e6:.2f} MB, "
        f"peak {c['peak_live_bytes'] / 1e6:.2f} MB)",
    ]
    fallbacks = c["fallbacks"]
    if fallbacks:
        lines.append(f"CPU fallbacks       {sum(fallbacks.values())}:")
        for op, n in sorted(fallbacks.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {op:<40} {n}")
    else:
        lines.append("CPU fallbacks       none")
    return "\n".join(lines)
