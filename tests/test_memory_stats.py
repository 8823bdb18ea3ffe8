"""Memory statistics as in torch.cuda, per device: memory_allocated and its peak,
memory_reserved, reset_peak/accumulated, memory_stats' keys, memory_summary;
and an out-of-memory error that names the largest arrays alive and what made
each of them."""

from __future__ import annotations

import os
import subprocess

import child_python
import pytest
import torch

import torchtpu  # noqa: F401


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return child_python.run_python(code, 300, **env)


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_allocated_peak_and_totals_follow_tensors(mode: str) -> None:
    with torchtpu.mode(mode):
        torch.tpu.synchronize()
        base = torch.tpu.memory_allocated()
        torch.tpu.reset_peak_memory_stats()
        torch.tpu.reset_accumulated_memory_stats()
        assert torch.tpu.max_memory_allocated() == base
        x = torch.ones(1024, 256, device="tpu")  # 1 MiB
        y = x * 2  # in defer mode, computed by the stats call's flush
        assert torch.tpu.memory_allocated() == base + 2 * 2**20
        assert torch.tpu.memory_reserved() == torch.tpu.memory_allocated()
        s = torch.tpu.memory_stats()
        assert s["allocated_bytes.all.current"] == base + 2 * 2**20
        assert s["allocation.all.allocated"] >= 2
        assert s["allocated_bytes.all.allocated"] >= 2 * 2**20
        peak = torch.tpu.max_memory_allocated()
        assert peak >= base + 2 * 2**20
        del x, y
        assert torch.tpu.memory_allocated() == base
        assert torch.tpu.max_memory_allocated() == peak
        s = torch.tpu.memory_stats()
        assert s["allocated_bytes.all.freed"] >= 2 * 2**20
        assert s["num_ooms"] == 0
        torch.tpu.reset_peak_memory_stats()
        assert torch.tpu.max_memory_allocated() == base
        torch.tpu.reset_accumulated_memory_stats()
        assert torch.tpu.memory_stats()["allocated_bytes.all.allocated"] == 0


def test_summary_lists_the_largest_arrays() -> None:
    big = torch.zeros(512, 1024, device="tpu")
    text = torch.tpu.memory_summary()
    assert "Allocated memory" in text
    assert "f32[512, 1024] (2.00 MiB)" in text, text
    assert "Largest" not in torch.tpu.memory_summary(abbreviated=True)
    del big


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_summary_says_what_made_each_array(mode: str) -> None:
    with torchtpu.mode(mode):
        a = torch.ones(640, 1000, device="tpu")
        b = a.mm(a.t())  # 640 x 640
        host = torch.randn(700, 1000).to("tpu")
        text = torch.tpu.memory_summary()
    assert "f32[640, 640] (1.56 MiB), made by aten::mm" in text, text
    assert "f32[700, 1000] (2.67 MiB), made by a copy from the host" in text, text
    del a, b, host


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_arrays_written_in_place_keep_their_tensors_shape(mode: str) -> None:
    with torchtpu.mode(mode):
        w = torch.randn(300, 1000).to("tpu")
        w.mul_(2)  # a whole write: a new array, labelled [300, 1000]
        w[1:3].add_(1)  # a write through a view: the new array keeps the shape
        text = torch.tpu.memory_summary()
    assert "f32[300, 1000] (1.14 MiB), made by aten::add_.Tensor" in text, text
    del w


SOURCE_LINES = """
import torch, torchtpu
torchtpu.set_mode("{mode}")
a = torch.ones(512, 1024, device="tpu")
b = a * 3  # the line
c = torch.randn(600, 1024).to("tpu")
print(torch.tpu.memory_summary())
"""


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_with_source_lines_the_summary_names_the_users_line(mode: str) -> None:
    r = run_python(SOURCE_LINES.format(mode=mode), TORCHTPU_SOURCE_LINES="1")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "f32[512, 1024] (2.00 MiB), made by aten::mul.Tensor at <string>:5" in r.stdout, r.stdout
    assert "f32[600, 1024] (2.34 MiB), made by a copy from the host at <string>:6" in r.stdout, (
        r.stdout
    )


PER_DEVICE = """
import torch, torchtpu
assert torch.tpu.device_count() == 2
base0, base1 = torch.tpu.memory_allocated(0), torch.tpu.memory_allocated("tpu:1")
x = torch.ones(2**18, device="tpu:1")  # 1 MiB on device 1
print("d0", torch.tpu.memory_allocated(0) - base0)
print("d1", torch.tpu.memory_allocated(1) - base1)
with torch.tpu.device(1):
    print("current", torch.tpu.memory_allocated() - base1)
print("peak0", torch.tpu.max_memory_allocated(0) - base0)
"""


def test_statistics_are_per_device() -> None:
    r = run_python(PER_DEVICE, TORCHTPU_CPU_DEVICE_COUNT="2")
    assert r.returncode == 0, r.stderr[-3000:]
    lines = dict(line.split() for line in r.stdout.splitlines() if len(line.split()) == 2)
    assert lines == {"d0": "0", "d1": str(2**20), "current": str(2**20), "peak0": "0"}, r.stdout


OOM = """
import resource
limit = 6 * 2**30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import torch, torchtpu
keep = torch.zeros(3, 1024, 1024, device="tpu")  # 12 MiB: the largest array alive
try:
    torch.zeros(2**38, device="tpu")
    print("no error")
except torch.OutOfMemoryError as e:
    print("error:", str(e))
print("ooms", torch.tpu.memory_stats()["num_ooms"])
"""


def test_out_of_memory_names_the_largest_arrays_alive() -> None:
    r = run_python(OOM)
    assert r.returncode == 0, r.stderr[-3000:]
    expected = "the largest arrays alive are f32[3, 1024, 1024] (12.0 MiB) on device 0"
    expected += ", made by aten::zero_"
    assert expected in r.stdout, r.stdout
    assert "ooms 1" in r.stdout, r.stdout


def test_mem_get_info_is_the_plugins_limit_or_the_hosts_memory() -> None:
    from torchtpu import _plugin

    stats = _plugin.client().memory_stats(0) or {}
    free, total = torch.tpu.mem_get_info()
    if stats.get("bytes_limit"):
        assert 0 <= free <= total == stats["bytes_limit"]
    else:  # the XLA CPU plugin: its device memory is the host's
        assert torchtpu.info().platform == "cpu"
        page = os.sysconf("SC_PAGE_SIZE")
        assert total == os.sysconf("SC_PHYS_PAGES") * page
        assert 0 < free <= total
    assert torch.accelerator.get_memory_info(0)[1] == total


def test_torch_accelerator_memory_calls_use_torchtpus_accounting() -> None:
    # torch.accelerator asks the allocator registered for the device type: it
    # must be a c10::DeviceAllocator, or these raise an internal assert.
    torch.tpu.reset_peak_memory_stats()
    before = torch.accelerator.memory_allocated(0)
    x = torch.ones(256, 1024, device="tpu")
    assert torch.accelerator.memory_allocated(0) == before + x.nbytes
    assert torch.accelerator.memory_allocated(0) == torch.tpu.memory_allocated(0)
    assert torch.accelerator.max_memory_allocated(0) >= before + x.nbytes
    stats = torch.accelerator.memory_stats(0)
    assert stats["allocated_bytes.all.current"] == torch.tpu.memory_allocated(0)
    assert stats["reserved_bytes.all.current"] == torch.tpu.memory_reserved(0)
    torch.accelerator.empty_cache()  # nothing cached: a no-op
    del x
    torch.accelerator.reset_peak_memory_stats(0)
    assert torch.accelerator.max_memory_allocated(0) == torch.accelerator.memory_allocated(0)


def test_pinned_host_memory() -> None:
    t = torch.randn(64, 64)
    p = t.pin_memory()
    assert p.is_pinned() and not t.is_pinned()
    assert torch.equal(p, t)
    assert torch.equal(p.to("tpu").cpu(), t)
    torch.accelerator.empty_host_cache()  # was a segmentation fault after a tpu op
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(8, 4)), batch_size=4, pin_memory=True
    )
    for (batch,) in loader:
        assert batch.is_pinned()
