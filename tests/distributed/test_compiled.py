"""Compiled collectives: several tpu devices of one process (the CPU plugin with
TORCHTPU_CPU_DEVICE_COUNT), one replicated device program per collective.

``comm_worker.py`` checks the single-thread API (torchtpu.distributed.comm) against
CPU results; ``threads_worker.py`` runs the torch.distributed scenarios (DDP,
FSDP2, DTensor, checkpoints) on thread ranks through the "tpu" backend's compiled path.
Each runs in a subprocess (the device count is fixed when the runtime starts)
under a hard timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def launch(script: str, args: list[str], devices: int, timeout: float = 600) -> str:
    env = dict(os.environ)
    env["TORCHTPU_CPU_DEVICE_COUNT"] = str(devices)
    env.setdefault("OMP_NUM_THREADS", "1")
    p = subprocess.run(
        [sys.executable, str(HERE / script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=HERE,
    )
    assert p.returncode == 0, f"{script} {args} failed:\n{p.stdout[-4000:]}\n{p.stderr[-8000:]}"
    return p.stdout


def test_comm_api_matches_cpu(tmp_path: Path) -> None:
    out = tmp_path / "comm.json"
    launch("comm_worker.py", [str(out)], devices=4)
    r = json.loads(out.read_text())
    assert r["checked"] > 300  # results compared, one per device per call
    assert r["compiled_collectives"] > 80  # one launch per call


@pytest.mark.parametrize("n", [2, 4])
def test_thread_ranks_train_like_one_process(tmp_path: Path, n: int) -> None:
    out = tmp_path / "threads.json"
    names = ["collectives", "ddp", "ddp_defer", "fsdp2", "fsdp2_defer", "dtensor", "defer_steady"]
    names.append("launcher_env")
    launch("threads_worker.py", [str(out), str(n), *names], devices=n)
    r = json.loads(out.read_text())
    assert len(r["ranks"]) == n
    assert all(rank["compiled"]["launches"] == 1 for rank in r["ranks"])
    checks = r["checks"]
    for what in ("ddp", "ddp_defer", "fsdp2", "fsdp2_defer"):
        assert checks[what]["max_loss_diff"] < 1e-5, what
        assert checks[what]["max_param_diff"] < 1e-5, what
    assert checks["dcp"]["max_diff"] == 0.0
    assert checks["launcher_env"] is True
    assert checks["defer_steady_compiles"] == 0
    assert checks["dtensor"]["tp_forward_diff"] < 1e-5
    assert checks["dtensor"]["tp_grad_diff"] < 1e-5
    # (train_sharded resets the counters: this counts the collectives after the last reset)
    assert r["compiled_collectives"] > 10


def test_thread_rank_faults_raise_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "faults.json"
    launch("threads_worker.py", [str(out), "2", "faults"], devices=2)
    r = json.loads(out.read_text())
    for seen in r["faults"]:
        assert "tensor<3xf32> on rank 0" in seen["shapes"] and "tensor<4xf32>" in seen["shapes"]
        assert "tensor<3xi32> on rank 0" in seen["dtypes"]
        assert "broadcast" in seen["ops"] and "all_reduce" in seen["ops"]
    waited = r["faults"][0]
    assert "did not join within the timeout" in waited["timeout"]
    assert 1.5 < float(waited["timeout_seconds"]) < 30
    dead = r["dead_rank"]
    assert "rank 1 failed" in dead["error"] and "gives up" in dead["error"]
    assert dead["seconds"] < 30  # not the 60 s timeout
