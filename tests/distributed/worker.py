"""Distributed scenarios run by tests/distributed (one process per rank, under torchrun).

``python -m torch.distributed.run --nproc_per_node N worker.py OUT_DIR scenario...``
Each scenario checks its results against a single-process CPU computation made in
the same process, and rank 0 writes ``OUT_DIR/results.json`` with the measured
differences; any failure raises (and the test sees a non-zero exit).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.nn as nn

import torchtpu

RESULTS: dict[str, object] = {}


def rank() -> int:
    return dist.get_rank()


def world() -> int:
    return dist.get_world_size()


def close(a: torch.Tensor, b: torch.Tensor, what: str, atol: float = 1e-5) -> float:
    a, b = a.detach().cpu(), b.detach().cpu()
    if a.shape != b.shape or a.dtype != b.dtype:
        raise AssertionError(f"{what}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
    diff = (a.double() - b.double()).abs().max().item() if a.numel() else 0.0
    if diff > atol:
        raise AssertionError(f"{what}: max difference {diff} > {atol}\n{a}\n{b}")
    return diff


def data(r: int, shape: tuple[int, ...], dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Rank r's input: deterministic, different on every rank (exact in float32)."""
    n = 1
    for s in shape:
        n *= s
    t = (torch.arange(n, dtype=torch.float64) % 7 + r * 3 + 1).reshape(shape)
    return t.to(dtype)


# ---- collectives ------------------------------------------------------------------


def scenario_collectives() -> None:
    r, n, dev = rank(), world(), "tpu"
    shape = (3, 5)
    inputs = [data(i, shape) for i in range(n)]
    stack = torch.stack(inputs)
    # all_reduce, every op
    expected = {
        dist.ReduceOp.SUM: stack.sum(0),
        dist.ReduceOp.AVG: stack.sum(0) / n,
        dist.ReduceOp.MAX: stack.amax(0),
        dist.ReduceOp.MIN: stack.amin(0),
        dist.ReduceOp.PRODUCT: stack.prod(0),
    }
    for op, want in expected.items():
        t = inputs[r].to(dev)
        dist.all_reduce(t, op=op)
        close(t, want, f"all_reduce {op}")
    ti = data(r, (4,), torch.int64).to(dev)
    dist.all_reduce(ti)
    close(
        ti, torch.stack([data(i, (4,), torch.int64) for i in range(n)]).sum(0), "all_reduce int64"
    )
    # async handle, on a view (writes through to the base)
    base = torch.zeros(2, 8, device=dev)
    view = base[1, 2:5]
    view.copy_(data(r, (3,)).to(dev))
    work = dist.all_reduce(view, async_op=True)
    work.wait()
    assert work.is_completed()
    close(base[1, 2:5], torch.stack([data(i, (3,)) for i in range(n)]).sum(0), "async view")
    close(base[0], torch.zeros(8), "untouched part of the base")
    # broadcast / reduce
    t = inputs[r].to(dev)
    dist.broadcast(t, src=n - 1)
    close(t, inputs[n - 1], "broadcast")
    t = inputs[r].to(dev)
    dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
    if r == 0:
        close(t, stack.sum(0), "reduce")
    # all_gather (list and tensor forms, and coalesced)
    outs = [torch.empty(shape, device=dev) for _ in range(n)]
    dist.all_gather(outs, inputs[r].to(dev))
    for i in range(n):
        close(outs[i], inputs[i], "all_gather")
    out = torch.empty(n * 3, 5, device=dev)
    dist.all_gather_into_tensor(out, inputs[r].to(dev))
    close(out, torch.cat(inputs), "all_gather_into_tensor")
    with dist._coalescing_manager(async_ops=True) as cm:
        o1 = torch.empty(n * 3, 5, device=dev)
        o2 = torch.empty(n * 4, device=dev)
        dist.all_gather_into_tensor(o1, inputs[r].to(dev))
        dist.all_gather_into_tensor(o2, data(r, (4,)).to(dev))
    cm.wait()
    close(o1, torch.cat(inputs), "coalesced all_gather_into_tensor 1")
    close(o2, torch.cat([data(i, (4,)) for i in range(n)]), "coalesced all_gather_into_tensor 2")
    # reduce_scatter (list and tensor forms, and coalesced)
    big = [data(i, (n * 2, 3)) for i in range(n)]
    summed = torch.stack(big).sum(0)
    mine = summed[r * 2 : (r + 1) * 2]
    o = torch.empty(2, 3, device=dev)
    dist.reduce_scatter_tensor(o, big[r].to(dev))
    close(o, mine, "reduce_scatter_tensor")
    o = torch.empty(2, 3, device=dev)
    dist.reduce_scatter_tensor(o, big[r].to(dev), op=dist.ReduceOp.AVG)
    close(o, mine / n, "reduce_scatter_tensor avg")
    o = torch.empty(2, 3, device=dev)
    dist.reduce_scatter(o, list(big[r].to(dev).chunk(n)))
    close(o, mine, "reduce_scatter")
    # PREMUL_SUM (what FSDP uses to pre-divide gradients): a number or a tensor factor
    for factor in (0.25, torch.tensor(0.5, device=dev)):
        premul = dist._make_nccl_premul_sum(factor)
        f = float(factor)
        t = inputs[r].to(dev)
        dist.all_reduce(t, op=premul)
        close(t, stack.sum(0) * f, f"all_reduce PREMUL_SUM {f}")
        o = torch.empty(2, 3, device=dev)
        dist.reduce_scatter_tensor(o, big[r].to(dev), op=premul)
        close(o, mine * f, f"reduce_scatter_tensor PREMUL_SUM {f}")
    with dist._coalescing_manager(async_ops=True) as cm:
        oa = torch.empty(2, 3, device=dev)
        ob = torch.empty(2, 3, device=dev)
        dist.reduce_scatter_tensor(oa, big[r].to(dev))
        dist.reduce_scatter_tensor(ob, (big[r] * 2).to(dev))
    cm.wait()
    close(oa, mine, "coalesced reduce_scatter_tensor 1")
    close(ob, mine * 2, "coalesced reduce_scatter_tensor 2")
    # all_to_all_single with uneven splits: rank i sends (j + 1) rows to rank j
    in_splits = [j + 1 for j in range(n)]
    out_splits = [r + 1] * n
    src = data(r, (sum(in_splits), 2))
    o = torch.empty(sum(out_splits), 2, device=dev)
    dist.all_to_all_single(o, src.to(dev), out_splits, in_splits)
    want = []
    for i in range(n):
        si = data(i, (sum(in_splits), 2))
        start = sum(in_splits[:r])
        want.append(si[start : start + r + 1])
    close(o, torch.cat(want), "all_to_all_single uneven")
    # all_to_all (lists, uneven sizes)
    ins = [data(r, (j + 1,)).to(dev) + j for j in range(n)]
    outs = [torch.empty(r + 1, device=dev) for _ in range(n)]
    dist.all_to_all(outs, ins)
    for i in range(n):
        close(outs[i], data(i, (r + 1,)) + r, "all_to_all")
    # gather / scatter
    g = [torch.empty(shape, device=dev) for _ in range(n)] if r == 0 else None
    dist.gather(inputs[r].to(dev), g, dst=0)
    if r == 0:
        for i in range(n):
            close(g[i], inputs[i], "gather")
    o = torch.empty(shape, device=dev)
    dist.scatter(o, [x.to(dev) for x in inputs] if r == 0 else None, src=0)
    close(o, inputs[r], "scatter")
    dist.barrier()
    # send / recv around a ring
    t = inputs[r].to(dev)
    o = torch.empty(shape, device=dev)
    ops = [
        dist.P2POp(dist.isend, t, (r + 1) % n),
        dist.P2POp(dist.irecv, o, (r - 1) % n),
    ]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    close(o, inputs[(r - 1) % n], "send/recv")
    if r == 0:
        dist.send(t, 1)
    elif r == 1:
        o = torch.empty(shape, device=dev)
        dist.recv(o, 0)
        close(o, inputs[0], "send/recv blocking")
    # defer mode: the collective is a flush point and sees the deferred values
    with torchtpu.mode("defer"):
        t = inputs[r].to(dev) * 2 + 1
        dist.all_reduce(t)
        t = t - 1
    close(t, (stack * 2 + 1).sum(0) - 1, "all_reduce in defer mode")
    # a subgroup from new_group, with the device:backend form
    sub = dist.new_group([0, 1], backend="cpu:gloo,tpu:tpu")
    if r < 2:
        t = inputs[r].to(dev)
        dist.all_reduce(t, group=sub)
        close(t, inputs[0] + inputs[1], "new_group all_reduce")
        c = inputs[r].clone()
        dist.all_reduce(c, group=sub)
        close(c, inputs[0] + inputs[1], "new_group cpu tensor")
    # functional collectives (DTensor, torch.compile)
    import torch.distributed._functional_collectives as fc

    wg = dist.group.WORLD
    close(fc.all_reduce(inputs[r].to(dev), "sum", wg), stack.sum(0), "functional all_reduce")
    close(
        fc.all_gather_tensor(inputs[r].to(dev), 0, wg), torch.cat(inputs), "functional all_gather"
    )
    close(
        fc.reduce_scatter_tensor(big[r].to(dev), "sum", 0, wg),
        mine,
        "functional reduce_scatter",
    )
    close(
        fc.all_to_all_single(src.to(dev), out_splits, in_splits, wg),
        torch.cat(want),
        "functional all_to_all_single",
    )
    close(fc.broadcast(inputs[r].to(dev), 0, wg), inputs[0], "functional broadcast")
    if n == 2:  # functional collectives traced by torch.compile (AOTAutograd, eager kernels)

        def fn(x: torch.Tensor) -> torch.Tensor:
            y = fc.all_reduce(x * 2, "sum", wg)
            return fc.all_gather_tensor(y + 1, 0, wg)

        got = torch.compile(fn, backend="aot_eager")(inputs[r].to(dev))
        close(got, torch.cat([stack.sum(0) * 2 + 1] * n), "compiled functional collectives")
    RESULTS["collectives"] = "ok"


# ---- training --------------------------------------------------------------------


def make_tp_pair(n: int) -> tuple[nn.Module, nn.Module]:
    """Two copies of one seeded MLP: a CPU reference and one to parallelize."""
    torch.manual_seed(0)
    ref = nn.Sequential(nn.Linear(8, 16 * n), nn.ReLU(), nn.Linear(16 * n, 8))
    tp = nn.Sequential(nn.Linear(8, 16 * n), nn.ReLU(), nn.Linear(16 * n, 8))
    tp.load_state_dict(ref.state_dict())
    return ref, tp


def make_mlp(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 4)
    )


def batches(steps: int, global_batch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1234)
    return [
        (torch.randn(global_batch, 16, generator=g), torch.randn(global_batch, 4, generator=g))
        for _ in range(steps)
    ]


def reference_losses(steps: int, global_batch: int) -> tuple[list[float], nn.Module]:
    model = make_mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for x, y in batches(steps, global_batch):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def train_sharded(model: nn.Module, steps: int, global_batch: int, mode: str) -> list[float]:
    """Each rank trains on its slice of the global batch; returns the global mean loss."""
    r, n = rank(), world()
    per = global_batch // n
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    torchtpu.metrics.reset()
    with torchtpu.mode(mode):
        for x, y in batches(steps, global_batch):
            x, y = x[r * per : (r + 1) * per].to("tpu"), y[r * per : (r + 1) * per].to("tpu")
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            total = loss.detach().clone()
            dist.all_reduce(total, op=dist.ReduceOp.AVG)
            losses.append(total.item())
        torchtpu.sync()
    fallbacks = torchtpu.metrics.counters()["fallbacks"]
    assert not fallbacks, f"ops fell back to the CPU: {fallbacks}"
    return losses


def scenario_ddp(mode: str = "strict") -> None:
    from torch.nn.parallel import DistributedDataParallel as DDP

    steps, gb = 5, 8 * world()
    want, ref = reference_losses(steps, gb)
    model = DDP(make_mlp().to("tpu"))
    got = train_sharded(model, steps, gb, mode)
    diff = max(abs(a - b) for a, b in zip(got, want, strict=True))
    assert diff < 1e-5, (got, want)
    pdiff = max(
        close(p, q, "ddp parameter")
        for p, q in zip(model.module.parameters(), ref.parameters(), strict=True)
    )
    RESULTS["ddp" if mode == "strict" else f"ddp_{mode}"] = {
        "losses": got,
        "reference": want,
        "max_loss_diff": diff,
        "max_param_diff": pdiff,
    }


def scenario_fsdp2(mode: str = "strict") -> None:
    from torch.distributed.fsdp import fully_shard

    steps, gb = 5, 8 * world()
    want, ref = reference_losses(steps, gb)
    model = make_mlp().to("tpu")
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    got = train_sharded(model, steps, gb, mode)
    diff = max(abs(a - b) for a, b in zip(got, want, strict=True))
    assert diff < 1e-5, (got, want)
    pdiff = max(
        close(p.full_tensor(), q, "fsdp2 parameter")
        for p, q in zip(model.parameters(), ref.parameters(), strict=True)
    )
    RESULTS["fsdp2" if mode == "strict" else f"fsdp2_{mode}"] = {
        "losses": got,
        "reference": want,
        "max_loss_diff": diff,
        "max_param_diff": pdiff,
    }
    if mode != "strict":
        return
    # distributed checkpoint: save the sharded state, load it into a fresh sharded model
    import torch.distributed.checkpoint as dcp

    ckpt = os.environ["TORCHTPU_DIST_CKPT"]
    dcp.save({"model": model.state_dict()}, checkpoint_id=ckpt)
    fresh = make_mlp(seed=7).to("tpu")
    for layer in fresh:
        if isinstance(layer, nn.Linear):
            fully_shard(layer)
    fully_shard(fresh)
    state = {"model": fresh.state_dict()}
    dcp.load(state, checkpoint_id=ckpt)
    fresh.load_state_dict(state["model"])
    ldiff = max(
        close(p.full_tensor(), q.full_tensor(), "dcp round trip", atol=0.0)
        for p, q in zip(fresh.parameters(), model.parameters(), strict=True)
    )
    RESULTS["dcp"] = {"max_diff": ldiff, "files": sorted(os.listdir(ckpt))}


def scenario_dtensor() -> None:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        RowwiseParallel,
        parallelize_module,
    )

    n = world()
    mesh = init_device_mesh("tpu", (n,))
    full = data(0, (4 * n, 6))
    d = distribute_tensor(full.to("tpu"), mesh, [Shard(0)])
    assert d.to_local().shape == (4, 6)
    close(d.full_tensor(), full, "distribute_tensor Shard(0)")
    close(d.redistribute(mesh, [Replicate()]).to_local(), full, "Shard(0) -> Replicate")
    s1 = d.redistribute(mesh, [Shard(1)]) if 6 % n == 0 else None
    if s1 is not None:
        close(s1.full_tensor(), full, "Shard(0) -> Shard(1)")
    rep = distribute_tensor(full.to("tpu"), mesh, [Replicate()])
    close(rep.redistribute(mesh, [Shard(0)]).full_tensor(), full, "Replicate -> Shard(0)")
    close((d * 2).sum().full_tensor(), (full * 2).sum(), "DTensor op + partial reduction")
    if n == 4:  # a 2-D mesh: its dimensions are subgroups made by new_group
        mesh2 = init_device_mesh("tpu", (2, 2), mesh_dim_names=("dp", "tp"))
        full2 = data(1, (4, 6))
        d2 = distribute_tensor(full2.to("tpu"), mesh2, [Shard(0), Shard(1)])
        assert d2.to_local().shape == (2, 3)
        close(d2.full_tensor(), full2, "2-D mesh Shard(0), Shard(1)")
        close(
            d2.redistribute(mesh2, [Replicate(), Shard(0)]).full_tensor(), full2, "2-D redistribute"
        )
    # a tensor-parallel MLP: forward and backward against the same MLP on the CPU
    ref, tp = make_tp_pair(n)
    tp = parallelize_module(tp.to("tpu"), mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(3))
    out = tp(x.to("tpu"))
    want = ref(x)
    fdiff = close(out, want, "TP MLP forward")
    out.sum().backward()
    want.sum().backward()
    gdiff = max(
        close(p.grad.full_tensor(), q.grad, "TP MLP gradient")
        for p, q in zip(tp.parameters(), ref.parameters(), strict=True)
    )
    RESULTS["dtensor"] = {"tp_forward_diff": fdiff, "tp_grad_diff": gdiff}


SCENARIOS: dict[str, Callable[[], None]] = {
    "collectives": scenario_collectives,
    "ddp": scenario_ddp,
    "fsdp2": scenario_fsdp2,
    "dtensor": scenario_dtensor,
    "ddp_defer": lambda: scenario_ddp("defer"),
    "fsdp2_defer": lambda: scenario_fsdp2("defer"),
}


def main() -> None:
    warnings.filterwarnings("ignore", category=FutureWarning)
    out_dir, names = sys.argv[1], sys.argv[2:]
    dist.init_process_group("tpu", timeout=datetime.timedelta(seconds=60))
    os.environ.setdefault("TORCHTPU_DIST_CKPT", os.path.join(out_dir, "ckpt"))
    times = {}
    for name in names:
        start = time.perf_counter()
        SCENARIOS[name]()
        times[name] = round(time.perf_counter() - start, 2)
    dist.barrier()
    if rank() == 0:
        RESULTS["seconds"] = times
        RESULTS["world_size"] = world()
        with open(os.path.join(out_dir, "results.json"), "w") as f:
            json.dump(RESULTS, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    tempfile.tempdir = os.environ.get("TMPDIR")
    main()
    # Leave without the interpreter's final teardown: with 4 ranks on a busy
    # 2-core machine, about one run in five aborted there ("terminate called
    # without an active exception") in a ProcessGroupGloo worker thread
    # (pt_gloo_runloop, forced unwind while Python's final garbage collection
    # ran), after the results were written and the process group destroyed.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
