"""DeferAndFuse: recorded ops, fused programs, flushes, donation, no recompiles."""

from __future__ import annotations

import torch
from torch import nn

import torchtpu
from torchtpu import _C


def counters() -> dict:
    return torchtpu.metrics.counters()


def test_ops_are_recorded_until_a_value_is_needed() -> None:
    x = torch.randn(4, 5).to("tpu")
    ref = x.cpu()
    torchtpu.metrics.reset()
    with torchtpu.mode("defer"):
        y = x * 2 + 1
        z = torch.relu(y).sum(dim=0)
        assert _C._pending_ops() >= 3
        assert counters()["launches"] == 0
        out = z.cpu()
        assert _C._pending_ops() == 0
    torch.testing.assert_close(out, torch.relu(ref * 2 + 1).sum(dim=0))
    c = counters()
    assert c["flushes"] == {"value needed": 1}
    assert c["fused_ops"] >= 3
    assert c["launches"] == 1


def test_item_bool_and_print_flush() -> None:
    with torchtpu.mode("defer"):
        x = torch.arange(6.0).to("tpu") * 3
        assert x.sum().item() == 45.0
        assert bool((x > 14).any())
        assert "15." in str(x)


def test_sync_flushes_and_intermediates_never_become_outputs() -> None:
    x = torch.randn(256, 256).to("tpu")
    torchtpu.sync()
    torchtpu.metrics.reset()
    base = counters()["live_buffers"]
    with torchtpu.mode("defer"):
        y = x
        for _ in range(10):
            y = torch.tanh(y * 1.01 + 0.5)
        torchtpu.sync()
        assert counters()["flushes"] == {"sync": 1}
        # Only y is new: the nine intermediates never existed as buffers.
        assert counters()["live_buffers"] == base + 1
        expected = x.cpu()
        for _ in range(10):
            expected = torch.tanh(expected * 1.01 + 0.5)
        torch.testing.assert_close(y.cpu(), expected)


def test_views_and_inplace_match_strict() -> None:
    def work(device: str) -> torch.Tensor:
        x = torch.arange(24.0).reshape(4, 6).to(device)
        x[:, 1] += 1
        y = x.t()
        y.mul_(2)
        x[1:3].copy_(torch.full((2, 6), -1.0).to(device))
        z = x.view(6, 4)
        z[0].fill_(5)
        return x.cpu()

    with torchtpu.mode("defer"):
        got = work("tpu")
    torch.testing.assert_close(got, work("cpu"))


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))


def test_training_loop_settles_into_two_cached_programs_per_step() -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, 16, generator=g)
    y = torch.randint(0, 4, (16,), generator=g)

    def train(device: str, steps: int) -> list[float]:
        model = make_model().to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        xs, ys = x.to(device), y.to(device)
        losses = []
        for step in range(steps):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xs), ys)
            loss.backward()
            opt.step()
            sched.step()  # the learning rate changes: a program input, not a constant
            losses.append(loss.item())
            if step == 3:
                torchtpu.metrics.reset()
        return losses

    cpu = train("cpu", 10)
    with torchtpu.mode("defer"):
        tpu = train("tpu", 10)
    torch.testing.assert_close(torch.tensor(tpu), torch.tensor(cpu), rtol=1e-4, atol=1e-5)
    c = counters()
    assert c["compiles"] == 0, c  # after warm-up nothing compiles
    assert c["recompiles"] == 0, c
    # Two fused programs per step: the forward (cut where backward() starts),
    # then the backward and the optimizer's update (torchtpu/backward_cut.py).
    assert c["launches"] == 12, c
    assert c["fallbacks"] == {}


def test_attention_training_is_steady_from_its_second_step() -> None:
    """Programs compiled per step of a causal-attention model's AdamW loop: at
    the first step the forward, the optimizer state's zeros (split off the
    step's trace) and the backward with the update, which is the program every
    later step runs (the bias corrections, lists of numbers, are inputs from
    the start); none after. The forward's scalar fills (attention's 0 and
    -inf) and the backward's gradient seed (1) are sites of different traces:
    none of them turns into an input."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from gpt import GPT, GPTConfig

    torch.manual_seed(0)
    cfg = GPTConfig(vocab=32, context=8, dim=16, heads=2, layers=1)
    idx = torch.randint(0, cfg.vocab, (2, cfg.context))

    def train(device: str, steps: int) -> tuple[list[float], list[int]]:
        torch.manual_seed(0)
        model = GPT(cfg).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        x = idx.to(device)
        losses, compiles = [], []
        for _ in range(steps):
            before = counters()["compiles"]
            opt.zero_grad()
            logits = model(x)
            loss = nn.functional.cross_entropy(logits.reshape(-1, cfg.vocab), x.reshape(-1))
            loss.backward()
            opt.step()
            losses.append(loss.item())
            compiles.append(counters()["compiles"] - before)
        return losses, compiles

    cpu, _ = train("cpu", 5)
    with torchtpu.mode("defer"):
        tpu, compiles = train("tpu", 5)
    torch.testing.assert_close(torch.tensor(tpu), torch.tensor(cpu), rtol=1e-4, atol=1e-5)
    assert compiles == [3, 0, 0, 0, 0], compiles


def test_state_made_at_the_first_iteration_runs_before_it() -> None:
    """Zero fills of new storages that outlive the trace (state a loop makes
    at its first iteration) run as a program of their own before the trace,
    so the first iteration's program is every later iteration's. Values as
    on the CPU; a state the iteration leaves untouched keeps its zeros; a
    temporary's zeros stay in the iteration's program."""

    def step(state: dict, x: torch.Tensor) -> torch.Tensor:
        if "m" not in state:
            state["m"] = torch.zeros_like(x)
            state["untouched"] = torch.zeros(3, device=x.device)
        tmp = torch.zeros(x.shape, device=x.device)
        tmp.add_(x)
        state["m"].mul_(0.5).add_(tmp * 2)
        return state["m"].sum()

    cpu_state: dict = {}
    tpu_state: dict = {}
    compiles = []
    with torchtpu.mode("defer"):
        for _ in range(4):
            x = torch.randn(4, 5)
            before = counters()["compiles"]
            got = step(tpu_state, x.to("tpu")).item()
            compiles.append(counters()["compiles"] - before)
            torch.testing.assert_close(torch.tensor(got), torch.tensor(step(cpu_state, x).item()))
    torch.testing.assert_close(tpu_state["m"].cpu(), cpu_state["m"])
    torch.testing.assert_close(tpu_state["untouched"].cpu(), torch.zeros(3))
    assert compiles == [2, 0, 0, 0], compiles


def test_generator_states_and_scheduled_rates_are_inputs_from_the_start() -> None:
    """A dropout model trained by Adam under a learning-rate schedule builds
    its programs at the first step: the generator's offset (new at every
    call) and the per-parameter step sizes (lists of numbers) are program
    inputs from the first flush, not constants found to change at the
    second step. Without dropout the losses are the CPU's."""

    def train(device: str, p: float) -> tuple[list[float], list[int]]:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(p), nn.ReLU(), nn.Linear(16, 1))
        model = model.to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=0.1)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 / (1 + e))
        x = torch.randn(4, 8).to(device)
        losses, compiles = [], []
        for _ in range(5):
            before = counters()["compiles"]
            opt.zero_grad()
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
            compiles.append(counters()["compiles"] - before)
        return losses, compiles

    with torchtpu.mode("defer"):
        tpu, compiles = train("tpu", 0.0)
        dropped, dropout_compiles = train("tpu", 0.5)
    cpu, _ = train("cpu", 0.0)
    torch.testing.assert_close(torch.tensor(tpu), torch.tensor(cpu), rtol=1e-4, atol=1e-6)
    assert compiles == [3, 0, 0, 0, 0], compiles
    assert dropout_compiles[1:] == [0, 0, 0, 0], dropout_compiles
    assert dropped != tpu  # the masks drop units


def test_loop_without_host_reads_is_cut_where_it_repeats() -> None:
    x = torch.randn(8, 8).to("tpu")
    w = torch.randn(8, 8).to("tpu") / 4
    with torchtpu.mode("defer"):
        for _ in range(300):
            x = torch.tanh(x @ w)
        torchtpu.metrics.reset()
        for _ in range(300):
            x = torch.tanh(x @ w)
        torchtpu.sync()
    c = counters()
    assert c["flushes"].get("loop", 0) >= 4, c
    assert c["compiles"] <= 1, c  # at most the final partial trace is new


def test_parameters_updated_in_place_are_donated() -> None:
    model = make_model().to("tpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(16, 16).to("tpu")
    with torchtpu.mode("defer"):
        for _ in range(3):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            torchtpu.sync()
        live = counters()["live_bytes"]
        for _ in range(3):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            torchtpu.sync()
        # A step neither leaks nor keeps a second copy of the parameters.
        assert counters()["live_bytes"] == live


FAILING_SCRIPT = """
import torch, torchtpu
torchtpu.set_mode("defer")
x = torch.ones(4, device="tpu") * 2
huge = torch.full((2**40, 2**20), 3.0, device="tpu")  # 4 EiB: cannot be allocated
try:
    (x + 1).sum().item()
except torch.OutOfMemoryError as e:
    print("ERROR", e)
# The process stays usable: new work runs.
print("AFTER", (torch.arange(3.0, device="tpu") * 2).tolist())
"""


def _run_script(tmp_path, source_lines: bool) -> str:
    import os
    import subprocess
    import sys

    script = tmp_path / "user_script.py"
    script.write_text(FAILING_SCRIPT)
    env = {**os.environ, "TORCHTPU_SOURCE_LINES": "1" if source_lines else "0"}
    r = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_a_failing_fused_program_names_the_users_op(tmp_path) -> None:
    out = _run_script(tmp_path, source_lines=False)
    error = next(line for line in out.splitlines() if line.startswith("ERROR"))
    assert "out of device memory" in error
    assert "aten::full" in error and "[1099511627776, 1048576]" in error
    assert "AFTER [0.0, 2.0, 4.0]" in out


def test_source_lines_name_the_users_line(tmp_path) -> None:
    out = _run_script(tmp_path, source_lines=True)
    error = next(line for line in out.splitlines() if line.startswith("ERROR"))
    assert f"{tmp_path / 'user_script.py'}:5" in error
