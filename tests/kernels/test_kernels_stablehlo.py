"""StableHLO kernels: real torch ops on "tpu" in strict and defer mode,
compared with the same computation in PyTorch on the CPU."""

from __future__ import annotations

import pytest
import torch

import torchtpu
from torchtpu import kernels
from torchtpu.kernels import TensorSpec

TEXT = """
module @add_twice attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>)
      -> (tensor<4x8xf32> {jax.result_info = "sum"}, tensor<8xf32>) {
    %0 = stablehlo.add %x, %y : tensor<4x8xf32>
    %1 = call @twice(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0]
        : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    return %1, %2 : tensor<4x8xf32>, tensor<8xf32>
  }
  func.func private @twice(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.add %a, %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
"""

add_twice = kernels.stablehlo_kernel("ktest::add_twice", TEXT)


def _neg_text(x: TensorSpec) -> str:
    return f"""
func.func @main(%x: {x.mlir}) -> {x.mlir} {{
  %0 = stablehlo.negate %x : {x.mlir}
  return %0 : {x.mlir}
}}
"""


neg = kernels.stablehlo_kernel(
    "ktest::neg",
    _neg_text,
    schema="(Tensor x) -> Tensor",
    shapes=lambda x: torch.empty_like(x),
)


@pytest.fixture(autouse=True)
def _no_fallback():
    torchtpu.set_mode("strict")
    torchtpu.set_cpu_fallback(False)
    yield
    torchtpu.set_cpu_fallback(True)
    torchtpu.set_mode("strict")


def _reference(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    s = 2 * (x + y)
    return s, s.sum(0)


def test_is_a_torch_library_op_with_a_tpu_kernel():
    assert torch.ops.ktest.add_twice is add_twice.op
    assert torch._C._dispatch_has_kernel_for_dispatch_key("ktest::add_twice", "PrivateUse1")
    assert torch._C._dispatch_has_kernel_for_dispatch_key("ktest::add_twice", "Meta")


def test_strict_matches_cpu():
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    before = torchtpu.metrics.counters()["fallbacks"]
    s, r = add_twice(x.to("tpu"), y.to("tpu"))
    want_s, want_r = _reference(x, y)
    torch.testing.assert_close(s.cpu(), want_s)
    torch.testing.assert_close(r.cpu(), want_r)
    assert torchtpu.metrics.counters()["fallbacks"] == before


def test_views_reach_the_kernel_in_their_logical_shape():
    x = torch.randn(8, 4)
    y = torch.randn(4, 16)[:, ::2]
    s, _ = add_twice(x.to("tpu").t(), y.to("tpu")[:, :])
    torch.testing.assert_close(s.cpu(), 2 * (x.t() + y))


def test_defer_fuses_the_kernel_as_a_call():
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    xt, yt = x.to("tpu"), y.to("tpu")
    torchtpu.sync()
    torchtpu.set_mode("defer")
    torchtpu.metrics.reset()
    a = xt * 3
    s, r = add_twice(a, yt)
    out = neg(s) + r
    c = torchtpu.metrics.counters()
    assert c["flushes"] == {}, c["flushes"]  # recorded, not run
    got = out.cpu()
    c = torchtpu.metrics.counters()
    assert sum(c["flushes"].values()) == 1
    assert c["fused_ops"] >= 4
    want_s, want_r = _reference(3 * x, y)
    torch.testing.assert_close(got, -want_s + want_r)


def test_generated_text_per_shape_and_dtype():
    for shape, dtype in [((3,), torch.float32), ((2, 5), torch.float16), ((), torch.int32)]:
        x = torch.arange(int(torch.tensor(shape).prod()) if shape else 1).reshape(shape).to(dtype)
        torch.testing.assert_close(neg(x.to("tpu")).cpu(), -x)


def test_backward_given_by_the_user():
    import kernel_examples  # noqa: F401
    from stablehlo_scaled_add import scaled_add

    x = torch.randn(3, 5, device="tpu", requires_grad=True)
    y = torch.randn(3, 5, device="tpu", requires_grad=True)
    out = scaled_add(x, y, 0.25)
    (out * out).sum().backward()
    xc = x.detach().cpu().requires_grad_()
    yc = y.detach().cpu().requires_grad_()
    ref = 0.25 * xc + yc
    (ref * ref).sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach())
    torch.testing.assert_close(x.grad.cpu(), xc.grad)
    torch.testing.assert_close(y.grad.cpu(), yc.grad)


def test_inside_torch_compile():
    if not hasattr(torchtpu, "compile_backend"):
        pytest.skip("torch.compile(backend='tpu') is not in this build")
    import torch._dynamo

    torch._dynamo.reset()

    def f(x, y):
        s, r = add_twice(x * 2, y)
        return torch.relu(s) + r

    x, y = torch.randn(4, 8), torch.randn(4, 8)
    got = torch.compile(f, backend="tpu")(x.to("tpu"), y.to("tpu"))
    s, r = _reference(2 * x, y)
    torch.testing.assert_close(got.cpu(), torch.relu(s) + r)
    torch._dynamo.reset()
