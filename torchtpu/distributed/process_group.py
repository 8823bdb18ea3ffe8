"""The "tpu" c10d process group: collectives on tpu tensors.

Two paths, chosen by where the ranks are. When every rank is a thread of this
process on its own tpu device (``torchtpu.distributed.run_threads``), the
collectives are compiled: one replicated device program across the ranks'
devices (``compiled.py``). Otherwise (ranks in separate processes: the CPU PJRT
plugin cannot run collectives across processes) each collective copies its tpu
inputs to the host (one flush in defer mode), runs on an inner Gloo group over
the same store, and writes the results back into the caller's tensors in place
when the work is waited for. CPU tensors go straight to Gloo.

torch 2.13 lets Python subclass ``ProcessGroup`` (not ``Backend``), so the "tpu"
backend is a whole process group: ``init_process_group("cpu:gloo,tpu:tpu")``
gives this group, which serves both devices.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch._C._distributed_c10d as _c10d
import torch.distributed as dist

import torchtpu.device
from torchtpu.distributed import checks, comm, errors, meeting
from torchtpu.distributed.compiled import CompiledCollectives
from torchtpu.distributed.staging import copy_back, empty_host, to_host
from torchtpu.distributed.work import StagedWork

ReduceOp = dist.ReduceOp


def _reduce_op(op: Any) -> tuple[Any, bool, Any]:
    """Gloo's reduce op for `op`, whether to divide by the group size after, and
    the factor to multiply the inputs by first (PREMUL_SUM), or None."""
    if op == ReduceOp.AVG:
        return ReduceOp.SUM, True, None
    factor = comm.premul_factor(op)
    if factor is not None:
        return ReduceOp.SUM, False, factor
    return op, False, None


def _premul(host: list[torch.Tensor], factor: Any) -> list[torch.Tensor]:
    """The host inputs scaled by a PREMUL_SUM factor (new tensors: the caller's
    CPU tensors pass through to_host unchanged and must stay so)."""
    if factor is None:
        return host
    f = factor.cpu() if isinstance(factor, torch.Tensor) else factor
    return [h * f for h in host]


def _divide(tensors: Sequence[torch.Tensor], size: int) -> None:
    for t in tensors:
        if t.is_floating_point() or t.is_complex():
            t.div_(size)
        else:
            raise TypeError(
                f"torchtpu.distributed: ReduceOp.AVG needs floating-point tensors, got {t.dtype}"
            )


def _timeout(opts: Any) -> Any:
    return getattr(opts, "timeout", None)


def _with_timeout(opts: Any, src: Any) -> Any:
    t = _timeout(src)
    if t is not None:
        opts.timeout = t
    return opts


class ProcessGroupTPU(dist.ProcessGroup):
    """Process group for "tpu" (and CPU) tensors, host-staged through Gloo."""

    def __init__(
        self, store: dist.Store, rank: int, size: int, timeout: datetime.timedelta
    ) -> None:
        super().__init__(rank, size)
        # Initialize the device now: DeviceMesh sets the device to LOCAL_RANK only
        # when it is not yet initialized, and the CPU plugin has one per process.
        torchtpu.device._lazy_init()
        self._rank = rank
        self._size = size
        self._timeout = timeout
        self._gloo = dist.ProcessGroupGloo(
            dist.PrefixStore("torchtpu_gloo", store), rank, size, timeout
        )
        self._group_name = ""
        self._group_desc = ""
        # c10d's Python code asks the group for its backend per device (splitting,
        # eager connect, object collectives): both devices answer with the inner Gloo.
        for device in ("cpu", "tpu"):
            self._register_backend(
                torch.device(device), dist.ProcessGroup.BackendType.CUSTOM, self._gloo
            )
        # The compiled path, when all ranks are threads of this process on distinct devices.
        self._compiled: CompiledCollectives | None = None
        if size > 1 and os.environ.get("TORCHTPU_DIST_COMPILED", "1") != "0":
            m = meeting.join(store, rank, size, torchtpu.device.current_device())
            if m is not None:
                self._compiled = CompiledCollectives(m, rank, size, timeout)

    # ---- identity -----------------------------------------------------------

    def getBackendName(self) -> str:  # noqa: N802 - c10d's name
        return "tpu"

    def getGroupName(self) -> str:  # noqa: N802
        return self._group_name

    def setGroupName(self, name: str) -> None:  # noqa: N802
        self._group_name = name

    def getGroupDesc(self) -> str:  # noqa: N802
        return self._group_desc

    def setGroupDesc(self, desc: str) -> None:  # noqa: N802
        self._group_desc = desc

    def abort(self) -> None:
        self._gloo.abort()

    def shutdown(self) -> None:
        self._gloo.shutdown()

    def set_timeout(self, timeout: datetime.timedelta) -> None:
        """The timeout of later collectives (``torch.distributed.set_timeout``):
        the inner Gloo group's and the compiled path's."""
        self._timeout = timeout
        self._gloo._set_default_timeout(timeout)
        if self._compiled is not None:
            self._compiled.timeout = timeout

    @property
    def compiled(self) -> bool:
        """Whether collectives on tpu tensors run as compiled device programs."""
        return self._compiled is not None

    @property
    def gloo(self) -> dist.ProcessGroupGloo:
        """The inner Gloo group that carries the data."""
        return self._gloo

    def __repr__(self) -> str:
        return f"ProcessGroupTPU(rank={self._rank}, size={self._size}, name={self._group_name!r})"

    # ---- helpers ------------------------------------------------------------

    def _check(self, op: str, tensors: Sequence[torch.Tensor], shapes: bool = True) -> None:
        if checks.enabled() and self._size > 1:
            try:
                checks.check(self._gloo, op, tensors, shapes)
            except checks.CollectiveMismatchError:
                raise
            except Exception as e:  # noqa: BLE001 - Gloo failure while checking
                raise errors.collective_failed(op, self._rank, self._size, self._timeout, e) from e

    def _work(
        self,
        op: str,
        works: Sequence[dist.Work],
        finish: Callable[[], Any] | None,
        result: list[torch.Tensor],
    ) -> StagedWork:
        return StagedWork(op, self._rank, self._size, works, finish, result, self._timeout)

    def _launch(self, op: str, launch: Callable[[], Any]) -> Any:
        try:
            return launch()
        except (RuntimeError, ValueError) as e:
            msg = str(e)
            if "Connection" in msg or "closed" in msg or "imed out" in msg:
                raise errors.collective_failed(op, self._rank, self._size, self._timeout, e) from e
            raise

    # ---- all_reduce ---------------------------------------------------------

    def allreduce(self, tensors: list[torch.Tensor], opts: Any = None) -> dist.Work:
        opts = opts if opts is not None else _c10d.AllreduceOptions()
        if self._compiled and (w := self._compiled.allreduce(tensors, opts.reduceOp)):
            return w
        self._check("all_reduce", tensors)
        op, avg, factor = _reduce_op(opts.reduceOp)
        host = _premul(to_host(tensors), factor)
        o = _with_timeout(_c10d.AllreduceOptions(), opts)
        o.reduceOp = op
        work = self._launch("all_reduce", lambda: self._gloo.allreduce(host, o))

        def finish() -> None:
            if avg:
                _divide(host, self._size)
            copy_back(tensors, host)

        return self._work("all_reduce", [work], finish, tensors)

    def allreduce_coalesced(self, tensors: list[torch.Tensor], opts: Any = None) -> dist.Work:
        opts = opts if opts is not None else _c10d.AllreduceCoalescedOptions()
        if self._compiled and (w := self._compiled.allreduce(tensors, opts.reduceOp)):
            return w
        self._check("all_reduce", tensors)
        op, avg, factor = _reduce_op(opts.reduceOp)
        host = _premul(to_host(tensors), factor)
        works = []
        for h in host:
            o = _with_timeout(_c10d.AllreduceOptions(), opts)
            o.reduceOp = op
            works.append(self._launch("all_reduce", lambda h=h, o=o: self._gloo.allreduce([h], o)))

        def finish() -> None:
            if avg:
                _divide(host, self._size)
            copy_back(tensors, host)

        return self._work("all_reduce_coalesced", works, finish, tensors)

    # ---- broadcast / reduce ---------------------------------------------------

    def broadcast(self, tensors: list[torch.Tensor], opts: Any = None) -> dist.Work:
        opts = opts if opts is not None else _c10d.BroadcastOptions()
        if self._compiled and (w := self._compiled.broadcast(tensors, opts.rootRank)):
            return w
        self._check("broadcast", tensors)
        root = opts.rootRank == self._rank
        host = to_host(tensors) if root else empty_host(tensors)
        work = self._launch("broadcast", lambda: self._gloo.broadcast(host, opts))
        return self._work(
            "broadcast", [work], None if root else (lambda: copy_back(tensors, host)), tensors
        )

    def reduce(self, tensors: list[torch.Tensor], opts: Any = None) -> dist.Work:
        opts = opts if opts is not None else _c10d.ReduceOptions()
        if self._compiled and (w := self._compiled.reduce(tensors, opts.reduceOp, opts.rootRank)):
            return w
        self._check("reduce", tensors)
        op, avg, factor = _reduce_op(opts.reduceOp)
        host = _premul(to_host(tensors), factor)
        o = _with_timeout(_c10d.ReduceOptions(), opts)
        o.reduceOp = op
        o.rootRank = opts.rootRank
        o.rootTensor = opts.rootTensor
        work = self._launch("reduce", lambda: self._gloo.reduce(host, o))
        root = opts.rootRank == self._rank

        def finish() -> None:
            if root:
                if avg:
                    _divide(host, self._size)
                copy_back(tensors, host)

        return self._work("reduce", [work], finish, tensors)

    # ---- all_gather -----------------------------------------------------------

    def allgather(
        self, outputs: list[list[torch.Tensor]], inputs: list[torch.Tensor], opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.AllgatherOptions()
        if self._compiled and (w := self._compiled.allgather(outputs, inputs)):
            return w
        self._check("all_gather", inputs)
        h_in = to_host(inputs)
        h_out = [empty_host(lst) for lst in outputs]
        work = self._launch("all_gather", lambda: self._gloo.allgather(h_out, h_in, opts))

        def finish() -> None:
            for dst, src in zip(outputs, h_out, strict=True):
                copy_back(dst, src)

        return self._work("all_gather", [work], finish, [t for lst in outputs for t in lst])

    def all_gather_single(
        self, output: torch.Tensor, input: torch.Tensor, opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.AllgatherOptions()
        if self._compiled and (w := self._compiled.allgather_into([output], [input])):
            return w
        self._check("all_gather_into_tensor", [input])
        if output.numel() != input.numel() * self._size:
            raise ValueError(
                f"torchtpu.distributed: all_gather_into_tensor output has {output.numel()} "
                f"elements, expected {input.numel()} x {self._size}"
            )
        h_in = to_host([input])[0]
        h_out = empty_host([output])[0]
        work = self._launch(
            "all_gather_into_tensor", lambda: self._gloo._allgather_base(h_out, h_in, opts)
        )
        return self._work(
            "all_gather_into_tensor", [work], lambda: copy_back([output], [h_out]), [output]
        )

    _allgather_base = all_gather_single

    def allgather_coalesced(
        self, outputs: list[list[torch.Tensor]], inputs: list[torch.Tensor], opts: Any = None
    ) -> dist.Work:
        if self._compiled and (
            w := self._compiled.allgather([list(x) for x in zip(*outputs, strict=True)], inputs)
        ):
            return w
        # outputs[rank][i] receives inputs[i] of `rank`.
        opts = opts if opts is not None else _c10d.AllgatherOptions()
        self._check("all_gather", inputs)
        h_in = to_host(inputs)
        per_input: list[list[torch.Tensor]] = [
            [outputs[r][i] for r in range(self._size)] for i in range(len(inputs))
        ]
        h_out = [empty_host(lst) for lst in per_input]
        works = [
            self._launch("all_gather", lambda i=i: self._gloo.allgather([h_out[i]], [h_in[i]]))
            for i in range(len(inputs))
        ]

        def finish() -> None:
            for dst, src in zip(per_input, h_out, strict=True):
                copy_back(dst, src)

        return self._work("all_gather_coalesced", works, finish, [t for x in outputs for t in x])

    def all_gather_single_coalesced(
        self, outputs: list[torch.Tensor], inputs: list[torch.Tensor], opts: Any = None
    ) -> dist.Work:
        if self._compiled and (w := self._compiled.allgather_into(outputs, inputs)):
            return w
        self._check("all_gather_into_tensor", inputs)
        h_in = to_host(inputs)
        h_out = empty_host(outputs)
        works = [
            self._launch(
                "all_gather_into_tensor", lambda i=i: self._gloo._allgather_base(h_out[i], h_in[i])
            )
            for i in range(len(inputs))
        ]
        return self._work(
            "all_gather_into_tensor_coalesced", works, lambda: copy_back(outputs, h_out), outputs
        )

    allgather_into_tensor_coalesced = all_gather_single_coalesced

    # ---- gather / scatter -------------------------------------------------------

    def gather(
        self, outputs: list[list[torch.Tensor]], inputs: list[torch.Tensor], opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.GatherOptions()
        self._check("gather", inputs)
        h_in = to_host(inputs)
        h_out = [empty_host(lst) for lst in outputs]
        work = self._launch("gather", lambda: self._gloo.gather(h_out, h_in, opts))

        def finish() -> None:
            for dst, src in zip(outputs, h_out, strict=True):
                copy_back(dst, src)

        return self._work("gather", [work], finish, [t for lst in outputs for t in lst])

    def scatter(
        self, outputs: list[torch.Tensor], inputs: list[list[torch.Tensor]], opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.ScatterOptions()
        self._check("scatter", outputs)
        h_in = [to_host(lst) for lst in inputs]
        h_out = empty_host(outputs)
        work = self._launch("scatter", lambda: self._gloo.scatter(h_out, h_in, opts))
        return self._work("scatter", [work], lambda: copy_back(outputs, h_out), outputs)

    # ---- reduce_scatter -----------------------------------------------------------

    def _reduce_scatter_flat(
        self, op_name: str, output: torch.Tensor, flat_in: torch.Tensor, opts: Any
    ) -> tuple[dist.Work, Callable[[], None]]:
        """Reduce-scatter a contiguous host tensor whose dim 0 splits evenly."""
        op, avg, factor = _reduce_op(opts.reduceOp)
        flat_in = _premul([flat_in], factor)[0]
        h_out = empty_host([output])[0]
        o = _with_timeout(_c10d.ReduceScatterOptions(), opts)
        o.reduceOp = op
        work = self._launch(op_name, lambda: self._gloo._reduce_scatter_base(h_out, flat_in, o))

        def finish() -> None:
            if avg:
                _divide([h_out], self._size)
            copy_back([output], [h_out])

        return work, finish

    def reduce_scatter(
        self, outputs: list[torch.Tensor], inputs: list[list[torch.Tensor]], opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.ReduceScatterOptions()
        if self._compiled and (w := self._compiled.reduce_scatter(outputs, inputs, opts.reduceOp)):
            return w
        self._check("reduce_scatter", [t for lst in inputs for t in lst])
        works, finishes = [], []
        for out, lst in zip(outputs, inputs, strict=True):
            flat = torch.cat([h.reshape(-1) for h in to_host(lst)])
            flat_out = torch.empty(out.numel(), dtype=out.dtype)
            w, f = self._reduce_scatter_flat("reduce_scatter", flat_out, flat, opts)
            works.append(w)
            finishes.append((f, out, flat_out))

        def finish() -> None:
            for f, out, flat_out in finishes:
                f()
                copy_back([out], [flat_out.view(out.shape)])

        return self._work("reduce_scatter", works, finish, outputs)

    def reduce_scatter_single(
        self, output: torch.Tensor, input: torch.Tensor, opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.ReduceScatterOptions()
        if self._compiled and (
            w := self._compiled.reduce_scatter_into([output], [input], opts.reduceOp)
        ):
            return w
        self._check("reduce_scatter_tensor", [input])
        if input.numel() != output.numel() * self._size:
            raise ValueError(
                f"torchtpu.distributed: reduce_scatter_tensor input has {input.numel()} "
                f"elements, expected {output.numel()} x {self._size}"
            )
        work, finish = self._reduce_scatter_flat(
            "reduce_scatter_tensor", output, to_host([input])[0], opts
        )
        return self._work("reduce_scatter_tensor", [work], finish, [output])

    _reduce_scatter_base = reduce_scatter_single

    def reduce_scatter_single_coalesced(
        self, outputs: list[torch.Tensor], inputs: list[torch.Tensor], opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.ReduceScatterOptions()
        if self._compiled and (
            w := self._compiled.reduce_scatter_into(outputs, inputs, opts.reduceOp)
        ):
            return w
        self._check("reduce_scatter_tensor", inputs)
        pairs = [
            self._reduce_scatter_flat("reduce_scatter_tensor", out, h, opts)
            for out, h in zip(outputs, to_host(inputs), strict=True)
        ]

        def finish() -> None:
            for _, f in pairs:
                f()

        return self._work("reduce_scatter_tensor_coalesced", [w for w, _ in pairs], finish, outputs)

    reduce_scatter_tensor_coalesced = reduce_scatter_single_coalesced

    # ---- all_to_all -------------------------------------------------------------

    def all_to_all_single(
        self,
        output: torch.Tensor,
        input: torch.Tensor,
        output_split_sizes: list[int],
        input_split_sizes: list[int],
        opts: Any = None,
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.AllToAllOptions()
        if self._compiled and (
            w := self._compiled.all_to_all_single(
                output, input, list(output_split_sizes), list(input_split_sizes)
            )
        ):
            return w
        self._check("all_to_all_single", [input], shapes=False)
        h_in = to_host([input])[0]
        h_out = empty_host([output])[0]
        out_s, in_s = list(output_split_sizes), list(input_split_sizes)
        work = self._launch(
            "all_to_all_single",
            lambda: self._gloo.alltoall_base(h_out, h_in, out_s, in_s, opts),
        )
        return self._work(
            "all_to_all_single", [work], lambda: copy_back([output], [h_out]), [output]
        )

    alltoall_base = all_to_all_single

    def alltoall(
        self, outputs: list[torch.Tensor], inputs: list[torch.Tensor], opts: Any = None
    ) -> dist.Work:
        opts = opts if opts is not None else _c10d.AllToAllOptions()
        self._check("all_to_all", inputs[:1], shapes=False)
        flat_in = torch.cat([h.reshape(-1) for h in to_host(inputs)])
        out_sizes = [t.numel() for t in outputs]
        flat_out = torch.empty(sum(out_sizes), dtype=outputs[0].dtype)
        in_sizes = [t.numel() for t in inputs]
        work = self._launch(
            "all_to_all",
            lambda: self._gloo.alltoall_base(flat_out, flat_in, out_sizes, in_sizes, opts),
        )

        def finish() -> None:
            parts = flat_out.split(out_sizes)
            copy_back(outputs, [p.view(t.shape) for p, t in zip(parts, outputs, strict=True)])

        return self._work("all_to_all", [work], finish, outputs)

    # ---- barrier / point to point ---------------------------------------------

    def barrier(self, opts: Any = None) -> dist.Work:
        if self._compiled:
            return self._compiled.barrier()
        self._check("barrier", [])
        o = (
            _with_timeout(_c10d.BarrierOptions(), opts)
            if opts is not None
            else _c10d.BarrierOptions()
        )
        work = self._launch("barrier", lambda: self._gloo.barrier(o))
        return self._work("barrier", [work], None, [])

    def send(self, tensors: list[torch.Tensor], dst: int, tag: int) -> dist.Work:
        host = to_host(tensors)
        work = self._launch("send", lambda: self._gloo.send(host, dst, tag))
        return self._work(f"send to rank {dst}", [work], lambda: host, tensors)

    def recv(self, tensors: list[torch.Tensor], src: int, tag: int) -> dist.Work:
        host = empty_host(tensors)
        work = self._launch("recv", lambda: self._gloo.recv(host, src, tag))
        return self._work(
            f"recv from rank {src}", [work], lambda: copy_back(tensors, host), tensors
        )

    def recv_anysource(self, tensors: list[torch.Tensor], tag: int) -> dist.Work:
        host = empty_host(tensors)
        work = self._launch("recv", lambda: self._gloo.recv_anysource(host, tag))
        return self._work("recv", [work], lambda: copy_back(tensors, host), tensors)


def create(store: dist.Store, rank: int, size: int, timeout: datetime.timedelta) -> ProcessGroupTPU:
    """The creator c10d calls for ``init_process_group("tpu")`` and ``new_group``."""
    return ProcessGroupTPU(store, rank, size, timeout)
