"""The "tpu" device itself: registration, the torch.tpu module, tensor and module
methods, generators, and device storage (copies, uninitialized reads, resizing)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
import torch

import torchtpu


@pytest.fixture(autouse=True, params=["strict", "defer"])
def tpu_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test runs in strict eager mode and in DeferAndFuse mode."""
    with torchtpu.mode(request.param):
        yield request.param


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter (so registration starts from nothing),
    in the current mode."""
    full_env = {**os.environ, "TORCHTPU_MODE": torchtpu.get_mode(), **env}
    return subprocess.run(
        [sys.executable, "-c", code],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# ---- registration -----------------------------------------------------------------


def test_import_torch_alone_registers_tpu() -> None:
    r = run_python(
        "import sys, torch\n"
        "x = torch.ones(2, device='tpu')\n"
        "assert 'torchtpu' in sys.modules\n"
        "print(x.device, x.cpu().tolist(), x.is_tpu)\n"
    )
    assert r.returncode == 0, r.stderr
    assert "tpu:0 [1.0, 1.0] True" in r.stdout


def test_tpu_backward_after_a_cpu_backward() -> None:
    # Autograd's engine counts each device type's devices at its first
    # backward: counting tpu devices starts the runtime.
    r = run_python(
        "import torch\n"
        "a = torch.ones(3, requires_grad=True)\n"
        "(a * 2).sum().backward()\n"
        "b = torch.ones(3, device='tpu', requires_grad=True)\n"
        "(b * 3).sum().backward()\n"
        "print(b.grad.cpu().tolist())\n"
    )
    assert r.returncode == 0, r.stderr
    assert "[3.0, 3.0, 3.0]" in r.stdout


def test_autoload_can_be_turned_off() -> None:
    r = run_python(
        "import sys, torch\n"
        "print('loaded' if 'torchtpu' in sys.modules else 'not loaded')\n"
        "torch.ones(2, device='tpu')\n",
        TORCH_DEVICE_BACKEND_AUTOLOAD="0",
    )
    assert "not loaded" in r.stdout
    assert r.returncode != 0
    assert "tpu" in r.stderr  # torch does not know the device name


def test_import_torchtpu_first_works() -> None:
    r = run_python("import torchtpu, torch\nprint(torch.ones(1, device='tpu').sum().item())")
    assert r.returncode == 0, r.stderr
    assert "1.0" in r.stdout


def test_device_names() -> None:
    assert torch._C._get_privateuse1_backend_name() == "tpu"
    assert torch.device("tpu").type == "tpu"
    assert torch.get_device_module("tpu") is torch.tpu
    assert torch.accelerator.current_accelerator() == torch.device("tpu")


# ---- torch.tpu ------------------------------------------------------------------------


def test_availability_and_devices() -> None:
    assert torch.tpu.is_available()
    assert torch.tpu.is_initialized()
    assert torch.tpu.device_count() >= 1
    assert torch.tpu.current_device() == 0
    name = torch.tpu.get_device_name()
    assert isinstance(name, str) and name
    assert torch.tpu.get_device_name(0) == name
    props = torch.tpu.get_device_properties(0)
    assert props.name and props.platform == torchtpu.info().platform
    assert props.total_memory >= 0
    if props.platform == "cpu":
        # The XLA CPU plugin's memory is the host's (TorchTitan divides by it).
        assert props.total_memory == torch.tpu.mem_get_info(0)[1] > 0


def test_assert_async_never_waits_and_checks_in_launch_blocking() -> None:
    """torch._assert_async as CUDA's device-side asserts: nothing in strict and
    defer mode, PyTorch's error at the op in launch_blocking mode; never the CPU
    fallback."""
    x = torch.tensor([1.0, 2.0], device="tpu")
    torchtpu.metrics.reset()
    for mode in ("strict", "defer"):
        with torchtpu.mode(mode):
            torch._assert_async(torch.all(x < 0), "not checked")
            torch._assert_async(torch.tensor(0.0, device="tpu"))
    with torchtpu.mode("launch_blocking"):
        torch._assert_async(torch.all(x < 3), "holds")
        with pytest.raises(RuntimeError, match="positions exceed"):
            torch._assert_async(torch.all(x < 0), "positions exceed")
        with pytest.raises(RuntimeError, match="single nonzero value"):
            torch._assert_async(torch.tensor(0, device="tpu"))
    assert torchtpu.metrics.counters()["fallbacks"] == {}


def test_set_device_and_device_context() -> None:
    torch.tpu.set_device(0)
    torch.tpu.set_device("tpu:0")
    torch.tpu.set_device(torch.device("tpu", 0))
    assert torch.tpu.current_device() == 0
    with torch.tpu.device(0):
        assert torch.tpu.current_device() == 0
        assert torch.ones(1, device="tpu").device == torch.device("tpu", 0)
    with torch.tpu.device("tpu:0"):
        pass
    assert torch.tpu.current_device() == 0


def test_bad_device_index_is_an_error() -> None:
    n = torch.tpu.device_count()
    with pytest.raises(RuntimeError, match=f"invalid device index {n} .there are {n} tpu"):
        torch.tpu.set_device(n)
    with pytest.raises(RuntimeError, match="invalid device index"):
        torch.ones(2, device=f"tpu:{n}")
    with pytest.raises(ValueError):
        torch.tpu.set_device("cpu")
    assert torch.tpu.current_device() == 0


def test_synchronize() -> None:
    x = torch.ones(100, device="tpu") * 2
    torch.tpu.synchronize()
    torch.tpu.synchronize(0)
    torch.tpu.synchronize("tpu:0")
    assert x.sum().item() == 200


def test_seeds_make_random_numbers_repeat() -> None:
    torch.tpu.manual_seed(123)
    assert torch.tpu.initial_seed() == 123
    a = torch.rand(8, device="tpu").cpu()
    torch.tpu.manual_seed(123)
    b = torch.rand(8, device="tpu").cpu()
    assert torch.equal(a, b)
    c = torch.rand(8, device="tpu").cpu()
    assert not torch.equal(b, c)

    torch.tpu.manual_seed_all(7)
    assert torch.tpu.initial_seed() == 7
    torch.manual_seed(99)  # seeds every device, tpu included
    assert torch.tpu.initial_seed() == 99

    torch.tpu.seed()
    s1 = torch.tpu.initial_seed()
    torch.tpu.seed()
    assert torch.tpu.initial_seed() != s1


def test_rng_state_round_trip() -> None:
    torch.tpu.manual_seed(5)
    torch.rand(3, device="tpu")
    state = torch.tpu.get_rng_state()
    assert state.device.type == "cpu" and state.dtype == torch.uint8
    a = torch.randn(16, device="tpu").cpu()
    torch.tpu.set_rng_state(state)
    b = torch.randn(16, device="tpu").cpu()
    assert torch.equal(a, b)
    states = torch.tpu.get_rng_state_all()
    assert len(states) == torch.tpu.device_count()
    torch.tpu.set_rng_state_all(states)


def test_fork_rng_restores_tpu_state() -> None:
    torch.tpu.manual_seed(11)
    with torch.random.fork_rng(device_type="tpu"):
        torch.rand(4, device="tpu")
    a = torch.rand(4, device="tpu").cpu()
    torch.tpu.manual_seed(11)
    b = torch.rand(4, device="tpu").cpu()
    assert torch.equal(a, b)


def test_generator_on_tpu() -> None:
    g = torch.Generator(device="tpu")
    assert g.device == torch.device("tpu", 0)
    g.manual_seed(42)
    assert g.initial_seed() == 42
    a = torch.randn(6, device="tpu", generator=g).cpu()
    g.manual_seed(42)
    b = torch.randn(6, device="tpu", generator=g).cpu()
    assert torch.equal(a, b)
    state = g.get_state()
    c = torch.rand(5, device="tpu", generator=g).cpu()
    g.set_state(state)
    assert torch.equal(c, torch.rand(5, device="tpu", generator=g).cpu())
    # A separate generator does not disturb the default one.
    torch.tpu.manual_seed(1)
    x = torch.rand(3, device="tpu").cpu()
    torch.tpu.manual_seed(1)
    g.manual_seed(2)
    torch.rand(3, device="tpu", generator=g)
    assert torch.equal(x, torch.rand(3, device="tpu").cpu())


def test_streams_and_events() -> None:
    s = torch.tpu.Stream()
    assert s.device.type == "tpu"
    s2 = torch.tpu.Stream(priority=-1)  # FSDP2 asks for priorities
    assert s2 != s
    default = torch.tpu.current_stream()
    with torch.tpu.stream(s):
        assert torch.tpu.current_stream() == s
        x = torch.ones(4, device="tpu") + 1
    assert torch.tpu.current_stream() == default
    with torch.tpu.stream(None):
        pass

    e = torch.tpu.Event()
    e.record()
    torch.tpu.current_stream().wait_event(e)
    e.synchronize()
    assert e.query()
    ev = s.record_event()
    s.wait_stream(default)
    s.synchronize()
    assert ev.query() and s.query()
    generic = torch.Event(device="tpu")
    generic.record()
    generic.wait()
    assert generic.query()
    assert x.cpu().tolist() == [2.0] * 4


def test_events_time_the_work_between_them() -> None:
    # The CUDA idiom: record, work, record, synchronize, elapsed_time.
    a = torch.randn(256, 256, device="tpu")
    start, end = torch.tpu.Event(enable_timing=True), torch.tpu.Event(enable_timing=True)
    assert isinstance(start, torch.tpu.Event) and isinstance(start, torch.Event)
    assert not isinstance(torch.Event(device="cpu"), torch.tpu.Event)
    start.record()
    for _ in range(20):
        a = (a @ a).tanh()
    end.record()  # in defer mode, the recorded work runs here
    end.synchronize()
    assert start.query() and end.query()
    ms = start.elapsed_time(end)
    assert 0 < ms < 60_000, ms
    s1, s2 = torch.tpu.Stream(), torch.tpu.Stream()
    s1.wait_stream(s2)
    assert isinstance(s1, torch.tpu.Stream) and not isinstance(start, torch.tpu.Stream)
    no_timing = torch.tpu.Event()
    no_timing.record()
    with pytest.raises(ValueError, match="enable_timing"):  # torch's own check
        no_timing.elapsed_time(end)
    with pytest.raises((RuntimeError, ValueError), match="record"):
        torch.tpu.Event(enable_timing=True).elapsed_time(end)


def test_current_stream_is_per_thread() -> None:
    s = torch.tpu.Stream()
    seen: list[torch.Stream] = []
    with torch.tpu.stream(s):
        t = threading.Thread(target=lambda: seen.append(torch.tpu.current_stream()))
        t.start()
        t.join()
        assert torch.tpu.current_stream() == s
    assert seen[0] != s


def test_memory_counters() -> None:
    torch.tpu.synchronize()
    base = torch.tpu.memory_allocated()
    torch.tpu.reset_peak_memory_stats()
    assert torch.tpu.max_memory_allocated() == base
    x = torch.ones(1024, 256, device="tpu")  # 1 MiB
    assert torch.tpu.memory_allocated() >= base + 2**20
    peak = torch.tpu.max_memory_allocated()
    assert peak >= base + 2**20
    del x
    assert torch.tpu.memory_allocated() == base
    assert torch.tpu.max_memory_allocated() == peak  # the peak stays
    torch.tpu.reset_peak_memory_stats()
    assert torch.tpu.max_memory_allocated() == base
    stats = torch.tpu.memory_stats()
    assert stats["allocated_bytes.all.current"] == base
    torch.tpu.empty_cache()


def test_amp_supported_dtypes() -> None:
    dtypes = torch.tpu.get_amp_supported_dtype()
    assert torch.bfloat16 in dtypes and torch.float16 in dtypes
    assert torch.amp.is_autocast_available("tpu")


def test_tensor_and_module_methods() -> None:
    x = torch.arange(4.0)
    y = x.tpu()
    assert y.is_tpu and not x.is_tpu
    assert y.device == torch.device("tpu", 0)
    assert x.tpu(0).is_tpu
    assert torch.equal(y.cpu(), x)
    m = torch.nn.Linear(3, 2).tpu()
    assert all(p.is_tpu for p in m.parameters())
    assert y.untyped_storage().is_tpu
    assert torch.UntypedStorage(8).tpu().device.type == "tpu"


# ---- device storage -----------------------------------------------------------------


@pytest.mark.parametrize("non_blocking", [False, True])
def test_copies_between_host_and_device(non_blocking: bool) -> None:
    a = torch.arange(12.0).reshape(3, 4)
    d = a.to("tpu", non_blocking=non_blocking)
    assert d.is_tpu
    d2 = d.to("tpu", copy=True, non_blocking=non_blocking)  # tpu -> tpu
    d2.add_(1)
    back = d.to("cpu", non_blocking=non_blocking)
    if non_blocking:
        torch.tpu.synchronize()
    assert torch.equal(back, a)  # the copy is independent
    assert torch.equal(d2.cpu(), a + 1)
    # Copies with conversion, into views, and from non-contiguous sources.
    assert torch.equal(d.to(torch.float16).cpu(), a.half())
    assert torch.equal(d.to("cpu", torch.float64), a.double())
    z = torch.zeros(4, 3, device="tpu")
    z.copy_(a.t(), non_blocking=non_blocking)
    assert torch.equal(z.cpu(), a.t())
    z[1:3].copy_(torch.full((2, 3), 7.0), non_blocking=non_blocking)
    expect = a.t().clone()
    expect[1:3] = 7
    assert torch.equal(z.cpu(), expect)
    assert torch.equal(d.t().cpu(), a.t())
    assert torch.equal(d.t().contiguous().cpu(), a.t())
    # Broadcasting copy from the host.
    w = torch.empty(3, 4, device="tpu")
    w.copy_(torch.arange(4.0))
    assert torch.equal(w.cpu(), torch.arange(4.0).expand(3, 4))


def test_pinned_host_memory_copies() -> None:
    a = torch.arange(6.0).pin_memory()
    d = a.to("tpu", non_blocking=True)
    out = torch.empty(6).pin_memory()
    out.copy_(d, non_blocking=True)
    torch.tpu.synchronize()
    assert torch.equal(out, a)


FORK = """
import os, sys, torch, torchtpu
x = torch.ones(3, device="tpu")  # the parent starts the runtime
pid = os.fork()
if pid == 0:
    a = torch.randn(4, requires_grad=True)  # CPU work in the child works
    (a * 2).sum().backward()
    try:
        (torch.ones(2, device="tpu") + 1).cpu()
        print("child: no error", flush=True)
    except RuntimeError as e:
        print("child error:", "forked" in str(e), "'spawn'" in str(e), flush=True)
    print("child:", torch.tpu._is_in_bad_fork(), a.grad.tolist() == [2.0] * 4, flush=True)
    del x  # the parent's buffer: let go of, not freed through the plugin
    sys.exit(0)  # a normal exit runs the static destructors: nothing may hang
_, status = os.waitpid(pid, 0)
print("parent:", (x + 1).cpu().tolist(), torch.tpu._is_in_bad_fork(), status, flush=True)
"""


def test_a_forked_child_gets_a_clear_error_not_a_hang() -> None:
    # A PJRT client's threads do not survive fork(): the child's first tpu op
    # used to wait forever. As with CUDA, it raises and says to use 'spawn';
    # CPU work in the child and the parent's own tpu work go on.
    r = run_python(FORK)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "child error: True True" in r.stdout, r.stdout + r.stderr[-3000:]
    assert "child: True True" in r.stdout, r.stdout
    assert "parent: [2.0, 2.0, 2.0] False 0" in r.stdout, r.stdout


def test_numpy_of_a_tpu_tensor_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match=r"tpu.*\.cpu\(\)"):
        torch.ones(2, device="tpu").numpy()
    assert torch.ones(2, device="tpu").cpu().numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.bfloat16])
def test_empty_reads_as_zeros(dtype: torch.dtype) -> None:
    x = torch.empty(3, 4, dtype=dtype, device="tpu")
    assert torch.equal(x.cpu(), torch.zeros(3, 4, dtype=dtype))
    y = torch.empty_like(x)
    assert torch.equal((y + y).cpu(), torch.zeros(3, 4, dtype=dtype))


def test_storage_resize_like_fsdp2() -> None:
    p = torch.arange(10.0).to("tpu")
    storage = p.untyped_storage()
    nbytes = storage.nbytes()
    assert nbytes == 40
    storage.resize_(0)  # free the parameter's memory
    assert storage.nbytes() == 0
    assert p.shape == (10,)
    storage.resize_(nbytes)  # allocate again
    assert storage.nbytes() == nbytes
    with torch.no_grad():
        p.copy_(torch.arange(10.0) * 2)
    assert torch.equal(p.cpu(), torch.arange(10.0) * 2)
    assert torch.equal((p + 1).cpu(), torch.arange(10.0) * 2 + 1)


def test_storage_resize_keeps_contents() -> None:
    p = torch.arange(10.0).to("tpu")
    p.untyped_storage().resize_(16)  # 4 floats
    p.untyped_storage().resize_(40)
    expect = torch.zeros(10)
    expect[:4] = torch.arange(4.0)
    assert torch.equal(p.cpu(), expect)


def test_tensor_resize_and_set() -> None:
    x = torch.empty(0, device="tpu")
    x.resize_(5)
    x.fill_(2)
    x.resize_(2, 5)
    expect = torch.zeros(2, 5)
    expect[0] = 2
    assert torch.equal(x.cpu(), expect)
    base = torch.arange(8.0).to("tpu")
    y = torch.empty(0, device="tpu").set_(base.untyped_storage(), 2, (2, 2), (4, 1))
    assert torch.equal(y.cpu(), torch.tensor([[2.0, 3.0], [6.0, 7.0]]))
    y.mul_(10)
    assert base.cpu().tolist() == [0, 1, 20, 30, 4, 5, 60, 70]


def test_storage_copies_between_host_and_device() -> None:
    x = torch.arange(6, dtype=torch.float32).to("tpu")
    host = x.untyped_storage().cpu()  # a byte-wise copy of a float storage
    assert host.nbytes() == 24
    assert torch.equal(torch.tensor([], dtype=torch.float32).set_(host), torch.arange(6.0))
    dev = host.tpu()
    y = torch.empty(0, device="tpu").set_(dev, 0, (6,), (1,))
    assert torch.equal(y.cpu(), torch.arange(6.0))


def test_views_of_another_dtype() -> None:
    x = torch.tensor([1.0, -2.0, 0.5], device="tpu")
    bits = x.view(torch.int32)
    assert torch.equal(bits.cpu(), torch.tensor([1.0, -2.0, 0.5]).view(torch.int32))
    b = x.view(torch.uint8)
    assert torch.equal(b.cpu(), torch.tensor([1.0, -2.0, 0.5]).view(torch.uint8))
    b[0:4] = 0  # writes through the byte view
    assert x.cpu().tolist() == [0.0, -2.0, 0.5]
    assert x.sum().item() == -1.5


def test_zero_size_and_scalars() -> None:
    assert torch.empty(0, 3, device="tpu").cpu().shape == (0, 3)
    assert torch.tensor(3.5, device="tpu").item() == 3.5
    assert torch.tensor([[1, 2], [3, 4]], device="tpu").cpu().tolist() == [[1, 2], [3, 4]]
    assert torch.tensor([1 + 2j], device="tpu").cpu().tolist() == [1 + 2j]
    assert bool(torch.ones(1, device="tpu"))


def test_torchtpu_package_api() -> None:
    assert torchtpu.info().platform
    assert len(torchtpu.devices()) == torch.tpu.device_count()
