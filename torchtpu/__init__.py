"""torchtpu: run PyTorch on TPUs and any device with a PJRT plugin."""

from __future__ import annotations

from torchtpu import _C
from torchtpu._plugin import PluginInfo, client, info, resolve

__all__ = ["PluginInfo", "client", "devices", "info", "resolve", "_C"]
__version__ = "0.1.0"


def devices() -> list[_C.runtime.DeviceInfo]:
    """The devices of the plugin torchtpu runs on."""
    return list(client().devices())
