"""torch.distributed on "tpu": real processes on this machine, results against CPU.

The scenarios live in worker.py (started with torchrun, all scenarios in one
process group per world size) and faults_worker.py (started here, one process
per rank, so that a rank can die without the launcher tearing the rest down).
Every launch has a hard timeout and its process group is killed on expiry.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.setdefault("OMP_NUM_THREADS", "1")
    e["PYTHONUNBUFFERED"] = "1"
    return e


def run(cmds: list[list[str]], extra_env: list[dict[str, str]], timeout: float) -> list[str]:
    """Start one process per command; kill all of them if any exceeds `timeout`."""
    procs = [
        subprocess.Popen(
            cmd,
            env={**env(), **x},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        for cmd, x in zip(cmds, extra_env, strict=True)
    ]
    outs: list[str] = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=timeout)
            outs.append(out)
    except subprocess.TimeoutExpired:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in procs:
            p.communicate()
        pytest.fail(f"distributed run exceeded {timeout} s: {cmds[0]}")
    return [f"[exit {p.returncode}]\n{out}" for p, out in zip(procs, outs, strict=True)]


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def world_results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    n = request.param
    out = tmp_path_factory.mktemp(f"dist{n}")
    cmd = [
        PY, "-m", "torch.distributed.run", f"--nproc_per_node={n}",
        "--master_addr=127.0.0.1", f"--master_port={free_port()}",
        str(HERE / "worker.py"), str(out),
        "collectives", "ddp", "fsdp2", "dtensor", "ddp_defer", "fsdp2_defer",
    ]  # fmt: skip
    (log,) = run([cmd], [{"TMPDIR": str(out)}], timeout=240)
    results = out / "results.json"
    assert log.startswith("[exit 0]") and results.exists(), log[-6000:]
    return json.loads(results.read_text())


def test_collectives(world_results: dict) -> None:
    assert world_results["collectives"] == "ok"


@pytest.mark.parametrize("what", ["ddp", "fsdp2", "ddp_defer", "fsdp2_defer"])
def test_training_matches_single_process(world_results: dict, what: str) -> None:
    r = world_results[what]
    assert len(r["losses"]) == len(r["reference"]) == 5
    assert r["max_loss_diff"] < 1e-5
    assert r["max_param_diff"] < 1e-5


def test_distributed_checkpoint(world_results: dict) -> None:
    r = world_results["dcp"]
    assert r["max_diff"] == 0.0
    assert len([f for f in r["files"] if f.endswith(".distcp")]) == world_results["world_size"]


def test_dtensor_tensor_parallel(world_results: dict) -> None:
    r = world_results["dtensor"]
    assert r["tp_forward_diff"] < 1e-5 and r["tp_grad_diff"] < 1e-5


def launch_faults(scenario: str, n: int = 2, timeout: float = 90) -> list[str]:
    port = str(free_port())
    store = tempfile.mktemp(prefix="torchtpu-dist-store-")
    cmds = [[PY, str(HERE / "faults_worker.py"), scenario] for _ in range(n)]
    envs = [
        {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "RANK": str(r),
         "LOCAL_RANK": str(r), "WORLD_SIZE": str(n), "TORCHTPU_TEST_STORE": store}
        for r in range(n)
    ]  # fmt: skip
    return run(cmds, envs, timeout)


def test_init_forms_and_new_group() -> None:
    for log in launch_faults("init"):
        assert log.startswith("[exit 0]") and "OK init forms" in log, log[-4000:]


def test_mismatched_shapes_and_dtypes_raise_on_every_rank() -> None:
    for log in launch_faults("mismatch"):
        assert log.startswith("[exit 0]"), log[-4000:]
        assert "OK shape mismatch" in log and "rank 0 has float32[4]; rank 1 has float32[5]" in log
        assert "OK dtype mismatch" in log and "int32[4]" in log
        assert "OK op mismatch" in log and "rank 0: all_reduce, rank 1: broadcast" in log
        assert "OK usable after mismatch" in log


def test_dead_rank_fails_the_others() -> None:
    logs = launch_faults("dead")
    assert "exiting on purpose" in logs[1]
    assert logs[0].startswith("[exit 0]") and "OK dead rank noticed" in logs[0], logs[0][-4000:]
    assert "a peer process" in logs[0]


def test_timeout_fires() -> None:
    logs = launch_faults("timeout")
    assert logs[0].startswith("[exit 0]") and "OK timeout after" in logs[0], logs[0][-4000:]
    assert "did not complete within the timeout (3 s)" in logs[0]
