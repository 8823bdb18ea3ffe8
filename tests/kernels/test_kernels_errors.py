"""Bad kernels get clear errors naming the kernel, at definition time where
the text is known, else at the call; JAX stays optional."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

import torchtpu
from torchtpu import kernels
from torchtpu.kernels import KernelError, TensorSpec

GOOD = """
func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_text_that_does_not_parse():
    bad = GOOD.replace("stablehlo.negate", "stablehlo.no_such_op")
    with pytest.raises(KernelError, match=r"kernel kerr::parse: the plugin cannot compile"):
        kernels.stablehlo_kernel("kerr::parse", bad)


def test_text_without_main_or_with_dynamic_shapes():
    with pytest.raises(KernelError, match=r"kerr::nomain.*func.func @main"):
        kernels.stablehlo_kernel("kerr::nomain", GOOD.replace("@main", "@other"))
    with pytest.raises(KernelError, match=r"kerr::dyn.*statically shaped"):
        kernels.stablehlo_kernel("kerr::dyn", GOOD.replace("tensor<4xf32>", "tensor<?xf32>"))


def test_declared_shapes_disagree_at_definition():
    with pytest.raises(KernelError, match=r"kerr::shape: its shape function declares"):
        kernels.stablehlo_kernel(
            "kerr::shape", GOOD, shapes=lambda x: torch.empty(5, dtype=x.dtype, device=x.device)
        )


def test_declared_shapes_disagree_at_the_call():
    def text(x: TensorSpec) -> str:
        return GOOD.replace("tensor<4xf32>", x.mlir)

    k = kernels.stablehlo_kernel(
        "kerr::shape_call",
        text,
        schema="(Tensor x) -> Tensor",
        shapes=lambda x: torch.empty(x.shape[0] + 1, dtype=x.dtype, device=x.device),
    )
    with pytest.raises(RuntimeError, match=r"kernel kerr::shape_call: its StableHLO returns"):
        k(torch.randn(4, device="tpu"))


def test_wrong_dtypes_at_the_call():
    k = kernels.stablehlo_kernel("kerr::dtype", GOOD)
    torch.testing.assert_close(k(torch.ones(4, device="tpu")).cpu(), -torch.ones(4))
    with pytest.raises(RuntimeError, match=r"kernel kerr::dtype: its StableHLO takes"):
        k(torch.ones(4, dtype=torch.float16, device="tpu"))
    with pytest.raises(RuntimeError, match=r"kernel kerr::dtype: .*tensor<3xf32>"):
        k(torch.ones(3, device="tpu"))


def test_bad_names_schemas_and_duplicates():
    with pytest.raises(KernelError, match="namespace::name"):
        kernels.stablehlo_kernel("nonamespace", GOOD)
    with pytest.raises(KernelError, match="reserved"):
        kernels.stablehlo_kernel("aten::mine", GOOD)
    with pytest.raises(KernelError, match=r"kerr::sch: argument 'x' has type"):
        kernels.stablehlo_kernel("kerr::sch", GOOD, schema="(Scalar x) -> Tensor")
    kernels.stablehlo_kernel("kerr::twice", GOOD)
    with pytest.raises(KernelError, match="kerr::twice is already defined"):
        kernels.stablehlo_kernel("kerr::twice", GOOD)


def test_provider_errors_name_the_kernel():
    def text(x: TensorSpec) -> str:
        raise ValueError("only 2-d inputs")

    k = kernels.stablehlo_kernel(
        "kerr::provider", text, schema="(Tensor x) -> Tensor", shapes=lambda x: x
    )
    with pytest.raises(RuntimeError, match=r"kernel kerr::provider .*only 2-d inputs"):
        k(torch.ones(3, device="tpu"))


def test_jax_kernel_with_a_mismatched_num_outputs():
    pytest.importorskip("jax")

    def two(x):
        return x, x

    k = kernels.jax_kernel("kerr::outs", two)
    with pytest.raises(Exception, match=r"kerr::outs.*num_outputs is 1"):
        k(torch.ones(2, device="tpu"))


def test_without_jax_the_rest_works_and_the_api_says_what_to_install():
    code = (
        "import sys\n"
        "sys.modules['jax'] = None\n"  # as if JAX were not installed
        "import torch, torchtpu\n"
        "from torchtpu import kernels\n"
        "x = torch.arange(4.0, device='tpu')\n"
        "assert (x * 2).cpu().tolist() == [0.0, 2.0, 4.0, 6.0]\n"
        f"k = kernels.stablehlo_kernel('nojax::neg', {GOOD!r})\n"
        "assert k(x).cpu().tolist() == [-0.0, -1.0, -2.0, -3.0]\n"
        "try:\n"
        "    kernels.jax_kernel('nojax::f', lambda x: x)\n"
        "except ImportError as e:\n"
        "    print('IMPORT ERROR:', e)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "IMPORT ERROR:" in r.stdout
    assert "torchtpu[kernels]" in r.stdout


def test_cpu_inputs_are_refused_clearly():
    k = kernels.stablehlo_kernel("kerr::cpu", GOOD)
    with pytest.raises(KernelError, match=r"kerr::cpu runs on 'tpu' tensors only"):
        k(torch.ones(4))


def test_kernels_module_is_importable_from_the_package():
    assert torchtpu.kernels is kernels
