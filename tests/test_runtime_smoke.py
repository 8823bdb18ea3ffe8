"""The Python face of the runtime: import, devices, a program, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import torchtpu
from torchtpu import _C

ADD = """module @add {
  func.func public @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
    %c = stablehlo.add %a, %b : tensor<3xf32>
    return %c : tensor<3xf32>
  }
}"""


def test_import_lists_devices() -> None:
    devs = torchtpu.devices()
    assert len(devs) >= 1
    assert devs[0].index == 0
    info = torchtpu.info()
    assert info.platform == "cpu"
    assert info.api_version[0] == _C.runtime.supported_api_major_version()


def test_compile_and_run_matches_numpy() -> None:
    c = torchtpu.client()
    exe = c.compile(ADD)
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    b = np.array([0.5, -1.0, 4.0], dtype=np.float32)
    (out,) = exe.execute([c.to_device(a), c.to_device(b)])
    np.testing.assert_array_equal(out.numpy(), a + b)


def test_errors_are_runtime_errors_and_the_process_goes_on() -> None:
    c = torchtpu.client()
    with pytest.raises(RuntimeError, match="stablehlo.addd"):
        c.compile(ADD.replace("stablehlo.add", "stablehlo.addd"))
    exe = c.compile(ADD)
    x = c.to_device(np.zeros(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="takes 2 argument"):
        exe.execute([x])
    with pytest.raises(RuntimeError, match="must be tensor<3xf32>"):
        exe.execute([x, c.to_device(np.zeros(3, dtype=np.int32))])
    with pytest.raises(RuntimeError, match="not found"):
        _C.runtime.Plugin.load("/no/such/plugin.so")
    (out,) = exe.execute([x, x])
    assert out.numpy().tolist() == [0.0, 0.0, 0.0]


def test_serialized_executable_round_trip() -> None:
    c = torchtpu.client()
    blob = c.compile(ADD).serialize()
    exe = c.deserialize(blob)
    one = c.to_device(np.ones(3, dtype=np.float32))
    (out,) = exe.execute([one, one])
    assert out.numpy().tolist() == [2.0, 2.0, 2.0]
