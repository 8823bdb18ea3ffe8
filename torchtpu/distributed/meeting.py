"""Where the ranks of one process group that live in this process meet.

When every rank of a group is a thread of this process, each on its own tpu
device, a collective does not go through the host: each rank brings its
tensors to the group's ``Meeting``, and the last to arrive launches one
replicated device program over all of them (``torchtpu._C._collective``); the
others wait for it and take their results. Ranks meet in call order: the n-th
collective of one rank meets the n-th of every other rank.
"""

from __future__ import annotations

import datetime
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch.distributed as dist

from torchtpu.distributed.errors import CollectiveMismatchError

# Identifies this process in a store shared with other processes.
PROCESS_TOKEN = uuid.uuid4().hex


@dataclass
class _Slot:
    op: str
    payloads: dict[int, Any] = field(default_factory=dict)
    results: list[Any] | None = None
    error: BaseException | None = None
    taken: int = 0


class Meeting:
    """The meeting point of one group's ranks in this process."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._cv = threading.Condition()
        self._slots: dict[int, _Slot] = {}
        self._aborted: str | None = None

    def abort(self, reason: str) -> None:
        """Fail every waiting and later collective of the group with `reason`."""
        with self._cv:
            self._aborted = reason
            self._cv.notify_all()

    def run(
        self,
        seq: int,
        rank: int,
        op: str,
        payload: Any,
        launch: Callable[[list[Any]], Sequence[Any]],
        timeout: datetime.timedelta,
    ) -> Any:
        """Meet the other ranks at collective number `seq`; returns this rank's result.

        The last rank to arrive calls ``launch(payloads)`` (payloads in rank
        order), which returns one result per rank. An error in it is raised on
        every rank.
        """
        with self._cv:
            if self._aborted is not None:
                raise RuntimeError(f"torchtpu.distributed: {op} on rank {rank}: {self._aborted}")
            slot = self._slots.setdefault(seq, _Slot(op))
            if slot.op != op and slot.error is None:
                slot.error = CollectiveMismatchError(
                    f"torchtpu.distributed: ranks called different collectives at the same "
                    f"point: {slot.op} and {op} (call {seq} of the group)"
                )
            # A failed call keeps only who arrived, not their tensors: its slot may
            # outlive it (a rank that never comes never takes its result).
            slot.payloads[rank] = payload if slot.error is None else None
            if len(slot.payloads) == self.size and slot.error is None:
                payloads = [slot.payloads[r] for r in range(self.size)]
                try:
                    results = list(launch(payloads))
                except Exception as e:  # noqa: BLE001 - raised on every rank below
                    slot.error = e
                else:
                    slot.results = results
                self._cv.notify_all()
            else:
                self._cv.notify_all()
                deadline = timeout.total_seconds()
                done = self._cv.wait_for(
                    lambda: (
                        slot.results is not None
                        or (slot.error is not None and len(slot.payloads) == self.size)
                        or self._aborted is not None
                    ),
                    timeout=deadline,
                )
                if not done:
                    missing = sorted(set(range(self.size)) - set(slot.payloads))
                    err = RuntimeError(
                        f"torchtpu.distributed: {op} failed on rank {rank} of {self.size}: "
                        f"rank(s) {missing} did not join within the timeout ({deadline:g} s)"
                    )
                    slot.error = slot.error or err
                    slot.payloads = dict.fromkeys(slot.payloads)
                    self._cv.notify_all()
                    raise err
                if self._aborted is not None and slot.results is None:
                    raise RuntimeError(
                        f"torchtpu.distributed: {op} failed on rank {rank}: {self._aborted}"
                    )
            slot.taken += 1
            if slot.taken == self.size:
                del self._slots[seq]
            if slot.error is not None:
                raise slot.error
            assert slot.results is not None
            return slot.results[rank]


_lock = threading.Lock()
_meetings: dict[str, Meeting] = {}


def join(store: dist.Store, rank: int, size: int, device: int) -> Meeting | None:
    """The group's meeting point, or None when its ranks are not all threads of
    this process on distinct devices (then collectives take the host path).

    Every rank publishes this process's token and its device in `store`.
    """
    store.set(f"torchtpu/rank/{rank}", f"{PROCESS_TOKEN}:{device}")
    devices = set()
    for r in range(size):
        token, _, dev = store.get(f"torchtpu/rank/{r}").decode().rpartition(":")
        if token != PROCESS_TOKEN:
            return None
        devices.add(int(dev))
    if len(devices) != size:
        return None
    # A group made again over the same store (destroy, then init) is a new
    # generation with a meeting of its own: never a stale key of the last one.
    generation = (store.add("torchtpu/joined", 1) - 1) // size
    if rank == 0:
        store.set(f"torchtpu/meeting/{generation}", uuid.uuid4().hex)
    key = store.get(f"torchtpu/meeting/{generation}").decode()
    with _lock:
        return _meetings.setdefault(key, Meeting(size))


def abort_all(reason: str) -> None:
    """Abort every meeting of this process (a rank thread died)."""
    with _lock:
        meetings = list(_meetings.values())
    for m in meetings:
        m.abort(reason)


def forget_all() -> None:
    with _lock:
        _meetings.clear()
