"""Work handles for host-staged collectives."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.distributed as dist

from torchtpu.distributed import errors


class StagedWork(dist.Work):
    """A collective running on the inner Gloo group.

    ``wait()`` waits for Gloo, then copies the results back into the caller's tpu
    tensors on the waiting thread (device work is never touched from Gloo's
    threads). Gloo errors and timeouts become a ``RuntimeError`` that names the
    collective, the rank and the likely cause.
    """

    def __init__(
        self,
        op: str,
        rank: int,
        size: int,
        works: Sequence[dist.Work],
        finish: Callable[[], Any] | None,
        result: list[torch.Tensor],
        timeout: datetime.timedelta,
    ) -> None:
        super().__init__()
        self._op = op
        self._rank = rank
        self._size = size
        self._works = list(works)
        self._finish = finish
        self._result = result
        self._timeout = timeout
        self._lock = threading.Lock()
        self._done = False
        self._error: BaseException | None = None

    def _complete(self, timeout: datetime.timedelta | None = None) -> None:
        with self._lock:
            if self._done:
                if self._error is not None:
                    raise self._error
                return
            try:
                for w in self._works:
                    if timeout is None:
                        w.wait()
                    else:
                        w.wait(timeout)
                if self._finish is not None:
                    self._finish()
            except Exception as e:  # noqa: BLE001 - re-raised with context
                self._error = errors.collective_failed(
                    self._op, self._rank, self._size, self._timeout, e
                )
                self._done = True
                raise self._error from e
            self._done = True

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        if timeout is not None and timeout.total_seconds() <= 0:
            timeout = None
        self._complete(timeout)
        return True

    def is_completed(self) -> bool:
        if self._done:
            return True
        if all(w.is_completed() for w in self._works):
            self._complete()
            return True
        return False

    def is_success(self) -> bool:
        return self._done and self._error is None

    def exception(self) -> BaseException | None:
        return self._error

    def result(self) -> list[torch.Tensor]:
        self._complete()
        return self._result

    def get_future(self) -> torch.futures.Future:
        self._complete()
        fut: torch.futures.Future = torch.futures.Future()
        fut.set_result(self._result)
        return fut

    def synchronize(self) -> None:
        self._complete()


def completed(result: list[torch.Tensor]) -> dist.Work:
    """A work handle that is already complete."""
    fut: torch.futures.Future = torch.futures.Future()
    fut.set_result(result)
    return torch._C._distributed_c10d._create_work_from_future(fut)
