"""torch.compile(backend="tpu"): graphs captured and compiled as one program each,
compared with eager PyTorch on the CPU."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch._dynamo
from torch import nn

import torchtpu

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
from gpt import GPT, GPTConfig  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    torchtpu.set_mode("strict")
    yield
    torch._dynamo.reset()
    torchtpu.set_mode("strict")


def counters() -> dict:
    return torchtpu.metrics.counters()


def test_backend_is_registered_by_name():
    from torch._dynamo.backends.registry import list_backends, lookup_backend

    assert "tpu" in list_backends(exclude_tags=())
    assert lookup_backend("tpu") is torchtpu.compile_backend


def test_backend_found_after_import_torch_alone():
    code = (
        "import torch\n"
        "f = torch.compile(lambda x: torch.sin(x) * 2, backend='tpu')\n"
        "x = torch.arange(6.0)\n"
        "y = f(x.to('tpu'))\n"
        "assert y.device.type == 'tpu', y.device\n"
        "torch.testing.assert_close(y.cpu(), torch.sin(x) * 2)\n"
        "print('ok')\n"
    )
    env = dict(os.environ)
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ok" in r.stdout


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 8), nn.LogSoftmax(-1))


def test_inference_is_one_launch_per_call():
    torch.manual_seed(0)
    model = mlp().eval()
    x = torch.randn(8, 16)
    expected = model(x)
    compiled = torch.compile(copy.deepcopy(model).to("tpu"), backend="tpu")
    xd = x.to("tpu")
    with torch.no_grad():
        first = compiled(xd)
        before = counters()
        second = compiled(xd)
        after = counters()
    torch.testing.assert_close(first.cpu(), expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(second.cpu(), expected, rtol=1e-5, atol=1e-5)
    assert after["launches"] - before["launches"] == 1
    assert after["compiles"] == before["compiles"]
    assert after["graph_runs"] - before["graph_runs"] == 1
    assert after["graphs_compiled"] == before["graphs_compiled"] >= 1
    assert after["fallbacks"] == before["fallbacks"]


def train_gpt(device: str, steps: int, compile_step: bool) -> list[float]:
    torch.manual_seed(0)
    cfg = GPTConfig(vocab=48, context=16, dim=32, heads=2, layers=2)
    model = GPT(cfg).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    data = torch.randint(0, cfg.vocab, (steps, 4, cfg.context + 1), generator=g)
    loss_fn = torch.compile(model.loss, backend="tpu") if compile_step else model.loss
    losses = []
    for s in range(steps):
        batch = data[s].to(device)
        loss = loss_fn(batch[:, :-1], batch[:, 1:])
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("mode", ["strict", "defer"])
def test_gpt_training_matches_cpu(mode):
    expected = train_gpt("cpu", 4, compile_step=False)
    torchtpu.set_mode(mode)
    before = counters()
    got = train_gpt("tpu", 4, compile_step=True)
    after = counters()
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) < 2e-5, (got, expected)
    # One forward and one backward graph, compiled once, then only run.
    assert after["graphs_compiled"] - before["graphs_compiled"] == 2
    assert after["graph_runs"] - before["graph_runs"] == 8
    assert after["graph_eager_runs"] == before["graph_eager_runs"]
    assert after["fallbacks"] == before["fallbacks"]


def test_compiled_optimizer_step_updates_parameters_in_place():
    torch.manual_seed(0)
    params = [torch.randn(5, 3), torch.randn(7)]
    grads = [torch.randn(5, 3), torch.randn(7)]

    def step(ps, gs, lr):
        for p, g in zip(ps, gs, strict=True):
            p.mul_(0.9).add_(g, alpha=-lr)

    dev_params = [p.to("tpu") for p in params]
    dev_grads = [g.to("tpu") for g in grads]
    compiled = torch.compile(step, backend="tpu")
    for _ in range(3):
        step(params, grads, 0.1)
        compiled(dev_params, dev_grads, 0.1)
    for p, d in zip(params, dev_params, strict=True):
        torch.testing.assert_close(d.cpu(), p)


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(x.flatten(1))


def test_batchnorm_running_stats_are_written_back():
    torch.manual_seed(0)
    cpu = ConvNet()
    dev = copy.deepcopy(cpu).to("tpu")
    compiled = torch.compile(dev, backend="tpu")
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.05)
    opt_d = torch.optim.SGD(dev.parameters(), lr=0.05)
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 5, (4,))
    for _ in range(3):
        lc = nn.functional.cross_entropy(cpu(x), y)
        lc.backward()
        opt_c.step()
        opt_c.zero_grad()
        ld = nn.functional.cross_entropy(compiled(x.to("tpu")), y.to("tpu"))
        ld.backward()
        opt_d.step()
        opt_d.zero_grad()
        assert abs(lc.item() - ld.item()) < 1e-4
    torch.testing.assert_close(dev.bn.running_mean.cpu(), cpu.bn.running_mean)
    torch.testing.assert_close(dev.bn.running_var.cpu(), cpu.bn.running_var)
    assert dev.bn.num_batches_tracked.item() == 3
    cpu.eval()
    compiled.eval()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x.to("tpu")).cpu(), cpu(x), rtol=1e-4, atol=1e-4)


def with_graph_break(x: torch.Tensor) -> torch.Tensor:
    y = torch.tanh(x) * 3
    if y.sum().item() > 0:  # data-dependent: Dynamo breaks the graph here
        y = y + 1
    else:
        y = y - 1
    return torch.relu(y) @ x.T


def test_graph_breaks_mix_compiled_and_eager_segments_on_tpu():
    x = torch.randn(6, 6)
    compiled = torch.compile(with_graph_break, backend="tpu")
    before = counters()
    got = compiled(x.to("tpu"))
    after = counters()
    assert got.device.type == "tpu"
    torch.testing.assert_close(got.cpu(), with_graph_break(x), rtol=1e-5, atol=1e-5)
    assert after["graphs_compiled"] - before["graphs_compiled"] >= 2
    torch._dynamo.reset()  # else the graph-broken code compiled above is reused
    with pytest.raises(Exception, match="(?i)data-dependent|graph break|item"):
        torch.compile(with_graph_break, backend="tpu", fullgraph=True)(x.to("tpu"))


def test_fullgraph_and_recompile_on_new_shape():
    model = mlp()
    compiled = torch.compile(copy.deepcopy(model).to("tpu"), backend="tpu", fullgraph=True)
    with torch.no_grad():
        for batch, expected_graphs in ((4, 1), (4, 0), (9, 1)):
            x = torch.randn(batch, 16)
            before = counters()
            got = compiled(x.to("tpu"))
            after = counters()
            torch.testing.assert_close(got.cpu(), model(x), rtol=1e-5, atol=1e-5)
            assert after["graphs_compiled"] - before["graphs_compiled"] == expected_graphs


def test_dynamic_shapes_compile_one_program_per_shape():
    model = mlp()
    compiled = torch.compile(copy.deepcopy(model).to("tpu"), backend="tpu", dynamic=True)
    with torch.no_grad():
        for batch in (3, 5, 3):
            x = torch.randn(batch, 16)
            torch.testing.assert_close(compiled(x.to("tpu")).cpu(), model(x), rtol=1e-5, atol=1e-5)
    assert counters()["graph_eager_runs"] == 0


def test_dropout_draws_new_random_numbers_each_call():
    f = torch.compile(lambda x: nn.functional.dropout(x, p=0.5, training=True), backend="tpu")
    x = torch.ones(4096, device="tpu")
    torch.manual_seed(0)
    a = f(x).cpu()
    b = f(x).cpu()
    assert not torch.equal(a, b)
    for out in (a, b):
        assert set(out.unique().tolist()) <= {0.0, 2.0}
        assert 0.4 < (out == 0).float().mean().item() < 0.6
    torch.manual_seed(0)
    torch.testing.assert_close(f(x).cpu(), a)


def test_graph_that_cannot_be_captured_runs_op_by_op():
    # linalg.eigvals (general eigenvalues) has no tpu lowering: it runs on the
    # CPU, which needs host values.
    def f(a, b):
        m = torch.outer(a * 2, b) + torch.eye(5, device=a.device)
        return torch.linalg.eigvals(m).abs() + 1

    a = torch.rand(5) + 0.5
    b = torch.rand(5) + 0.5
    compiled = torch.compile(f, backend="tpu")
    before = counters()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compiled(a.to("tpu"), b.to("tpu"))
        got2 = compiled(a.to("tpu"), b.to("tpu"))
    after = counters()
    torch.testing.assert_close(got.cpu(), f(a, b))
    torch.testing.assert_close(got2.cpu(), f(a, b))
    assert any("runs op by op" in str(w.message) for w in caught)
    assert after["graph_eager_runs"] - before["graph_eager_runs"] == 2


def test_compiled_graph_in_defer_mode_with_pending_inputs():
    torchtpu.set_mode("defer")
    x = torch.randn(8, 8)
    compiled = torch.compile(lambda t: (t @ t).softmax(-1), backend="tpu")
    xd = x.to("tpu") * 2  # pending in the defer trace
    got = compiled(xd)
    torch.testing.assert_close(got.cpu(), ((x * 2) @ (x * 2)).softmax(-1), rtol=1e-5, atol=1e-5)


def test_outputs_that_alias_inputs():
    def f(x):
        x.add_(1)
        return x.view(2, 3), x.t(), x.sum()

    x = torch.arange(6.0).reshape(3, 2)
    xd = x.clone().to("tpu")
    compiled = torch.compile(f, backend="tpu")
    v, t, s = compiled(xd)
    ev, et, es = f(x)
    torch.testing.assert_close(xd.cpu(), x)
    torch.testing.assert_close(v.cpu(), ev)
    torch.testing.assert_close(t.cpu(), et)
    torch.testing.assert_close(s.cpu(), es)
    v.mul_(10)  # a view of the input, as in eager
    torch.testing.assert_close(xd.cpu(), x * 10)


def test_backward_threads_follow_the_mode_after_a_capture():
    # The backward graph is captured on autograd's worker thread; afterwards
    # that thread must still follow the mode the user picks.
    model = mlp().to("tpu")
    x = torch.randn(8, 16).to("tpu")
    torch.compile(model, backend="tpu")(x).sum().backward()
    torchtpu.set_mode("defer")
    for _ in range(3):
        model(x).sum().backward()
        torchtpu.sync()
    before = counters()
    model(x).sum().backward()
    torchtpu.sync()
    # The forward and the backward, one fused program each (defer cuts where
    # backward() starts); op by op, it would be dozens of launches.
    assert counters()["launches"] - before["launches"] == 2
