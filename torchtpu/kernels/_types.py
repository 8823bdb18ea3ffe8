"""Tensor types of kernel signatures: StableHLO element-type names <-> torch dtypes."""

from __future__ import annotations

from dataclasses import dataclass

import torch

_BY_NAME: dict[str, torch.dtype] = {
    "i1": torch.bool,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "ui8": torch.uint8,
    "ui16": torch.uint16,
    "ui32": torch.uint32,
    "ui64": torch.uint64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
    "complex<f32>": torch.complex64,
    "complex<f64>": torch.complex128,
}
_BY_DTYPE = {v: k for k, v in _BY_NAME.items()}


def dtype_from_name(name: str) -> torch.dtype:
    """The torch dtype of a StableHLO element type name ("f32" -> torch.float32)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"no torch dtype for StableHLO element type {name!r}") from None


def name_of(dtype: torch.dtype) -> str:
    """The StableHLO element type name of a torch dtype (torch.float32 -> "f32")."""
    try:
        return _BY_DTYPE[dtype]
    except KeyError:
        raise ValueError(f"{dtype} has no StableHLO element type") from None


@dataclass(frozen=True)
class TensorSpec:
    """The shape and dtype of a kernel input or output."""

    shape: tuple[int, ...]
    dtype: torch.dtype

    @staticmethod
    def of(t: torch.Tensor) -> TensorSpec:
        return TensorSpec(tuple(int(d) for d in t.shape), t.dtype)

    @staticmethod
    def from_native(item: tuple[str, tuple[int, ...]]) -> TensorSpec:
        """From the (element type name, dims) pairs torchtpu._C uses."""
        name, dims = item
        return TensorSpec(tuple(int(d) for d in dims), dtype_from_name(name))

    @property
    def mlir(self) -> str:
        """The StableHLO tensor type: "tensor<4x8xf32>"."""
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + name_of(self.dtype) + ">"

    def __str__(self) -> str:
        return f"{name_of(self.dtype)}{list(self.shape)}"
