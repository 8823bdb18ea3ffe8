"""The main job (for now): open the plugin, list devices, compile and run a
small two-layer MLP program, and check it against numpy."""

from __future__ import annotations

import time

import numpy as np

import torchtpu

MLP = """module @mlp {
  func.func public @main(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32>,
                         %w2: tensor<256x10xf32>) -> tensor<64x10xf32> {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0]
        : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
    %z = stablehlo.constant dense<0.0> : tensor<64x256xf32>
    %r = stablehlo.maximum %h, %z : tensor<64x256xf32>
    %y = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0]
        : (tensor<64x256xf32>, tensor<256x10xf32>) -> tensor<64x10xf32>
    return %y : tensor<64x10xf32>
  }
}"""


def main() -> None:
    info = torchtpu.info()
    print(f"plugin   {info.path}")
    print(f"PJRT API {info.api_version[0]}.{info.api_version[1]}, platform {info.platform}")
    for d in torchtpu.devices():
        print(f"device   {d.index}: {d.kind} (id {d.id})")

    client = torchtpu.client()
    t0 = time.perf_counter()
    exe = client.compile(MLP)
    print(f"compiled the MLP program in {1000 * (time.perf_counter() - t0):.1f} ms")

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 128), dtype=np.float32)
    w1 = rng.standard_normal((128, 256), dtype=np.float32) / 11
    w2 = rng.standard_normal((256, 10), dtype=np.float32) / 16
    args = [client.to_device(a) for a in (x, w1, w2)]
    exe.execute(args)[0].numpy()  # warm-up
    t0 = time.perf_counter()
    runs = 100
    for _ in range(runs):
        (y,) = exe.execute(args)
    out = y.numpy()
    per_run = 1e6 * (time.perf_counter() - t0) / runs
    ref = np.maximum(x @ w1, 0) @ w2
    err = float(np.abs(out - ref).max())
    print(f"ran it {runs} times: {per_run:.0f} us per launch; max |device - numpy| = {err:.2e}")
    assert err < 1e-3, "device result differs from numpy"


if __name__ == "__main__":
    main()
