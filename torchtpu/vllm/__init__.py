"""vLLM on "tpu": torchtpu's out-of-tree platform plugin for vLLM.

vLLM finds this plugin through the ``vllm.platform_plugins`` entry point in
torchtpu's ``pyproject.toml``; it calls :func:`register` while it picks its
platform, in every process it starts. With torchtpu installed beside vLLM,
``vllm.LLM(model=...)`` then runs the model on torchtpu's "tpu" device, with
torch unchanged (README, "vLLM").

Written against vLLM 0.32.0 (and torch 2.13.0). The parts that follow vLLM's
internals are ``platform.py`` (the platform class and the config it forces),
``worker.py`` (the worker: device set-up, KV cache size), ``attention.py``
(paged attention in plain PyTorch ops) and ``kernels.py`` (a Triton kernel of
vLLM's, in PyTorch ops). Each imports vLLM through :func:`vllm_import_error`,
so that another vLLM release fails with an error naming the supported one.

``TORCHTPU_VLLM=0`` turns the plugin off: vLLM then picks its platform as if
torchtpu were not installed (its own CUDA, CPU, ... detection).
"""

from __future__ import annotations

import logging
import os

__all__ = ["ENV_VAR", "LOGGER", "PLATFORM", "VLLM_VERSION", "register", "vllm_import_error"]

#: The vLLM release this plugin is written against and tested with.
VLLM_VERSION = "0.32.0"
#: Set to "0" to keep vLLM off torchtpu.
ENV_VAR = "TORCHTPU_VLLM"
#: What :func:`register` returns: the platform class, by qualified name.
PLATFORM = "torchtpu.vllm.platform.TorchTPUPlatform"

#: The plugin's logger: under vLLM's "vllm" logger, so its lines come out with vLLM's.
LOGGER = "vllm.torchtpu"

logger = logging.getLogger(LOGGER)


def _installed_vllm_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vllm")
    except PackageNotFoundError:
        return None


def vllm_import_error(err: ImportError) -> ImportError:
    """The error raised when vLLM's internals this plugin uses cannot be imported:
    it names the vLLM release the plugin supports and the one installed."""
    installed = _installed_vllm_version() or "not installed"
    missing = getattr(err, "name", None) or ""
    if isinstance(err, ModuleNotFoundError) and missing and missing.split(".")[0] != "vllm":
        return ImportError(
            f"vLLM {installed} cannot be imported: its dependency {missing!r} is missing "
            f"(README, 'vLLM', lists what vllm=={VLLM_VERSION} needs; make setup-vllm "
            "installs it)"
        )
    return ImportError(
        f"torchtpu.vllm supports vLLM {VLLM_VERSION} (installed: {installed}); "
        f"importing vLLM's internals failed: {err}. Install vllm=={VLLM_VERSION} "
        f"(README, 'vLLM'), or set {ENV_VAR}=0 to run vLLM without torchtpu."
    )


def register() -> str | None:
    """vLLM's platform plugin hook: the platform class's qualified name, or None
    when vLLM should not run on torchtpu (``TORCHTPU_VLLM=0``, or no PJRT plugin
    is installed).

    It must not start the PJRT client: vLLM calls it in its parent process too,
    which may then fork() its engine process, and a PJRT client does not survive
    fork(). Finding the plugin's file (torchtpu's plugin discovery) opens nothing.
    """
    if os.environ.get(ENV_VAR, "1") == "0":
        logger.info("torchtpu's vLLM platform is off (%s=0)", ENV_VAR)
        return None
    try:
        from torchtpu import _plugin

        path = _plugin.resolve()
    except Exception as e:  # no plugin, an unsupported torch, a stale build: say why
        logger.warning("torchtpu's vLLM platform is not available: %s", e)
        return None
    installed = _installed_vllm_version()
    if installed is not None and installed.split("+")[0] != VLLM_VERSION:
        logger.warning(
            "torchtpu.vllm is written for vLLM %s; vLLM %s is installed",
            VLLM_VERSION,
            installed,
        )
    logger.debug("torchtpu's vLLM platform, on the PJRT plugin %s", path)
    return PLATFORM
