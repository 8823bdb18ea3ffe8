"""Choosing and opening the PJRT plugin that backs the "tpu" device."""

from __future__ import annotations

import os
import site
import sys
from dataclasses import dataclass

from torchtpu import _C, _host_malloc

_rt = _C.runtime

PLUGIN_ENV = "TORCHTPU_PJRT_PLUGIN"
CPU_DEVICES_ENV = "TORCHTPU_CPU_DEVICE_COUNT"


@dataclass(frozen=True)
class PluginInfo:
    """What torchtpu reports about the plugin it runs on."""

    path: str
    api_version: tuple[int, int]
    platform: str
    platform_version: str
    attributes: dict[str, str]


def search_dirs() -> list[str]:
    """Directories searched for plugin packages: site-packages and sys.path."""
    dirs: list[str] = []
    candidates = list(site.getsitepackages()) + [site.getusersitepackages()] + list(sys.path)
    for d in candidates:
        if d and os.path.isdir(d) and d not in dirs:
            dirs.append(d)
    return dirs


def resolve(spec: str | None = None) -> str:
    """Resolve a plugin spec (path, "cpu", "cuda", "tpu", None/"auto") to a file.

    Without a spec, ``TORCHTPU_PJRT_PLUGIN`` decides, else the automatic choice:
    libtpu when a TPU is present, else the CUDA plugin when a GPU is, else CPU.
    """
    return _rt.resolve_plugin_path(spec or "", search_dirs())


def _is_cpu_plugin(path: str) -> bool:
    return "cpu" in os.path.basename(path)


def _client_options(path: str) -> dict[str, int]:
    if _is_cpu_plugin(path):
        return {"cpu_device_count": int(os.environ.get(CPU_DEVICES_ENV, "1"))}
    return {}


def init() -> None:
    """Open the plugin (once per process)."""
    if not _C._runtime_initialized():
        path = resolve()
        if _is_cpu_plugin(path):
            _host_malloc.tune()  # the CPU plugin's device memory is the host's heap
        _C._init_runtime(path, _client_options(path))


def client() -> _C.runtime.Client:
    """The process-wide PJRT client."""
    init()
    return _C._client()


def info() -> PluginInfo:
    c = client()
    p = c.plugin
    return PluginInfo(
        path=p.path,
        api_version=tuple(p.api_version),
        platform=c.platform_name,
        platform_version=c.platform_version,
        attributes=dict(p.attributes),
    )
