"""TorchTitan, unchanged, on "tpu" (issue 19): its Llama 3 debug model trains
through TorchTitan's own config and ``Trainer.train()`` with FSDP2 on 2 ranks,
as thread ranks (``torchtpu.distributed.run_threads``: compiled collectives)
and as torchrun processes (host-staged collectives), eagerly and with
TorchTitan's ``--compile.enable --compile.backend tpu``, against the same run
on the CPU with Gloo (2 torchrun processes). ``titan_run.py`` is the run
itself and says what the command line changes.

Each run is a subprocess under a hard timeout: the device count of thread
ranks is fixed when the runtime starts, and torchrun ranks are processes."""

from __future__ import annotations

import functools
import os
import pathlib
import socket
import subprocess
import sys
from typing import Any

import pytest
import torch

pytest.importorskip(
    "torchtitan",
    reason="torchtitan is not installed (make setup installs torchtitan==0.3.0 and its "
    "dependencies, --no-deps)",
)

import titan_run  # noqa: E402 - after the skip: it needs torchtitan's tokenizers

HERE = pathlib.Path(__file__).resolve().parent
TIMEOUT = 420
# Losses: float32 sums in another order (measured 9.5e-7); parameters after 3
# AdamW steps (lr 8e-4): a tenth of a step (measured 1e-5).
LOSS_ATOL = 1e-4
PARAM_ATOL = 1e-4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch(where: str, out: pathlib.Path, args: list[str], nproc: int = 2) -> dict[str, Any]:
    """One run: torchrun with `nproc` ranks (``cpu``, ``tpu``) or one process
    with two thread ranks (``threads``); returns what rank 0 saved."""
    env = {**os.environ, "PYTHONPATH": str(HERE), "OMP_NUM_THREADS": "1"}
    script = [str(HERE / "titan_run.py"), str(out), where, *args]
    if where == "threads":
        env["TORCHTPU_CPU_DEVICE_COUNT"] = "2"
        cmd = [sys.executable, *script]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(nproc)]
        cmd += ["--master_port", str(free_port()), *script]
    if where == "cpu":
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"  # the reference: no "tpu" at all
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, f"{where} run failed:\n{p.stdout[-3000:]}\n{p.stderr[-8000:]}"
    return torch.load(out, weights_only=False)


@functools.cache
def prepared(tmp: str) -> tuple[tuple[str, str], str, dict[str, Any]]:
    """The tokenizer and corpus, the seed checkpoint (one CPU rank) and the CPU
    reference run (2 ranks, Gloo), once per session."""
    root = pathlib.Path(tmp)
    assets = titan_run.make_assets(root / "assets")
    launch("cpu", root / "seed.pt", titan_run.titan_args(assets, str(root / "seed"), None), 1)
    seed = str(root / "seed" / "checkpoint" / "step-0")
    cpu = launch("cpu", root / "cpu.pt", titan_run.titan_args(assets, str(root / "cpu"), seed))
    return assets, seed, cpu


@pytest.mark.parametrize(
    "where,compiled", [("threads", False), ("tpu", False), ("threads", True)],
    ids=["threads", "torchrun", "threads-compiled"],
)  # fmt: skip
def test_debug_model_trains_as_on_cpu(
    where: str, compiled: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assets, seed, cpu = prepared(str(tmp_path_factory.getbasetemp() / "titan"))
    run = tmp_path_factory.mktemp("titan_tpu")
    args = titan_run.titan_args(assets, str(run / "dump"), seed)
    if compiled:
        args += ["--compile.enable", "--compile.backend", "tpu"]
    got = launch(where, run / "result.pt", args)

    assert got["fallbacks"] == {}, f"CPU fallbacks: {got['fallbacks']}"
    graphs = got["graphs"]
    if compiled:
        # Every transformer block and the loss are compiled graphs, each one program.
        assert graphs["graphs_compiled"] > 0 and graphs["graph_runs"] > 0, graphs
        assert graphs["graph_eager_runs"] == 0, graphs
    else:
        assert graphs["graphs_compiled"] == 0, graphs
    assert len(got["losses"]) == titan_run.STEPS == len(cpu["losses"])
    loss_diff = max(abs(a - b) for a, b in zip(got["losses"], cpu["losses"], strict=True))
    assert loss_diff < LOSS_ATOL, (got["losses"], cpu["losses"])
    assert got["losses"][-1] < got["losses"][0] - 0.1, got["losses"]
    assert got["params"].keys() == cpu["params"].keys()
    param_diff = 0.0
    for name, want in cpu["params"].items():
        torch.testing.assert_close(got["params"][name], want, rtol=0, atol=PARAM_ATOL)
        param_diff = max(param_diff, (got["params"][name] - want).abs().max().item())
    print(f"\n[torchtitan {where} compiled={compiled}] max |dloss| {loss_diff:.2e}, "
          f"max |dparam| {param_diff:.2e}, {graphs}")  # fmt: skip
