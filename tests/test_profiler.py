"""torch.profiler on "tpu": each program's device span (an op's in strict mode, a
fused program's in defer mode, a compiled graph's) on a row per device, linked
to the ATen op that launched it and to its host launch span; compiles, flushes
and host<->device copies as host spans with their sizes and reasons; TPU time in
key_averages(); a chrome trace that loads; nothing recorded outside a profile."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.autograd import DeviceType
from torch.autograd.profiler_util import FunctionEvent
from torch.profiler import ProfilerActivity, profile

import torchtpu

pytestmark = pytest.mark.skipif(
    not torchtpu._C._profiler_available(),
    reason="this torch has no PrivateUse1 profiler registry (needs torch 2.13 or newer)",
)

TPU = torch.device("tpu")
ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]


def training_step(width: int) -> Callable[[], float]:
    """A Linear -> ReLU -> Linear step with SGD, of a width no other test uses (so
    its programs are compiled inside the profile)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(width, 2 * width), torch.nn.ReLU(), torch.nn.Linear(2 * width, 3)
    ).to(TPU)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(5, width).to(TPU)
    y = torch.randn(5, 3).to(TPU)

    def step() -> float:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def profiled_step(mode: str, width: int) -> tuple[profile, float]:
    """The first training step of a model of `width`, profiled in `mode` (its
    programs compile inside the profile); the profile and the step's wall time
    in microseconds."""
    with torchtpu.mode(mode):
        step = training_step(width)
        start = time.perf_counter()
        with profile(activities=ACTIVITIES) as p:
            step()
        return p, (time.perf_counter() - start) * 1e6


def device_events(p: profile) -> list[FunctionEvent]:
    return [e for e in p.events() if e.device_type == DeviceType.PrivateUse1]


def named(p: profile, name: str) -> list[FunctionEvent]:
    return [e for e in p.events() if e.name == name]


def trace_events(p: profile, tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "trace.json"
    p.export_chrome_trace(str(path))
    return json.loads(path.read_text())["traceEvents"]


def interval(e: FunctionEvent) -> tuple[float, float]:
    return e.time_range.start, e.time_range.end


def check_device_timeline(p: profile, wall_us: float) -> None:
    """Programs on one device run one after another: their spans do not overlap,
    start no earlier than their launch, and add up to at most the wall time."""
    kernels = sorted(device_events(p), key=lambda e: e.time_range.start)
    assert kernels
    for a, b in zip(kernels, kernels[1:], strict=False):
        assert a.time_range.end <= b.time_range.start + 1, (a.name, b.name)
    assert sum(e.time_range.elapsed_us() for e in kernels) <= wall_us
    launches = sorted(named(p, "tpu::launch"), key=lambda e: e.time_range.start)
    assert len(launches) == len(kernels)
    for launch, kernel in zip(launches, kernels, strict=True):
        assert launch.time_range.start <= kernel.time_range.start + 1


def owners(p: profile) -> dict[str, FunctionEvent]:
    """Kernel name -> the host op the kernel is attributed to."""
    out = {}
    for e in p.events():
        for k in e.kernels:
            out[k.name] = e
    return out


def of_category(events: list[dict[str, Any]], cat: str, name: str | None = None) -> Iterator[dict]:
    for e in events:
        if e.get("cat") == cat and (name is None or e["name"] == name):
            yield e


def test_strict_step_shows_each_op_program(tmp_path: Path) -> None:
    p, wall_us = profiled_step("strict", 11)

    kernels = device_events(p)
    names = {e.name for e in kernels}
    assert {"program aten::addmm", "program aten::mm"} <= names, names
    # Each program is attributed to the ATen op that launched it (its host
    # dispatch span), whose TPU time is the program's.
    attributed = owners(p)
    assert attributed["program aten::addmm"].name == "aten::addmm"
    assert attributed["program aten::mm"].name == "aten::mm"
    totals = {row.key: row for row in p.key_averages()}
    assert totals["aten::addmm"].device_time_total > 0
    assert totals["aten::addmm"].device_time_total == pytest.approx(
        totals["program aten::addmm"].device_time_total
    )
    # Host spans of the runtime do not take the op's TPU time as their own.
    assert totals["tpu::launch"].self_device_time_total == 0
    assert "Self TPU" in p.key_averages().table(sort_by="self_device_time_total", row_limit=5)
    check_device_timeline(p, wall_us)

    # Compiles: one per new program, with what it compiled.
    events = trace_events(p, tmp_path)
    compiles = list(of_category(events, "privateuse1_runtime", "tpu::compile"))
    assert len(compiles) >= len(names)
    assert all(c["args"]["kind"] == "op" and c["args"]["text_bytes"] > 0 for c in compiles)
    assert any("aten::addmm" in c["args"]["program"] for c in compiles)
    # Launch spans and device spans are paired by flows.
    starts = {e["id"] for e in of_category(events, "ac2g") if e["ph"] == "s"}
    ends = {e["id"] for e in of_category(events, "ac2g") if e["ph"] == "f"}
    assert starts == ends and len(starts) == len(kernels)
    rows = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
    assert "tpu:0" in rows


def test_defer_step_shows_fused_programs_and_flushes(tmp_path: Path) -> None:
    p, wall_us = profiled_step("defer", 12)

    kernels = device_events(p)
    assert kernels and all(e.name.startswith("fused program (") for e in kernels)
    check_device_timeline(p, wall_us)
    events = trace_events(p, tmp_path)
    flushes = list(of_category(events, "privateuse1_runtime", "tpu::flush"))
    programs = list(of_category(events, "kernel"))
    assert len(programs) == len(kernels)
    # The step is cut where backward() starts and where the optimizer's step
    # returns (loss.item() then reads the forward's output).
    reasons = [f["args"]["reason"] for f in flushes]
    assert "backward" in reasons and "optimizer step" in reasons, reasons
    fused_ops = sum(k["args"]["ops"] for k in programs)
    assert fused_ops >= 10
    assert sum(f["args"]["ops"] for f in flushes) >= fused_ops
    # Each flush contains its compile and its launch.
    launches = list(of_category(events, "privateuse1_runtime", "tpu::launch"))
    compiles = list(of_category(events, "privateuse1_runtime", "tpu::compile"))
    assert compiles and all(c["args"]["kind"] == "trace" for c in compiles)
    for inner in launches + compiles:
        assert any(
            f["tid"] == inner["tid"]
            and f["ts"] <= inner["ts"]
            and inner["ts"] + inner["dur"] <= f["ts"] + f["dur"] + 1
            for f in flushes
        ), inner
    # The item() that needed the value reads it back: 4 bytes to the host.
    to_host = list(of_category(events, "privateuse1_runtime", "tpu::copy_to_host"))
    assert any(c["args"]["bytes"] == 4 for c in to_host)
    # The cuts show as host spans of their own (no ATen op runs there).
    assert named(p, "torchtpu::cut (backward)") and named(p, "torchtpu::cut (optimizer step)")


def test_copies_show_their_bytes(tmp_path: Path) -> None:
    host = torch.randn(300, 7)
    with profile(activities=ACTIVITIES) as p:
        dev = host.to(TPU)
        back = (dev + 1).cpu()
    torch.testing.assert_close(back, host + 1)
    events = trace_events(p, tmp_path)
    up = [
        e["args"]["bytes"]
        for e in of_category(events, "privateuse1_runtime", "tpu::copy_to_device")
    ]
    down = [
        e["args"]["bytes"] for e in of_category(events, "privateuse1_runtime", "tpu::copy_to_host")
    ]
    assert 300 * 7 * 4 in up, up
    assert 300 * 7 * 4 in down, down
    copies = [e for e in of_category(events, "privateuse1_runtime") if "copy" in e["name"]]
    assert all(e["args"]["device"] == "tpu:0" for e in copies)


def test_compiled_graph_is_one_program() -> None:
    def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a.sin() * b).sum(dim=1) + b.mean()

    g = torch.compile(f, backend="tpu")
    a = torch.randn(6, 9, device=TPU)
    b = torch.randn(6, 9, device=TPU)
    g(a, b)  # compiled outside the profile
    with profile(activities=ACTIVITIES) as p:
        out = g(a, b).cpu()
    torch.testing.assert_close(out, f(a.cpu(), b.cpu()))
    kernels = device_events(p)
    assert len(kernels) == 1 and kernels[0].name.startswith("graph "), [e.name for e in kernels]
    assert not named(p, "tpu::compile")


def test_nothing_is_recorded_outside_a_profile() -> None:
    x = torch.randn(8, 8, device=TPU)
    with profile(activities=ACTIVITIES) as p:
        pass
    for _ in range(3):
        x = x @ x
    torch.tpu.synchronize()
    with profile(activities=ACTIVITIES) as q:
        pass
    assert not device_events(p) and not device_events(q)
    assert not [e for e in q.events() if e.name.startswith("tpu::")]


def test_cpu_only_profile_has_no_tpu_rows() -> None:
    x = torch.randn(8, 8, device=TPU)
    with torchtpu.mode("strict"), profile(activities=[ProfilerActivity.CPU]) as p:
        (x @ x).cpu()
    assert [e for e in p.events() if e.name == "aten::mm"]
    assert not device_events(p)
    assert not [e for e in p.events() if e.name.startswith("tpu::")]
