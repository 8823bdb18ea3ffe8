"""Bad input gets a Python exception a person can act on, and the process goes on:
mixed devices, unsupported dtypes, out of device memory, a missing plugin."""

from __future__ import annotations

import subprocess
import warnings

import child_python
import pytest
import torch

import torchtpu

SAME_DEVICE = "Expected all tensors to be on the same device"


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return child_python.run_python(code, 180, **env)


def still_works() -> None:
    x = torch.arange(4.0, device="tpu")
    assert (x * 2 + 1).cpu().tolist() == [1.0, 3.0, 5.0, 7.0]


# ---- mixed devices --------------------------------------------------------------------


@pytest.mark.parametrize(
    "op",
    [
        lambda d, c: d + c,
        lambda d, c: c + d,
        lambda d, c: torch.mm(d.reshape(2, 2), c.reshape(2, 2)),
        lambda d, c: torch.where(c > 0, d, 0.0),
        lambda d, c: d.add_(c),
        lambda d, c: torch.add(d, 1, out=c),
        lambda d, c: torch.cat([d, c]),
    ],
    ids=["add", "radd", "mm", "where", "add_", "out_cpu", "cat"],
)
def test_mixing_cpu_and_tpu_tensors(op: object) -> None:
    d = torch.arange(4.0, device="tpu")
    c = torch.arange(4.0)
    with pytest.raises(RuntimeError, match=SAME_DEVICE):
        op(d, c)  # type: ignore[operator]
    assert torch.equal(d.cpu(), torch.arange(4.0))  # nothing was written
    still_works()


def test_mixing_devices_in_an_op_that_runs_on_the_cpu() -> None:
    x = torch.arange(8.0, device="tpu")
    out = torch.empty(5, dtype=torch.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=SAME_DEVICE):
            torch.fft.rfft(x, out=out)
    still_works()


def test_cpu_scalars_and_cpu_indices_are_allowed_as_on_cuda() -> None:
    x = torch.arange(5.0, device="tpu")
    assert (x + torch.tensor(2.0)).cpu().tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]
    assert x[torch.tensor([0, 2])].cpu().tolist() == [0.0, 2.0]
    x[torch.tensor([1])] = 9.0
    assert x.cpu().tolist() == [0.0, 9.0, 2.0, 3.0, 4.0]
    x.index_put_((torch.tensor([4]),), torch.tensor(-1.0))
    assert x.cpu().tolist() == [0.0, 9.0, 2.0, 3.0, -1.0]


# ---- unsupported dtypes ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2, torch.complex32])
def test_unsupported_dtypes_are_clear_errors(dtype: torch.dtype) -> None:
    match = "is not supported on the tpu device"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexHalf is "experimental"
        with pytest.raises(TypeError, match=match):
            torch.empty(3, dtype=dtype, device="tpu")
        with pytest.raises(TypeError, match=match):
            torch.zeros(3, dtype=dtype).to("tpu")
        with pytest.raises(TypeError, match=match):
            torch.ones(3, device="tpu").to(dtype)
    still_works()


def test_quantized_and_sparse_tensors_are_clear_errors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quantize_per_tensor is deprecated
        q = torch.quantize_per_tensor(torch.ones(3), 0.1, 0, torch.quint8)
        with pytest.raises(NotImplementedError, match="quantized tensors are not supported"):
            q.to("tpu")
    with pytest.raises(NotImplementedError, match="sparse tensors are not supported"):
        torch.ones(3).to_sparse().to("tpu")
    still_works()


# ---- out of device memory ------------------------------------------------------------------

# The child limits its address space (child_python.ADDRESS_SPACE_LIMIT): room
# for the 3.5 GiB host tensor of "upload", not for its device copy too.
OOM_CHILD = (
    child_python.ADDRESS_SPACE_LIMIT
    + """
x = torch.empty(2**40, device="tpu")  # nothing allocated yet
print("empty ok", x.shape[0] == 2**40)
for name, f in [
    ("fill", lambda: x.fill_(1)),
    ("zeros", lambda: torch.zeros(2**38, device="tpu")),
    ("upload", lambda: torch.empty(7 * 2**29, dtype=torch.uint8).to("tpu")),
    ("resize", lambda: torch.ones(1, device="tpu").untyped_storage().resize_(2**40)),
]:
    try:
        f()
        print(name, "no error")
    except torch.OutOfMemoryError as e:
        print(name, "OutOfMemoryError:", str(e).splitlines()[0])
    except RuntimeError as e:
        print(name, "RuntimeError:", str(e).splitlines()[0])
del x
print("after", (torch.ones(3, device="tpu") + 1).cpu().tolist())
"""
)


def test_out_of_device_memory_is_an_error_and_the_process_goes_on() -> None:
    r = run_python(OOM_CHILD)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert "empty ok True" in out
    for name in ["fill", "zeros", "resize"]:
        assert f"{name} OutOfMemoryError: torchtpu: out of device memory" in out, out
    assert "upload OutOfMemoryError" in out or "upload no error" in out, out
    assert "after [2.0, 2.0, 2.0]" in out


def test_out_of_memory_error_is_a_runtime_error() -> None:
    assert issubclass(torch.OutOfMemoryError, RuntimeError)


# ---- missing or wrong plugin ------------------------------------------------------------------

PLUGIN_CHILD = """
import torch

import torchtpu
print("available", torch.tpu.is_available(), torch.tpu.device_count())
try:
    torch.ones(2, device="tpu")
except RuntimeError as e:
    print("error:", e)
print("cpu", torch.ones(2).sum().item())
"""


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        ("/nonexistent/libfoo.so", "PJRT plugin '/nonexistent/libfoo.so' not found"),
        ("cuda", "pip install jax-cuda"),
        ("tpu", "pip install libtpu"),
        ("/etc/hostname", "cannot load '/etc/hostname' as a PJRT plugin"),
    ],
)
def test_missing_plugin_is_a_clear_error(plugin: str, message: str) -> None:
    r = run_python(PLUGIN_CHILD, TORCHTPU_PJRT_PLUGIN=plugin)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "available False 0" in r.stdout
    assert "error:" in r.stdout and message in r.stdout, r.stdout
    assert "cpu 2.0" in r.stdout


# ---- other misuse -----------------------------------------------------------------------------


def test_other_misuse_raises_and_the_process_goes_on() -> None:
    x = torch.ones(3, 4, device="tpu")
    with pytest.raises(RuntimeError, match="must match the size"):
        x + torch.ones(5, device="tpu")
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.t().view(12)
    with pytest.raises(IndexError):
        x[7]
    with pytest.raises(RuntimeError):
        torch.mm(x, x)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.ones(2, device="tpu", requires_grad=True).add_(1)
    still_works()


def test_user_errors_keep_their_type_with_the_fallback_off() -> None:
    torchtpu.set_cpu_fallback(False)
    try:
        with pytest.raises(RuntimeError, match="broadcast|size"):
            torch.ones(3, 4, device="tpu") + torch.ones(5, device="tpu")
        assert (torch.ones(3, device="tpu") + 1).cpu().tolist() == [2.0, 2.0, 2.0]
    finally:
        torchtpu.set_cpu_fallback(True)
