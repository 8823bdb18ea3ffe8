"""The rest of a user's day on "tpu": printing, reading values back, saving and
loading, moving models, autograd and autocast."""

from __future__ import annotations

import copy
import io
import warnings
from pathlib import Path

import pytest
import torch
from torch import nn

import torchtpu


@pytest.fixture(autouse=True)
def quiet_fallbacks() -> None:
    warnings.filterwarnings("ignore", message="torchtpu: .* runs on the CPU")


def small_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


# ---- printing and values ---------------------------------------------------------------


def test_printing_tensors() -> None:
    x = torch.tensor([[1.5, -2.0], [3.0, 4.25]])
    d = x.to("tpu")
    text = str(d)
    assert text == str(x)[:-1] + ", device='tpu:0')"
    assert repr(d) == text
    assert "device='tpu:0'" in repr(torch.arange(3, device="tpu"))
    assert "dtype=torch.bfloat16" in repr(d.bfloat16())
    assert "requires_grad=True" in repr(d.clone().requires_grad_())
    big = torch.arange(10000.0).to("tpu")
    assert "..." in str(big)
    assert str(torch.empty(0, 2, device="tpu")).startswith("tensor([], device='tpu:0'")
    assert "tpu" in f"{d}"
    print(d)  # noqa: T201 - printing must simply work


def test_item_and_tolist() -> None:
    x = torch.tensor([[1.5, 2.0], [3.0, 4.0]], device="tpu")
    assert x[1, 0].item() == 3.0
    assert x.sum().item() == 10.5
    assert torch.tensor(7, device="tpu").item() == 7
    assert torch.tensor(True, device="tpu").item() is True
    assert x.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert torch.arange(4, device="tpu").tolist() == [0, 1, 2, 3]
    assert float(x[0, 0]) == 1.5 and int(x[1, 1]) == 4
    assert bool(x.sum() > 10)
    if x.max() > 3:  # control flow on a device value
        pass
    with pytest.raises(RuntimeError, match="4 elements cannot be converted to Scalar"):
        x.item()


# ---- save and load ------------------------------------------------------------------------


def test_save_tpu_load_on_cpu(tmp_path: Path) -> None:
    x = torch.arange(12.0).reshape(3, 4)
    path = tmp_path / "t.pt"
    torch.save({"x": x.to("tpu"), "view": x.to("tpu")[1:, ::2], "n": 3}, path)
    loaded = torch.load(path, map_location="cpu")
    assert loaded["x"].device.type == "cpu"
    assert torch.equal(loaded["x"], x)
    assert torch.equal(loaded["view"], x[1:, ::2])
    assert loaded["n"] == 3


def test_save_cpu_load_on_tpu(tmp_path: Path) -> None:
    x = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    path = tmp_path / "c.pt"
    torch.save({"x": x, "f": x.float() / 3, "b": x > 2}, path)
    loaded = torch.load(path, map_location="tpu")
    for k in ["x", "f", "b"]:
        assert loaded[k].device.type == "tpu", k
    assert torch.equal(loaded["x"].cpu(), x)
    assert torch.equal(loaded["f"].cpu(), x.float() / 3)
    assert torch.equal(loaded["b"].cpu(), x > 2)
    assert (loaded["f"] * 3).round().int().cpu().tolist() == x.tolist()


def test_save_tpu_load_on_tpu_in_memory() -> None:
    x = torch.randn(5, 5).to("tpu")
    buf = io.BytesIO()
    torch.save(x, buf)
    buf.seek(0)
    y = torch.load(buf)  # no map_location: back on tpu
    assert y.device.type == "tpu"
    assert torch.equal(y.cpu(), x.cpu())
    buf.seek(0)
    z = torch.load(buf, map_location=torch.device("cpu"))
    assert torch.equal(z, x.cpu())


def test_state_dict_round_trips(tmp_path: Path) -> None:
    model = small_model()
    ref_state = {k: v.clone() for k, v in model.state_dict().items()}
    model.to("tpu")
    state = model.state_dict()
    assert all(v.device.type == "tpu" for v in state.values())
    path = tmp_path / "m.pt"
    torch.save(state, path)
    cpu_model = small_model()
    for p in cpu_model.parameters():
        nn.init.zeros_(p)
    cpu_model.load_state_dict(torch.load(path, map_location="cpu"))
    for k, v in cpu_model.state_dict().items():
        assert torch.equal(v, ref_state[k]), k
    tpu_model = copy.deepcopy(cpu_model).to("tpu")
    for p in tpu_model.parameters():
        nn.init.zeros_(p)
    tpu_model.load_state_dict(torch.load(path, map_location="tpu"))
    for k, v in tpu_model.state_dict().items():
        assert v.device.type == "tpu"
        assert torch.equal(v.cpu(), ref_state[k]), k
    # Loading a CPU state dict into a tpu model copies into the tpu parameters.
    tpu_model.load_state_dict(ref_state)
    assert all(p.is_tpu for p in tpu_model.parameters())


def test_optimizer_state_dict_round_trip(tmp_path: Path) -> None:
    model = small_model().to("tpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(2, 4, device="tpu")).sum().backward()
    opt.step()
    path = tmp_path / "o.pt"
    torch.save(opt.state_dict(), path)
    state = torch.load(path, map_location="cpu")
    bufs = [s["momentum_buffer"] for s in state["state"].values()]
    assert bufs and all(b.device.type == "cpu" for b in bufs)
    opt2 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt2.load_state_dict(state)
    assert all(s["momentum_buffer"].is_tpu for s in opt2.state.values())


# ---- models and autograd ------------------------------------------------------------------


def test_model_to_tpu_matches_cpu() -> None:
    model = small_model()
    x = torch.randn(5, 4)
    expected = model(x)
    dev_model = copy.deepcopy(model).to("tpu")
    assert next(dev_model.parameters()).device == torch.device("tpu", 0)
    out = dev_model(x.to("tpu"))
    assert out.device.type == "tpu"
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-5)
    back = dev_model.to("cpu")
    assert next(back.parameters()).device.type == "cpu"
    torch.testing.assert_close(back(x), expected, rtol=1e-5, atol=1e-5)


def test_buffers_move_with_the_model() -> None:
    bn = nn.BatchNorm1d(3)
    bn.to("tpu")
    assert bn.running_mean.is_tpu and bn.num_batches_tracked.is_tpu
    bn(torch.randn(4, 3, device="tpu"))
    assert bn.num_batches_tracked.item() == 1


def test_autograd_matches_cpu() -> None:
    model = small_model()
    x = torch.randn(6, 4)
    model(x).pow(2).mean().backward()
    expected = {n: p.grad.clone() for n, p in model.named_parameters()}
    dev_model = copy.deepcopy(model).to("tpu")
    dev_model.zero_grad(set_to_none=True)
    dev_model(x.to("tpu")).pow(2).mean().backward()
    for n, p in dev_model.named_parameters():
        assert p.grad is not None and p.grad.is_tpu, n
        torch.testing.assert_close(p.grad.cpu(), expected[n], rtol=1e-4, atol=1e-5)


def test_retain_graph_accumulates() -> None:
    w = torch.tensor([1.0, 2.0, 3.0], device="tpu", requires_grad=True)
    y = (w * w).sum()
    y.backward(retain_graph=True)
    assert w.grad.cpu().tolist() == [2.0, 4.0, 6.0]
    y.backward()
    assert w.grad.cpu().tolist() == [4.0, 8.0, 12.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_torch_autograd_grad_and_hooks() -> None:
    x = torch.tensor([1.0, -2.0, 3.0], device="tpu", requires_grad=True)
    seen: list[torch.Tensor] = []

    def hook(g: torch.Tensor) -> torch.Tensor:
        seen.append(g.detach().cpu())
        return g * 10

    h = x.register_hook(hook)
    y = (x.relu() * 2).sum()
    (g,) = torch.autograd.grad(y, x)
    assert g.is_tpu
    assert g.cpu().tolist() == [20.0, 0.0, 20.0]
    assert seen[0].tolist() == [2.0, 0.0, 2.0]
    h.remove()

    acts: list[torch.Tensor] = []
    model = small_model().to("tpu")
    handle = model[1].register_forward_hook(lambda m, i, o: acts.append(o))
    grads: list[torch.Tensor] = []
    bh = model[2].register_full_backward_hook(lambda m, gi, go: grads.append(go[0]))
    model(torch.randn(2, 4, device="tpu")).sum().backward()
    handle.remove()
    bh.remove()
    assert acts[0].is_tpu and acts[0].shape == (2, 8) and (acts[0] >= 0).all().item()
    assert grads[0].is_tpu and torch.equal(grads[0].cpu(), torch.ones(2, 3))


def test_no_grad_and_inference_mode() -> None:
    w = torch.ones(3, device="tpu", requires_grad=True)
    with torch.no_grad():
        y = w * 2
        w.add_(1)  # in-place on a leaf is allowed under no_grad
    assert not y.requires_grad
    assert w.cpu().tolist() == [2.0, 2.0, 2.0]
    with torch.inference_mode():
        z = w * 3
    assert not z.requires_grad
    assert (w * 2).requires_grad
    d = (w * 2).detach()
    assert not d.requires_grad


def test_a_few_training_steps_reduce_the_loss() -> None:
    torch.manual_seed(0)
    x = torch.randn(32, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    model = nn.Linear(4, 1).to("tpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xd, yd = x.to("tpu"), y.to("tpu")
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xd), yd)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] * 0.2


# ---- autocast --------------------------------------------------------------------------


def test_autocast_linear_gives_bfloat16_like_cpu() -> None:
    lin = nn.Linear(4, 3)
    x = torch.randn(2, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        expected = lin(x)
    assert expected.dtype == torch.bfloat16
    dev_lin = copy.deepcopy(lin).to("tpu")
    with torch.autocast("tpu", dtype=torch.bfloat16):
        out = dev_lin(x.to("tpu"))
        assert torch.is_autocast_enabled("tpu")
    assert out.dtype == torch.bfloat16
    assert out.is_tpu
    torch.testing.assert_close(out.cpu().float(), expected.float(), rtol=2e-2, atol=2e-2)
    assert dev_lin.weight.dtype == torch.float32  # parameters stay fp32


def test_autocast_policies() -> None:
    a = torch.randn(3, 3, device="tpu")
    b = torch.randn(3, 3, device="tpu")
    with torch.autocast("tpu", dtype=torch.bfloat16):
        assert torch.mm(a, b).dtype == torch.bfloat16  # lower precision
        assert (a @ b).dtype == torch.bfloat16
        assert torch.bmm(a[None], b[None]).dtype == torch.bfloat16
        mm = torch.mm(a, b)
        assert torch.softmax(mm, 0).dtype == torch.float32  # fp32 policy
        assert torch.exp(mm).dtype == torch.float32
        assert (a + b).dtype == torch.float32  # untouched ops keep their dtype
        assert torch.stack([mm, a]).dtype == torch.float32  # promote
        with torch.autocast("tpu", enabled=False):
            assert torch.mm(a, b).dtype == torch.float32
    assert torch.mm(a, b).dtype == torch.float32


def test_autocast_float16_and_backward() -> None:
    lin = nn.Linear(4, 2).to("tpu")
    x = torch.randn(3, 4, device="tpu")
    with torch.autocast("tpu", dtype=torch.float16):
        y = lin(x)
    assert y.dtype == torch.float16
    y.float().sum().backward()
    assert lin.weight.grad is not None and lin.weight.grad.dtype == torch.float32


def test_metrics_are_reachable_from_the_package() -> None:
    assert "launches" in torchtpu.metrics.counters()
