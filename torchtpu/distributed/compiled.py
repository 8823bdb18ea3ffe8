"""The compiled path of the "tpu" process group: collectives as device programs.

Used when every rank of the group is a thread of this process on its own tpu
device (see ``meeting``): each collective is one replicated program launched
across the ranks' devices, with no host staging. Each method returns a
completed work handle, or None when the call needs the host path (CPU tensors,
bitwise or PREMUL_SUM reductions, uneven all_to_all splits).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

import torch
import torch.distributed as dist

from torchtpu import _C
from torchtpu.distributed import comm
from torchtpu.distributed.errors import CollectiveMismatchError
from torchtpu.distributed.meeting import Meeting
from torchtpu.distributed.work import completed


def _launcher(kind: str, op: str = "sum", dim: int = 0, root: int = 0) -> Any:
    def launch(payloads: list[list[torch.Tensor]]) -> list[list[torch.Tensor]]:
        try:
            return _C._collective(kind, payloads, op, dim, root)
        except ValueError as e:
            raise CollectiveMismatchError(str(e).replace("participant", "rank")) from e

    return launch


_copy = comm.copy_into


class CompiledCollectives:
    def __init__(self, meeting: Meeting, rank: int, size: int, timeout: datetime.timedelta) -> None:
        self.meeting = meeting
        self.rank = rank
        self.size = size
        self.timeout = timeout
        self._seq = 0

    # ---- plumbing -------------------------------------------------------------

    @staticmethod
    def applies(tensors: Sequence[torch.Tensor]) -> bool:
        return len(tensors) > 0 and all(t.device.type == "tpu" for t in tensors)

    def _meet(self, op: str, payload: list[torch.Tensor], launch: Any) -> list[torch.Tensor]:
        seq = self._seq
        self._seq += 1
        return self.meeting.run(seq, self.rank, op, payload, launch, self.timeout)

    @staticmethod
    def _flush() -> None:
        # Runs this rank's deferred work: a flush point of its device's trace only
        # (the other ranks are still recording theirs).
        _C._flush("collective", torch.tpu.current_device())

    @classmethod
    def _prepare(cls, tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """This rank's inputs as dense values, after its deferred work has run."""
        cls._flush()
        return [t.detach().contiguous() for t in tensors]

    # ---- collectives ------------------------------------------------------------

    @staticmethod
    def _reduction(reduce_op: Any) -> tuple[str | None, Any]:
        """The compiled reduction's name and a PREMUL_SUM factor (else None)."""
        factor = comm.premul_factor(reduce_op)
        if factor is not None:
            return "sum", factor
        return comm.reduce_op_name(reduce_op), None

    @staticmethod
    def _scaled(payload: list[torch.Tensor], factor: Any) -> list[torch.Tensor]:
        return payload if factor is None else [p * factor for p in payload]

    def allreduce(self, tensors: list[torch.Tensor], reduce_op: Any) -> dist.Work | None:
        name, factor = self._reduction(reduce_op)
        if name is None or not self.applies(tensors):
            return None
        payload = self._scaled(self._prepare(tensors), factor)
        out = self._meet("all_reduce", payload, _launcher("all_reduce", name))
        for t, o in zip(tensors, out, strict=True):
            _copy(t, o)
        return completed(tensors)

    def broadcast(self, tensors: list[torch.Tensor], root: int) -> dist.Work | None:
        if not self.applies(tensors):
            return None
        out = self._meet("broadcast", self._prepare(tensors), _launcher("broadcast", root=root))
        if self.rank != root:
            for t, o in zip(tensors, out, strict=True):
                _copy(t, o)
        return completed(tensors)

    def reduce(self, tensors: list[torch.Tensor], reduce_op: Any, root: int) -> dist.Work | None:
        name, factor = self._reduction(reduce_op)
        if name is None or not self.applies(tensors):
            return None
        payload = self._scaled(self._prepare(tensors), factor)
        out = self._meet("reduce", payload, _launcher("all_reduce", name))
        if self.rank == root:
            for t, o in zip(tensors, out, strict=True):
                _copy(t, o)
        return completed(tensors)

    def allgather(
        self, outputs: list[list[torch.Tensor]], inputs: list[torch.Tensor]
    ) -> dist.Work | None:
        flat_out = [t for lst in outputs for t in lst]
        if not self.applies(inputs) or not self.applies(flat_out):
            return None
        payload = [x.unsqueeze(0) for x in self._prepare(inputs)]
        out = self._meet("all_gather", payload, _launcher("all_gather"))
        for lst, gathered in zip(outputs, out, strict=True):
            for r, dst in enumerate(lst):
                _copy(dst, gathered[r])
        return completed(flat_out)

    def allgather_into(
        self, outputs: list[torch.Tensor], inputs: list[torch.Tensor]
    ) -> dist.Work | None:
        if not self.applies(inputs) or not self.applies(outputs):
            return None
        for o, i in zip(outputs, inputs, strict=True):
            if o.numel() != i.numel() * self.size:
                raise ValueError(
                    f"torchtpu.distributed: all_gather_into_tensor output has {o.numel()} "
                    f"elements, expected {i.numel()} x {self.size}"
                )
        payload = [x.reshape(-1) for x in self._prepare(inputs)]
        out = self._meet("all_gather_into_tensor", payload, _launcher("all_gather"))
        for dst, src in zip(outputs, out, strict=True):
            _copy(dst, src)
        return completed(outputs)

    def reduce_scatter(
        self, outputs: list[torch.Tensor], inputs: list[list[torch.Tensor]], reduce_op: Any
    ) -> dist.Work | None:
        name, factor = self._reduction(reduce_op)
        flat_in = [t for lst in inputs for t in lst]
        if name is None or not self.applies(outputs) or not self.applies(flat_in):
            return None
        self._flush()
        payload = self._scaled([torch.stack([t.detach() for t in lst]) for lst in inputs], factor)
        out = self._meet("reduce_scatter", payload, _launcher("reduce_scatter", name))
        for dst, src in zip(outputs, out, strict=True):
            _copy(dst, src[0])
        return completed(outputs)

    def reduce_scatter_into(
        self, outputs: list[torch.Tensor], inputs: list[torch.Tensor], reduce_op: Any
    ) -> dist.Work | None:
        name, factor = self._reduction(reduce_op)
        if name is None or not self.applies(outputs) or not self.applies(inputs):
            return None
        for o, i in zip(outputs, inputs, strict=True):
            if i.numel() != o.numel() * self.size:
                raise ValueError(
                    f"torchtpu.distributed: reduce_scatter_tensor input has {i.numel()} "
                    f"elements, expected {o.numel()} x {self.size}"
                )
        payload = self._scaled([x.reshape(self.size, -1) for x in self._prepare(inputs)], factor)
        out = self._meet("reduce_scatter_tensor", payload, _launcher("reduce_scatter", name))
        for dst, src in zip(outputs, out, strict=True):
            _copy(dst, src)
        return completed(outputs)

    def all_to_all_single(
        self,
        output: torch.Tensor,
        input: torch.Tensor,
        output_split_sizes: list[int],
        input_split_sizes: list[int],
    ) -> dist.Work | None:
        if not self.applies([output, input]):
            return None
        even = input.dim() > 0 and input.shape[0] % self.size == 0
        for splits, t in ((input_split_sizes, input), (output_split_sizes, output)):
            if splits and (len(set(splits)) != 1 or splits[0] * self.size != t.shape[0]):
                even = False
        if not even or output.shape != input.shape:
            return None  # uneven splits: host path
        payload = [self._prepare([input])[0].reshape(self.size, -1)]
        out = self._meet("all_to_all_single", payload, _launcher("all_to_all"))
        _copy(output, out[0])
        return completed([output])

    def barrier(self) -> dist.Work:
        self._meet("barrier", [], lambda payloads: [[] for _ in payloads])
        return completed([])
