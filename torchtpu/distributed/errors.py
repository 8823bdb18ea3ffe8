"""Error messages for failed collectives."""

from __future__ import annotations

import datetime


class CollectiveMismatchError(RuntimeError):
    """Ranks called a collective with tensors that do not agree."""


def collective_failed(
    op: str, rank: int, size: int, timeout: datetime.timedelta, cause: BaseException
) -> RuntimeError:
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    lowered = text.lower()
    if "timed out" in lowered or "timeout" in lowered:
        why = f"it did not complete within the timeout ({timeout.total_seconds():g} s)"
    elif "closed" in lowered or "reset" in lowered or "connection" in lowered or "peer" in lowered:
        why = "a peer process exited or lost its connection (a rank died)"
    else:
        why = "a peer process failed, exited, or did not join in time"
    return RuntimeError(
        f"torchtpu.distributed: {op} failed on rank {rank} of {size}: {why}. Gloo said: {text}"
    )
