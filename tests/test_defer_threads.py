"""Threads in defer mode: each thread records into its own trace (its backward
too, on autograd's worker thread), so threads training side by side compile
their programs once and then hit the cache; a thread's mode changes flush only
its own work; values handed between threads read correctly."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import torch
from torch import nn

import torchtpu
from torchtpu import _C


@pytest.fixture(autouse=True)
def restore_mode() -> Iterator[None]:
    prev = torchtpu.get_mode()
    yield
    torchtpu.set_mode(prev)
    torchtpu.sync()


def run_threads(fns: list[Callable[[], None]]) -> None:
    errors: list[BaseException] = []

    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - re-raised below
                errors.append(e)

        return run

    threads = [threading.Thread(target=wrap(fn)) for fn in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    if errors:
        raise errors[0]


_init_lock = threading.Lock()  # the CPU generator that initializes modules is process-wide


def make_model(seed: int, device: str) -> tuple[nn.Module, torch.optim.Optimizer]:
    with _init_lock:
        torch.manual_seed(seed)
        model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))
    model = model.to(device)
    return model, torch.optim.SGD(model.parameters(), lr=0.05)


def batch(seed: int, step: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed * 1000 + step)
    return torch.randn(8, 16, generator=g).to(device), torch.randn(8, 4, generator=g).to(device)


def train(seed: int, device: str, steps: int, after_warmup: Callable[[], None] | None) -> list:
    model, opt = make_model(seed, device)
    losses = []
    for step in range(steps):
        if step == 3 and after_warmup is not None:
            after_warmup()
        x, y = batch(seed, step, device)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, [p.detach().cpu() for p in model.parameters()]]


def test_threads_training_in_defer_mode_compile_once_and_match_the_cpu() -> None:
    n, steps = 4, 12
    results: dict[int, list] = {}
    warm = threading.Barrier(n + 1)
    go = threading.Barrier(n + 1)

    def worker(k: int) -> Callable[[], None]:
        def run() -> None:
            torchtpu.set_mode("defer")

            def at_warmup() -> None:
                warm.wait()
                go.wait()

            results[k] = train(k, "tpu", steps, at_warmup)

        return run

    counts: dict[str, int] = {}

    def watcher() -> None:
        warm.wait()
        c = torchtpu.metrics.counters()
        counts["compiles"], counts["recompiles"] = c["compiles"], c["recompiles"]
        go.wait()

    run_threads([worker(k) for k in range(n)] + [watcher])
    after = torchtpu.metrics.counters()
    # After three steps every thread's step is one cached program (or a few):
    # nothing compiles again, whatever the other threads record meanwhile.
    assert after["compiles"] - counts["compiles"] == 0
    assert after["recompiles"] - counts["recompiles"] == 0
    for k in range(n):
        want = train(k, "cpu", steps, None)
        torch.testing.assert_close(results[k][0], want[0], rtol=1e-5, atol=1e-6)
        for got, ref in zip(results[k][1], want[1], strict=True):
            torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-6)


def test_a_value_recorded_by_one_thread_reads_in_another() -> None:
    handed: list[torch.Tensor] = []
    x = torch.arange(6, dtype=torch.float32)

    def producer() -> None:
        torchtpu.set_mode("defer")
        handed.append(x.to("tpu") * 2 + 1)  # pending in this thread's trace
        handed.append(handed[0].sin())

    run_threads([producer])
    torchtpu.set_mode("defer")
    z = handed[1] * 3 + handed[0]  # recorded here, from the other thread's values
    torch.testing.assert_close(z.cpu(), (x * 2 + 1).sin() * 3 + (x * 2 + 1))
    torch.testing.assert_close(handed[0].cpu(), x * 2 + 1)


def test_a_mode_change_flushes_only_the_calling_threads_work() -> None:
    recorded = threading.Event()
    changed = threading.Event()
    pending: list[int] = []

    def deferring() -> None:
        torchtpu.set_mode("defer")
        y = torch.ones(4, device="tpu")
        for _ in range(5):
            y = y * 2
        recorded.set()
        changed.wait(timeout=60)
        pending.append(_C._pending_ops())
        torch.testing.assert_close(y.cpu(), torch.full((4,), 32.0))

    def switching() -> None:
        recorded.wait(timeout=60)
        torchtpu.set_mode("defer")
        torchtpu.set_mode("strict")
        changed.set()

    run_threads([deferring, switching])
    assert pending[0] >= 5  # the other thread's trace was left to grow


def test_backward_runs_in_the_mode_of_the_thread_that_called_it() -> None:
    in_defer = threading.Event()
    default_changed = threading.Event()
    seen: list[int] = []
    grads: list[torch.Tensor] = []

    def deferring() -> None:
        torchtpu.set_mode("defer")
        in_defer.set()
        default_changed.wait(timeout=60)
        w = torch.ones(3, device="tpu", requires_grad=True)
        (w * w * 3).sum().backward()  # autograd's worker thread runs this
        seen.append(_C._pending_ops())
        grads.append(w.grad.cpu())

    def strict() -> None:
        in_defer.wait(timeout=60)
        torchtpu.set_mode("strict")  # also the default of threads without a choice
        default_changed.set()

    run_threads([deferring, strict])
    assert seen[0] > 0  # the backward ops were recorded in the caller's trace
    torch.testing.assert_close(grads[0], torch.full((3,), 6.0))


def test_strict_threads_beside_defer_threads_give_the_cpus_values() -> None:
    out: dict[str, torch.Tensor] = {}
    x = torch.linspace(-2, 2, 50)

    def worker(mode: str) -> Callable[[], None]:
        def run() -> None:
            torchtpu.set_mode(mode)
            y = x.to("tpu")
            for _ in range(40):
                y = torch.tanh(y) * 1.5 + 0.01
            out[mode] = y.cpu()

        return run

    run_threads([worker("strict"), worker("defer"), worker("launch_blocking")])
    want = x
    for _ in range(40):
        want = torch.tanh(want) * 1.5 + 0.01
    for mode in ("strict", "defer", "launch_blocking"):
        torch.testing.assert_close(out[mode], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("binding", ["_flush_own", "_flush"])
def test_other_threads_run_python_while_a_thread_flushes(binding: str) -> None:
    # The cuts at backward and after optimizer.step() flush from Python
    # (_flush_own), as do collectives and memory stats (_flush): the flush lets
    # go of the GIL, so other threads' Python goes on while it plans and
    # launches (holding it serialized threads that train side by side). The
    # flushes launch a cached program: nothing on their way calls Python.
    ticks = [0]
    go = threading.Event()
    stop = threading.Event()

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")

    def spin() -> None:  # runs Python while `go` is set, on a CPU of its own
        os.sched_setaffinity(0, {cpus[1]})
        while not stop.is_set():
            go.wait()
            ticks[0] += 1

    def record(x: torch.Tensor) -> torch.Tensor:
        # Eight ops first that do not come again (else the trace is cut as a loop).
        x = x.cos().exp().tanh().abs().neg().sigmoid().relu().sqrt()
        for _ in range(400):  # a long trace: its flush takes a few hundred microseconds
            x = x.sin() * 1.01 + 0.1
        return x

    def flush() -> None:
        if binding == "_flush_own":
            _C._flush_own("test", False)
        else:
            _C._flush("test")

    x = torch.randn(64, 64)
    xt = x.to("tpu")
    during: list[int] = []
    with torchtpu.mode("defer"):
        y = record(xt)
        flush()  # compiles the program, before any thread is pinned
    spinner = threading.Thread(target=spin)
    spinner.start()
    os.sched_setaffinity(0, {cpus[0]})  # this thread only
    try:
        with torchtpu.mode("defer"):
            for _ in range(8):
                y = record(xt)
                assert _C._pending_own_ops() >= 1000
                go.set()
                time.sleep(0.002)  # the spinner runs; it waits for the GIL once this thread has it
                before = ticks[0]
                flush()
                during.append(ticks[0] - before)
                go.clear()
                assert _C._pending_own_ops() == 0
    finally:
        os.sched_setaffinity(0, cpus)
        stop.set()
        go.set()
        spinner.join()
    assert sum(during) > 0, f"no other thread ran Python during the flushes: {during}"
    torch.testing.assert_close(y.cpu(), record(x))
