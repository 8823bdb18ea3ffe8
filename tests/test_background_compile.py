"""Background compiles in defer mode: where a backward pass starts, a forward
program not built yet compiles (and then launches) on a thread of its own
while the host records the backward and compiles its program. Values, program
counts and the next steps are as without it; a value of the forward read
before the backward's program runs waits for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import child_python
import torch
from torch import nn

import torchtpu
from torchtpu.metrics import counters

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def make_model(width: int) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, width), nn.GELU(), nn.LayerNorm(width), nn.Linear(width, 3))


def train(device: str, width: int, steps: int) -> tuple[list[float], list[int], list[int]]:
    model = make_model(width).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x = torch.randn(16, 8, generator=torch.Generator().manual_seed(1)).to(device)
    y = torch.randint(0, 3, (16,), generator=torch.Generator().manual_seed(2)).to(device)
    losses, compiles, background = [], [], []
    for _ in range(steps):
        c = counters()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        compiles.append(counters()["compiles"] - c["compiles"])
        background.append(counters()["background_compiles"] - c["background_compiles"])
    return losses, compiles, background


def test_a_new_forward_compiles_in_the_background() -> None:
    cpu, _, _ = train("cpu", 23, 4)
    with torchtpu.mode("defer"):
        tpu, compiles, background = train("tpu", 23, 4)
    torch.testing.assert_close(torch.tensor(tpu), torch.tensor(cpu), rtol=1e-4, atol=1e-6)
    # Forward (in the background), the state's zeros, backward with update;
    # then the cached programs run as they are.
    assert compiles == [3, 0, 0, 0], compiles
    assert background == [1, 0, 0, 0], background


def test_forward_values_read_before_the_backward_runs() -> None:
    """The loss (a forward output) is read between backward() and the
    optimizer step, parameters keep their identity, and gradients are the
    CPU's."""
    results = {}
    for device in ("cpu", "tpu"):
        model = make_model(29).to(device)
        params = list(model.parameters())
        x = torch.randn(16, 8, generator=torch.Generator().manual_seed(3)).to(device)
        with torchtpu.mode("defer" if device == "tpu" else "strict"):
            loss = model(x).square().mean()
            loss.backward()
            value = loss.item()
            grads = [p.grad.cpu() for p in model.parameters()]
        assert [id(p) for p in model.parameters()] == [id(p) for p in params]
        results[device] = (value, grads)
    torch.testing.assert_close(results["tpu"][0], results["cpu"][0], rtol=1e-5, atol=1e-6)
    for got, want in zip(results["tpu"][1], results["cpu"][1], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6)


def test_turned_off_the_programs_and_values_are_the_same(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import torchtpu
        from test_background_compile import train
        with torchtpu.mode("defer"):
            print(json.dumps(train("tpu", 31, 3)))
        """
    )
    out = {}
    for flag in ("0", "1"):
        # A cache of its own: each process compiles its programs.
        cache = str(tmp_path / f"cache-{flag}")
        env = dict(os.environ, TORCHTPU_BACKGROUND_COMPILE=flag, TORCHTPU_CACHE_DIR=cache)
        proc = subprocess.run(
            [sys.executable, "-c", script, str(Path(__file__).parent)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        out[flag] = proc.stdout.strip().splitlines()[-1]
    off, on = json.loads(out["0"]), json.loads(out["1"])
    assert off[0] == on[0]  # the same programs give the same losses, bit for bit
    assert off[1] == on[1] == [3, 0, 0]
    assert off[2] == [0, 0, 0] and on[2] == [1, 0, 0]


# The child limits its address space, so a program whose output does not fit
# fails at its launch without touching the machine's memory.
OOM_CHILD = (
    child_python.ADDRESS_SPACE_LIMIT
    + """
w = torch.ones(4, device="tpu", requires_grad=True)
with torchtpu.mode("defer"):
    big = torch.ones(2**38, device="tpu")  # a live output of the forward: 1 TiB
    loss = (w * 2).sum() + big[:4].sum()
    try:
        loss.backward()
        print("backward returned")
        print("loss", loss.item())
    except RuntimeError as e:
        print(type(e).__name__, str(e).splitlines()[0])
    print("background", torchtpu.metrics.counters()["background_compiles"])
    del big, loss
    print("after", (torch.arange(3.0, device="tpu") * 2).cpu().tolist())
w2 = torch.ones(4, device="tpu", requires_grad=True)
with torchtpu.mode("defer"):
    loss = (w2 * 3).sum()
    loss.backward()
    print("grad", w2.grad.cpu().tolist(), loss.item())
"""
)


def test_a_background_failure_is_raised_where_its_value_is_read() -> None:
    """The forward's program fails at its launch on its own thread (out of
    memory): backward() returns, reading the loss raises the error with what
    made the largest value, and the process goes on."""
    proc = child_python.run_python(OOM_CHILD, 300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "backward returned" in out, out
    assert "OutOfMemoryError torchtpu: out of device memory" in out, out
    assert "comes from aten::fill_.Scalar" in out, out
    assert "background 1" in out, out
    assert "after [0.0, 2.0, 4.0]" in out, out
    assert "grad [3.0, 3.0, 3.0, 3.0] 12.0" in out, out
