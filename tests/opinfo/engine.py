"""The OpInfo sweep engine: run the sample inputs of PyTorch's OpInfos
(`torch.testing._internal.common_methods_invocations.op_db`) on the CPU and on
"tpu", compare, and classify each (OpInfo, dtype):

- ``native``     every sample matches the CPU and nothing fell back to the CPU
                 (torchtpu.metrics "fallbacks" stays empty: lowered or decomposed);
- ``fallback``   every sample matches, but only through the CPU fallback (the
                 ops that fell back are recorded);
- ``failing``    some sample errors or differs from the CPU on "tpu";
- ``skipped``    not run, with a written reason;
- ``cpu_error``  every sample errors on PyTorch's CPU reference itself (these are
                 excluded from the denominator of the coverage figures).

Results are compared with ``torch.testing.assert_close``'s default tolerances for
the dtype (NaN equals NaN); in float32, differentiable OpInfos also compare the
gradients of their floating inputs. Ops whose results are random or
uninitialized (``RANDOM_OPS``) compare shapes and dtypes only.
"""

from __future__ import annotations

import time
from typing import Any

import torch
import torch.utils._pytree as pytree
from torch.testing._internal.opinfo.core import SampleInput

import torchtpu

DEVICE = "tpu"
DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "bool": torch.bool,
}

# Results are random (own generator) or uninitialized: compare shape and dtype.
# OpInfos whose positional tensor arguments PyTorch requires on the CPU.
HOST_ARGS = {"tensor_split"}

RANDOM_OPS = {
    "bernoulli",
    "cauchy",
    "empty",
    "empty_like",
    "empty_permuted",
    "empty_strided",
    "exponential",
    "geometric",
    "log_normal",
    "multinomial",
    "new_empty",
    "new_empty_strided",
    "nn.functional.alpha_dropout",
    "nn.functional.dropout",
    "nn.functional.dropout2d",
    "nn.functional.dropout3d",
    "nn.functional.feature_alpha_dropout",
    "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d",
    "nn.functional.rrelu",
    "normal",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "uniform",
    "torch.empty",
    "svd_lowrank",
    "pca_lowrank",
}


# Ops that return indices among ties: PyTorch's CPU sort is not stable unless
# asked, so tied elements may come in another order. Their index outputs are
# compared by the input values they select.
TIE_OPS = {"sort": 0, "argsort": 0, "topk": 1, "kthvalue": 1}


# Ops whose outputs are unique only up to sign (singular vectors,
# eigenvectors): LAPACK and other implementations may return different valid
# answers. Their forward outputs compare after the sample's
# output_process_fn_grad (absolute values, sign-free products), applied to
# both results as PyTorch's test_compare_cpu does.
UP_TO_SIGN_OPS = {"svd", "linalg.svd", "linalg.eigh"}


def _tie_dim(op: Any, sample: Any) -> int:
    pos = TIE_OPS[op.name]
    if "dim" in sample.kwargs:
        return int(sample.kwargs["dim"])
    args = sample.args
    if len(args) > pos and isinstance(args[pos], int) and not isinstance(args[pos], bool):
        return int(args[pos])
    return -1


def _compare_ties(op: Any, sample: Any, got: Any, want: Any) -> None:
    """Values compare as usual; indices (argsort's only output, the second
    output of sort/topk/kthvalue) by the input elements they pick."""
    inp = sample.input.detach()
    dim = _tie_dim(op, sample)
    g_leaves = pytree.tree_leaves(_to_cpu(got))
    w_leaves = pytree.tree_leaves(_to_cpu(want))
    assert len(g_leaves) == len(w_leaves), "output count differs"
    index_pos = 0 if op.name == "argsort" else 1
    for k, (g, w) in enumerate(zip(g_leaves, w_leaves, strict=True)):
        if k != index_pos or inp.dim() == 0:
            _compare(g, w, False)
            continue
        assert g.shape == w.shape, f"{list(g.shape)} != {list(w.shape)}"
        if g.dim() < inp.dim():  # kthvalue without keepdim
            g, w = g.unsqueeze(dim), w.unsqueeze(dim)
        picked_g = torch.take_along_dim(inp, g, dim)
        picked_w = torch.take_along_dim(inp, w, dim)
        torch.testing.assert_close(picked_g, picked_w, equal_nan=True)


def _random_sample(op: Any, sample: Any) -> bool:
    """Samples with dropout (attention ops) draw random numbers."""
    kw = sample.kwargs
    if isinstance(kw.get("dropout_p"), float) and kw["dropout_p"] > 0:
        return True
    return op.name == "nn.functional.multi_head_attention_forward" and kw.get("training") is True


# Tolerances of floating results: PyTorch's device-vs-CPU comparison
# (test_ops.py test_compare_cpu: atol = rtol = 1e-3); bfloat16 keeps its default
# rtol (1.6e-2, one rounding step) with an atol of the same size, as XLA may
# accumulate bfloat16 sums in another order. Integers and bools compare exactly.
TOLERANCES: dict[torch.dtype, dict[str, float]] = {
    torch.float32: {"atol": 1e-3, "rtol": 1e-3},
    torch.float64: {"atol": 1e-3, "rtol": 1e-3},
    torch.float16: {"atol": 1e-3, "rtol": 1e-3},
    torch.bfloat16: {"atol": 1.6e-2, "rtol": 1.6e-2},
}

# OpInfos not run, and why.
_SPARSE = "sparse layouts are not supported on tpu (dense tensors only, by design)"
SKIPS: dict[str, str] = {
    "to_sparse": _SPARSE,
    "chalf": "complex32 (chalf) is not a tpu dtype",
}
SKIP_PREFIXES: dict[str, str] = {"sparse.": _SPARSE}


def skip_reason(name: str) -> str | None:
    if name in SKIPS:
        return SKIPS[name]
    for prefix, reason in SKIP_PREFIXES.items():
        if name.startswith(prefix):
            return reason
    return None


def full_name(op: Any) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def op_db() -> list[Any]:
    from torch.testing._internal.common_methods_invocations import op_db as db

    return list(db)


def declared_dtypes(op: Any) -> list[str]:
    supported = op.supported_dtypes("cpu")
    return [name for name, dt in DTYPES.items() if dt in supported]


def _to_cpu(tree: Any) -> Any:
    return pytree.tree_map(lambda t: t.detach().cpu() if isinstance(t, torch.Tensor) else t, tree)


def _compare(got: Any, want: Any, metadata_only: bool) -> None:
    got = _to_cpu(got)
    want = _to_cpu(want)
    if metadata_only:
        g_leaves, g_spec = pytree.tree_flatten(got)
        w_leaves, w_spec = pytree.tree_flatten(want)
        assert g_spec == w_spec, f"output structure {g_spec} != {w_spec}"
        for g, w in zip(g_leaves, w_leaves, strict=True):
            if isinstance(w, torch.Tensor):
                assert isinstance(g, torch.Tensor), f"{type(g)} is not a tensor"
                assert g.shape == w.shape and g.dtype == w.dtype, (
                    f"{g.dtype}{list(g.shape)} != {w.dtype}{list(w.shape)}"
                )
        return
    tol = TOLERANCES.get(_dtype_of(want), {})
    torch.testing.assert_close(got, want, equal_nan=True, check_device=False, **tol)


def _dtype_of(tree: Any) -> torch.dtype | None:
    for t in pytree.tree_leaves(tree):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            return t.dtype
    return None


def _grad_inputs(sample: Any) -> list[torch.Tensor]:
    leaves = pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
    return [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad]


def _grads(op: Any, sample: Any, out: Any, seed: int) -> list[torch.Tensor | None]:
    out = sample.output_process_fn_grad(out)
    outs = [
        t
        for t in pytree.tree_leaves(out)
        if isinstance(t, torch.Tensor) and t.requires_grad and t.is_floating_point()
    ]
    inputs = _grad_inputs(sample)
    if not outs or not inputs:
        return []
    gen = torch.Generator().manual_seed(seed)
    cotangents = [torch.randn(t.shape, generator=gen, dtype=t.dtype).to(t.device) for t in outs]
    return list(torch.autograd.grad(outs, inputs, cotangents, allow_unused=True))


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:300]


def run_op(op: Any, dtype_name: str, max_samples: int | None = None) -> dict[str, Any]:
    """Run one OpInfo in one dtype; the result dict records the class, the
    number of samples run, the ops that fell back and the first failure."""
    name = full_name(op)
    result: dict[str, Any] = {"op": name, "dtype": dtype_name}
    reason = skip_reason(name)
    if reason:
        return {**result, "status": "skipped", "reason": reason}
    dtype = DTYPES[dtype_name]
    grad = dtype == torch.float32 and op.supports_autograd
    metadata_only = op.name in RANDOM_OPS or name in RANDOM_OPS
    t0 = time.perf_counter()
    torch.manual_seed(0)
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=grad))
    except Exception as exc:  # noqa: BLE001 - a broken generator is a CPU-side error
        return {**result, "status": "cpu_error", "reason": f"sample_inputs: {_short(exc)}"}
    if max_samples is not None:
        samples = samples[:max_samples]
    fallbacks: dict[str, int] = {}
    ran = cpu_errors = 0
    failure: str | None = None
    grads_checked = 0
    for i, sample in enumerate(samples):
        tpu_sample = sample.transform(_to_device_leaf)
        if name in HOST_ARGS:
            # PyTorch requires these positional tensor arguments on the host
            # (as its device tests build them).
            tpu_sample = SampleInput(tpu_sample.input, args=sample.args, kwargs=tpu_sample.kwargs)
        try:
            torch.manual_seed(i)
            want = op(sample.input, *sample.args, **sample.kwargs)
            want_grads = _grads(op, sample, want, i) if grad else []
        except Exception:  # noqa: BLE001 - PyTorch's CPU reference rejects this sample
            cpu_errors += 1
            continue
        ran += 1
        torchtpu.metrics.reset()
        try:
            torch.manual_seed(i)
            got = op(tpu_sample.input, *tpu_sample.args, **tpu_sample.kwargs)
            meta = metadata_only or _random_sample(op, sample)
            if op.name in TIE_OPS and not meta:
                _compare_ties(op, sample, got, want)
            elif op.name in UP_TO_SIGN_OPS and not meta:
                _compare(
                    tpu_sample.output_process_fn_grad(got),
                    sample.output_process_fn_grad(want),
                    False,
                )
            else:
                _compare(got, want, meta)
            if grad and want_grads:
                got_grads = _grads(op, tpu_sample, got, i)
                _compare(got_grads, want_grads, meta)
                grads_checked += 1
        except Exception as exc:  # noqa: BLE001 - any error on tpu is a failure
            failure = f"{_short(exc)} [sample {i}]"
        for k, v in torchtpu.metrics.counters()["fallbacks"].items():
            fallbacks[k] = fallbacks.get(k, 0) + v
        if failure:
            break
    result.update(
        samples=ran,
        cpu_error_samples=cpu_errors,
        grad_samples=grads_checked,
        fallbacks=fallbacks,
        seconds=round(time.perf_counter() - t0, 3),
    )
    if ran == 0:
        return {**result, "status": "cpu_error", "reason": "every sample errors on CPU"}
    if failure:
        return {**result, "status": "failing", "reason": failure}
    if fallbacks:
        return {
            **result,
            "status": "fallback",
            "reason": "CPU fallback: " + ", ".join(sorted(fallbacks)),
        }
    return {**result, "status": "native"}


def _to_device_leaf(t: Any) -> Any:
    if not isinstance(t, torch.Tensor):
        return t
    base = t._base
    if base is not None and base.is_contiguous():
        # A view keeps its place in its base's storage (as_strided with an
        # explicit storage_offset reads there), as it would on a CUDA device.
        dev = base.detach().to(DEVICE)
        view = dev.as_strided(t.shape, t.stride(), t.storage_offset() - base.storage_offset())
        return view.requires_grad_(t.requires_grad)
    return t.detach().to(DEVICE).requires_grad_(t.requires_grad)
