"""Ranks as threads of one process, one tpu device each: ``run_threads``.

The CPU PJRT plugin runs collectives between devices of one process, not across
processes. ``run_threads(fn, world_size)`` starts `world_size` ranks as threads,
each on its own device (``tpu:rank``) with its own default process group, so
the "tpu" backend compiles every collective into one device program over the
ranks' devices. ``fn(rank, *args)`` is ordinary torch.distributed code::

    def train(rank):
        model = DDP(Net().to("tpu"))
        ...
        return loss.item()

    losses = torchtpu.distributed.run_threads(train, 4)

c10d's process-group state is made per-thread while it runs (torch's own
extension point for thread ranks), autograd runs each rank's backward on the
rank's thread, ``torchtpu.sync()`` and the collectives' flush points touch only
the rank's own device, and a rank that raises makes the others fail at their
next collective instead of waiting for it. Each rank thread sees its own
RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE and GROUP_RANK in
``os.environ``, as torchrun sets them for rank processes (libraries such as
TorchTitan take their rank and device from there). The ranks share the process's
default CPU random generator: seed and build models under a lock if every rank
must draw the same weights.
"""

from __future__ import annotations

import datetime
import os
import threading
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from torchtpu import _C, _torch_compat
from torchtpu.distributed import meeting

_running = threading.Lock()
_rank = threading.local()


def rank_device() -> int | None:
    """The device of this thread when it is a rank of ``run_threads``, else None."""
    return getattr(_rank, "device", None)


def _per_thread(name: str, settable: bool = False) -> property:
    """A ``_World`` property read from (and written to) the calling thread's state."""

    def get(self: _ThreadWorld) -> Any:
        return getattr(self._mine(), name)

    def set_(self: _ThreadWorld, value: Any) -> None:
        setattr(self._mine(), name, value)

    return property(get, set_ if settable else None)


class _ThreadWorld(c10d._World):
    """c10d's process-group registry, one per thread."""

    def __init__(self) -> None:
        super().__init__()
        self._tls = threading.local()

    def _mine(self) -> Any:
        t = self._tls
        if not hasattr(t, "default_pg"):
            t.default_pg = None
            t.pg_map, t.pg_names, t.pg_group_ranks = {}, {}, {}
            t.pg_backend_config, t.tags_to_pg, t.pg_to_tag = {}, {}, {}
            t.pg_coalesce_state, t.comms, t.group_count = {}, [], 0
        return t

    default_pg = _per_thread("default_pg", settable=True)
    group_count = _per_thread("group_count", settable=True)
    pg_map = _per_thread("pg_map")
    pg_names = _per_thread("pg_names")
    pg_group_ranks = _per_thread("pg_group_ranks")
    pg_backend_config = _per_thread("pg_backend_config")
    tags_to_pg = _per_thread("tags_to_pg")
    pg_to_tag = _per_thread("pg_to_tag")
    pg_coalesce_state = _per_thread("pg_coalesce_state")
    comms = _per_thread("comms")


# What a launcher such as torchrun sets for each rank process. Libraries that
# find their rank and device there (TorchTitan reads LOCAL_RANK for its device)
# see, on each rank thread, that rank's values.
RANK_VARIABLES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK")


class _ThreadEnviron(os._Environ):
    """``os.environ`` while ``run_threads`` runs: the process's environment, and
    on a rank thread that rank's own RANK, LOCAL_RANK, WORLD_SIZE, ... (read and
    written per thread). Everything else is the process's, shared by all."""

    def __init__(self, base: os._Environ) -> None:
        super().__init__(
            base._data, base.encodekey, base.decodekey, base.encodevalue, base.decodevalue
        )
        self.base = base
        self._tls = threading.local()

    def set_rank(self, values: dict[str, str] | None) -> None:
        self._tls.values = values

    def _mine(self) -> dict[str, str] | None:
        return getattr(self._tls, "values", None)

    def __getitem__(self, key: str) -> str:
        mine = self._mine()
        if mine is not None and key in mine:
            return mine[key]
        return super().__getitem__(key)

    def __setitem__(self, key: str, value: str) -> None:
        mine = self._mine()
        if mine is not None and key in RANK_VARIABLES:
            self.encodevalue(value)  # the same TypeError as os.environ for a non-str
            mine[key] = value
        else:
            super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        mine = self._mine()
        if mine is not None and key in mine:
            del mine[key]
        else:
            super().__delitem__(key)

    def __iter__(self) -> Any:
        keys = list(super().__iter__())
        mine = self._mine() or {}
        return iter(keys + [k for k in mine if k not in keys])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def copy(self) -> dict[str, str]:
        return dict(self)


def _ensure_devices(world_size: int) -> None:
    if not _C._runtime_initialized():
        from torchtpu import _plugin

        if "cpu" in os.path.basename(_plugin.resolve()):
            have = int(os.environ.get(_plugin.CPU_DEVICES_ENV, "1"))
            os.environ[_plugin.CPU_DEVICES_ENV] = str(max(have, world_size))
    count = torch.tpu.device_count()
    if count < world_size:
        raise RuntimeError(
            f"torchtpu.distributed.run_threads: {world_size} ranks need {world_size} tpu devices, "
            f"the plugin has {count}. On the CPU plugin set TORCHTPU_CPU_DEVICE_COUNT={world_size} "
            "before torchtpu starts (run_threads sets it when it starts the runtime itself)."
        )


def _create_tqdm_lock() -> None:
    """tqdm creates its class-wide lock lazily, and tqdm.contrib's thread_map
    deletes a lock it created when it is done: two rank threads showing
    progress bars at once (Inductor's compile progress, a download) can then
    find no lock (AttributeError: 'tqdm' object has no attribute '_lock', seen
    with TorchTitan). Made before the threads start, the lock stays."""
    try:
        import tqdm
    except ImportError:
        return
    tqdm.tqdm.get_lock()


def run_threads(
    fn: Callable[..., Any],
    world_size: int,
    *args: Any,
    backend: str = "tpu",
    timeout: datetime.timedelta = datetime.timedelta(minutes=5),
) -> list[Any]:
    """Runs ``fn(rank, *args)`` on `world_size` thread ranks; returns their results.

    Each rank thread has device ``tpu:rank`` as its current device and a default
    process group made by ``dist.init_process_group(backend)`` over an
    in-process store (destroyed when `fn` returns). The first exception of any
    rank is raised here, after every thread has ended.
    """
    if world_size < 1:
        raise ValueError("torchtpu.distributed.run_threads: world_size must be >= 1")
    if not _running.acquire(blocking=False):
        raise RuntimeError("torchtpu.distributed.run_threads: already running in this process")
    try:
        _ensure_devices(world_size)
        store = dist.HashStore()
        results: list[Any] = [None] * world_size
        errors: list[BaseException | None] = [None] * world_size
        old_world = c10d._world
        c10d._world = _ThreadWorld()
        torch._C._distributed_c10d._set_thread_isolation_mode(True)
        # DTensor's sharding propagation runs ops in fake-tensor modes: one rank
        # at a time.
        restore_sharding = _torch_compat.serialize_sharding_propagation(threading.Lock())
        _create_tqdm_lock()
        old_environ = os.environ
        environ = _ThreadEnviron(old_environ)
        os.environ = environ  # noqa: B003 - replaced on purpose, restored below

        def body(rank: int) -> None:
            try:
                # Fake tensors' dispatch cache is shared by all threads and keys a
                # factory's device as plain "tpu": it would hand one rank's device
                # index (tpu:k) to another. Off on rank threads (the setting is
                # per thread).
                import torch._dynamo.config as dynamo_config

                dynamo_config.fake_tensor_cache_enabled = False
                torch.tpu.set_device(rank)
                _rank.device = rank
                environ.set_rank(
                    {"RANK": str(rank), "LOCAL_RANK": str(rank), "GROUP_RANK": "0"}
                    | {"WORLD_SIZE": str(world_size), "LOCAL_WORLD_SIZE": str(world_size)}
                )
                with torch.autograd.set_multithreading_enabled(False):
                    dist.init_process_group(
                        backend, store=store, rank=rank, world_size=world_size, timeout=timeout
                    )
                    try:
                        results[rank] = fn(rank, *args)
                    finally:
                        dist.destroy_process_group()
            except BaseException as e:  # noqa: BLE001 - reported after all ranks end
                errors[rank] = e
                meeting.abort_all(f"rank {rank} failed ({type(e).__name__}: {e})")

        threads = [
            threading.Thread(target=body, args=(r,), name=f"torchtpu-rank{r}", daemon=True)
            for r in range(world_size)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        if "old_world" in locals():
            c10d._world = old_world
            torch._C._distributed_c10d._set_thread_isolation_mode(False)
        if "restore_sharding" in locals():
            restore_sharding()
        if "old_environ" in locals():
            os.environ = old_environ  # noqa: B003
        meeting.forget_all()
        _running.release()
    for rank, e in enumerate(errors):
        if e is not None:
            raise RuntimeError(f"torchtpu.distributed.run_threads: rank {rank} failed: {e}") from e
    return results
