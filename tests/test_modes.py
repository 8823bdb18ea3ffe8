"""Execution modes (torchtpu.set_mode / get_mode / mode / sync, TORCHTPU_MODE) and
the coverage tiers of an op without a lowering (CPU fallback, or an error)."""

from __future__ import annotations

import subprocess
import threading
import warnings
from collections.abc import Iterator

import child_python
import pytest
import torch

import torchtpu


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return child_python.run_python(code, 120, **env)


@pytest.fixture(autouse=True)
def restore_mode() -> Iterator[None]:
    prev = torchtpu.get_mode()
    yield
    torchtpu.set_mode(prev)


# ---- modes ----------------------------------------------------------------------------


def test_default_mode_is_strict() -> None:
    assert torchtpu.get_mode() == "strict"
    assert torchtpu._C._launch_mode() == "strict"


@pytest.mark.parametrize("name", ["strict", "launch_blocking"])
def test_set_mode(name: str) -> None:
    torchtpu.set_mode(name)
    assert torchtpu.get_mode() == name
    assert torchtpu._C._launch_mode() == name
    x = torch.arange(6.0, device="tpu")
    assert ((x * 2).sum()).item() == 30.0


def test_mode_context_manager_restores() -> None:
    with torchtpu.mode("launch_blocking"):
        assert torchtpu.get_mode() == "launch_blocking"
        assert torchtpu._C._launch_mode() == "launch_blocking"
        with torchtpu.mode("strict"):
            assert torchtpu.get_mode() == "strict"
        assert torchtpu.get_mode() == "launch_blocking"
    assert torchtpu.get_mode() == "strict"
    with pytest.raises(KeyError):
        with torchtpu.mode("launch_blocking"):
            raise KeyError("inside")
    assert torchtpu.get_mode() == "strict"
    assert torchtpu._C._launch_mode() == "strict"


def test_mode_is_per_thread() -> None:
    torchtpu.set_mode("strict")  # this thread's own choice
    seen: dict[str, str] = {}
    ready = threading.Event()
    done = threading.Event()

    def worker() -> None:
        seen["start"] = torchtpu.get_mode()
        with torchtpu.mode("launch_blocking"):
            seen["inside"] = torchtpu.get_mode()
            seen["inside_c"] = torchtpu._C._launch_mode()
            seen["op"] = str((torch.ones(3, device="tpu") + 1).sum().item())
            ready.set()
            done.wait(30)
        seen["after"] = torchtpu.get_mode()

    t = threading.Thread(target=worker)
    t.start()
    assert ready.wait(30)
    # The worker is inside its block: this thread is unaffected.
    assert torchtpu.get_mode() == "strict"
    assert torchtpu._C._launch_mode() == "strict"
    done.set()
    t.join(30)
    assert seen == {
        "start": "strict",
        "inside": "launch_blocking",
        "inside_c": "launch_blocking",
        "op": "6.0",
        "after": "strict",
    }


def test_invalid_mode_names() -> None:
    for bad in ["", "Strict", "eager", "launch-blocking", None, 1]:
        with pytest.raises(ValueError, match="unknown torchtpu mode"):
            torchtpu.set_mode(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="unknown torchtpu mode"):
            with torchtpu.mode(bad):  # type: ignore[arg-type]
                pass
    assert torchtpu.get_mode() == "strict"


def test_env_var_sets_the_default_of_every_thread() -> None:
    r = run_python(
        "import threading, torch, torchtpu\n"
        "out = []\n"
        "t = threading.Thread(target=lambda: out.append("
        "(torchtpu.get_mode(), torchtpu._C._launch_mode())))\n"
        "t.start(); t.join()\n"
        "print(torchtpu.get_mode(), torchtpu._C._launch_mode(), *out[0])\n"
        "print((torch.ones(2, device='tpu') * 3).tolist())\n",
        TORCHTPU_MODE="launch_blocking",
    )
    assert r.returncode == 0, r.stderr
    assert "launch_blocking launch_blocking launch_blocking launch_blocking" in r.stdout
    assert "[3.0, 3.0]" in r.stdout


def test_invalid_env_var_is_a_warning_and_strict_is_used() -> None:
    for autoload in ("0", "1"):
        r = run_python(
            "import torch, torchtpu\n"
            "print(torchtpu.get_mode(), (torch.ones(2, device='tpu') * 3).tolist())\n",
            TORCHTPU_MODE="fast",
            TORCH_DEVICE_BACKEND_AUTOLOAD=autoload,
        )
        assert r.returncode == 0, r.stderr
        assert "TORCHTPU_MODE='fast' is not a torchtpu mode" in r.stderr
        assert "strict [3.0, 3.0]" in r.stdout


def test_a_bad_environment_never_breaks_import_torch() -> None:
    # Plain `import torch` autoloads torchtpu: a bad setting warns, and the CPU
    # works; importing torch again (a second attempt) is harmless.
    r = run_python(
        "import torch\n"
        "import importlib, torch\n"
        "importlib.reload(torch.nn)\n"
        "print((torch.ones(2) + 1).tolist(), (torch.ones(2, device='tpu') + 1).tolist())\n",
        TORCHTPU_MODE="bogus",
        TORCHTPU_CPU_FALLBACK="maybe",
    )
    assert r.returncode == 0, r.stderr
    assert "TORCHTPU_MODE='bogus'" in r.stderr and "TORCHTPU_CPU_FALLBACK='maybe'" in r.stderr
    assert "[2.0, 2.0] [2.0, 2.0]" in r.stdout
    # torchtpu itself failing to import: `import torch` warns and works.
    r = run_python(
        "import sys\n"
        "sys.modules['torchtpu'] = None\n"
        "import torch\n"
        "print((torch.ones(2) + 1).tolist())\n"
    )
    assert r.returncode == 0, r.stderr
    assert "torchtpu was not loaded" in r.stderr
    assert "[2.0, 2.0]" in r.stdout


def test_sync_waits_for_launched_work() -> None:
    x = torch.ones(256, 256, device="tpu")
    for _ in range(5):
        x = x * 1.5
    torchtpu.sync()
    torch.tpu.synchronize()
    assert x[0, 0].item() == 1.5**5


def test_switching_modes_keeps_values() -> None:
    x = torch.arange(4.0, device="tpu")
    torchtpu.set_mode("launch_blocking")
    y = x + 1
    torchtpu.set_mode("strict")
    z = y * 2
    assert z.cpu().tolist() == [2.0, 4.0, 6.0, 8.0]


# ---- coverage tiers ---------------------------------------------------------------------

# Ops that run on the CPU (no tpu lowering): (name in the metrics, a call on a tpu tensor).
# The first whose ATen op has no lowering is used, so the tests follow the lowerings.
FALLBACK_CANDIDATES = [
    ("aten::_fft_r2c", lambda x: torch.fft.rfft(x)),
    ("aten::linalg_qr", lambda x: torch.linalg.qr(x.reshape(2, 4)).Q),
    ("aten::_linalg_svd", lambda x: torch.linalg.svdvals(x.reshape(2, 4))),
    ("aten::_linalg_eigvals", lambda x: torch.linalg.eigvals(x.reshape(2, 2, 2))),
]


def unlowered_op() -> tuple[str, object]:
    lowered = set(torchtpu._C._lowered_ops())
    for name, fn in FALLBACK_CANDIDATES:
        if name not in lowered and name + ".out" not in lowered:
            return name, fn
    pytest.skip("every candidate op has a lowering now")


def test_fallback_runs_on_cpu_counted_and_warned_once() -> None:
    name, fn = unlowered_op()
    x = torch.arange(8.0)
    expected = fn(x)  # type: ignore[operator]
    torchtpu.metrics.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = fn(x.to("tpu"))  # type: ignore[operator]
        second = fn(x.to("tpu"))  # type: ignore[operator]
    assert first.device.type == "tpu"
    torch.testing.assert_close(first.cpu(), expected)
    torch.testing.assert_close(second.cpu(), expected)
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    hits = {op: n for op, n in fallbacks.items() if op.startswith(name)}
    assert hits and sum(hits.values()) >= 2, fallbacks
    # Warned at most once per op in the process (and exactly once in a fresh one below).
    mine = [w for w in caught if name in str(w.message)]
    assert len(mine) <= 1


def test_fallback_warning_is_given_once_per_op_in_a_fresh_process() -> None:
    name, _ = unlowered_op()
    r = run_python(
        "import warnings, torch, torchtpu\n"
        "warnings.simplefilter('always')\n"
        "x = torch.arange(8.0, device='tpu')\n"
        "m = x.reshape(2, 4)\n"
        "for _ in range(3):\n"
        "    torch.fft.rfft(x); torch.linalg.qr(m); torch.linalg.svdvals(m)\n"
        "    torch.linalg.eigvals(x.reshape(2, 2, 2))\n"
        "print('fallbacks', torchtpu.metrics.counters()['fallbacks'])\n"
    )
    assert r.returncode == 0, r.stderr
    warned = [
        line for line in r.stderr.splitlines() if f"{name}" in line and "runs on the CPU" in line
    ]
    assert len(warned) == 1, r.stderr
    assert "torchtpu.metrics" in warned[0]


def test_fallback_off_raises_not_implemented_naming_the_op() -> None:
    name, fn = unlowered_op()
    x = torch.arange(8.0, device="tpu")
    torchtpu.set_cpu_fallback(False)
    try:
        with pytest.raises(NotImplementedError, match=f"{name}.*no tpu lowering.*fallback is off"):
            fn(x)  # type: ignore[operator]
        # Lowered ops keep working.
        assert (x + 1).sum().item() == 36.0
    finally:
        torchtpu.set_cpu_fallback(True)
    fn(x)  # type: ignore[operator]


def test_fallback_off_by_env_var() -> None:
    name, _ = unlowered_op()
    r = run_python(
        "import torch, torchtpu\n"
        "x = torch.arange(8.0, device='tpu')\n"
        "print((x + 1).sum().item())\n"
        "for f in (lambda: torch.fft.rfft(x), lambda: torch.linalg.qr(x.reshape(2, 4)),\n"
        "          lambda: torch.linalg.svdvals(x.reshape(2, 4)),\n"
        "          lambda: torch.linalg.eigvals(x.reshape(2, 2, 2))):\n"
        "    try:\n"
        "        f()\n"
        "    except NotImplementedError as e:\n"
        "        print('NotImplementedError:', e)\n",
        TORCHTPU_CPU_FALLBACK="0",
    )
    assert r.returncode == 0, r.stderr
    assert "36.0" in r.stdout
    assert f"NotImplementedError: torchtpu: {name}" in r.stdout
    assert "TORCHTPU_CPU_FALLBACK=1" in r.stdout
