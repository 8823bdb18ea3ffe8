"""torchtpu.metrics: the counters move as the runtime works."""

from __future__ import annotations

import itertools

import torch

import torchtpu
from torchtpu import metrics

KEYS = {
    "compiles",
    "compile_seconds",
    "cache_hits",
    "launches",
    "fallbacks",
    "host_to_device_bytes",
    "device_to_host_bytes",
    "live_buffers",
    "live_bytes",
}

_sizes = itertools.count(101)


def fresh_shape() -> tuple[int, int]:
    """A shape no other test compiles for (so the first op must compile)."""
    return (3, next(_sizes) * 7)


def test_counters_have_every_key() -> None:
    c = metrics.counters()
    assert KEYS <= set(c)
    assert isinstance(c["fallbacks"], dict)
    for k in KEYS - {"fallbacks", "compile_seconds"}:
        assert isinstance(c[k], int) and c[k] >= 0, k
    assert isinstance(c["compile_seconds"], float)


def test_second_identical_op_is_a_cache_hit() -> None:
    shape = fresh_shape()
    a = torch.ones(shape, device="tpu")
    b = torch.ones(shape, device="tpu")
    torch.tpu.synchronize()
    metrics.reset()
    first = torch.atan2(a, b)
    c1 = metrics.counters()
    assert c1["compiles"] >= 1
    assert c1["compile_seconds"] > 0
    assert c1["launches"] >= 1
    metrics.reset()
    second = torch.atan2(b, a)
    c2 = metrics.counters()
    assert c2["compiles"] == 0
    assert c2["cache_hits"] >= 1
    assert c2["launches"] == c1["launches"]
    assert c2["compile_seconds"] == 0
    assert torch.equal(first.cpu(), second.cpu())


def test_other_shapes_compile_again() -> None:
    x = torch.ones(fresh_shape(), device="tpu")
    torch.atan2(x, x)
    metrics.reset()
    y = torch.ones(fresh_shape(), device="tpu")
    torch.atan2(y, y)
    assert metrics.counters()["compiles"] >= 1


def test_transfers_count_bytes() -> None:
    host = torch.arange(1000, dtype=torch.float32)
    metrics.reset()
    dev = host.to("tpu")
    c = metrics.counters()
    assert c["host_to_device_bytes"] == 4000
    assert c["device_to_host_bytes"] == 0
    metrics.reset()
    back = dev.cpu()
    c = metrics.counters()
    assert c["device_to_host_bytes"] == 4000
    assert c["host_to_device_bytes"] == 0
    assert torch.equal(back, host)
    metrics.reset()
    dev.to(torch.float64).cpu()  # converted on the device: 8 bytes each come back
    assert metrics.counters()["device_to_host_bytes"] == 8000
    metrics.reset()
    assert dev[3].item() == 3.0
    assert metrics.counters()["device_to_host_bytes"] == 4
    metrics.reset()
    torch.ones(10, 10, dtype=torch.int16).to("tpu")
    assert metrics.counters()["host_to_device_bytes"] == 200


def test_device_ops_move_no_tensor_bytes() -> None:
    x = torch.ones(4096, device="tpu")
    (x * x).sum()
    metrics.reset()
    y = (x * x + x).sum()
    c = metrics.counters()
    # Only op scalars (such as alpha) may be uploaded, never the tensors.
    assert c["host_to_device_bytes"] < 64
    assert c["device_to_host_bytes"] == 0
    assert y.item() == 8192.0


def test_live_buffers_and_bytes() -> None:
    torch.tpu.synchronize()
    c0 = metrics.counters()
    x = torch.ones(1000, device="tpu")
    y = x + 1
    c1 = metrics.counters()
    assert c1["live_buffers"] >= c0["live_buffers"] + 2
    assert c1["live_bytes"] >= c0["live_bytes"] + 8000
    del x, y
    c2 = metrics.counters()
    assert c2["live_buffers"] == c0["live_buffers"]
    assert c2["live_bytes"] == c0["live_bytes"]
    assert torch.tpu.memory_allocated() == c2["live_bytes"]


def test_empty_tensors_take_no_device_memory_until_written() -> None:
    c0 = metrics.counters()
    x = torch.empty(1 << 20, device="tpu")
    assert metrics.counters()["live_bytes"] == c0["live_bytes"]
    x.fill_(1)
    assert metrics.counters()["live_bytes"] >= c0["live_bytes"] + (4 << 20)


def test_reset_zeroes_counts_but_not_live_memory() -> None:
    keep = torch.ones(100, device="tpu")
    keep + 1
    metrics.reset()
    c = metrics.counters()
    for k in ["compiles", "cache_hits", "launches", "host_to_device_bytes", "device_to_host_bytes"]:
        assert c[k] == 0, k
    assert c["compile_seconds"] == 0
    assert c["fallbacks"] == {}
    assert c["live_buffers"] >= 1 and c["live_bytes"] >= 400
    del keep


def test_report_is_readable_text() -> None:
    torch.ones(8, device="tpu").cpu()
    text = metrics.report()
    for word in ["compiles", "cache hits", "launches", "host -> device", "device -> host"]:
        assert word in text
    assert "live buffers" in text and "CPU fallbacks" in text
    assert text == torchtpu.metrics.report()
