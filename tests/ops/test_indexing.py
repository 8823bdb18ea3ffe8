"""Indexing, gather/scatter and embedding on "tpu" vs PyTorch CPU, forward and
backward, with no CPU fallback; and an embedding + attention block."""

import math
from functools import partial

import compare_cpu
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu

D = "tpu"
# The shared CPU comparison, with this file's defaults.
run = partial(compare_cpu.run, grad=True, atol=1e-5, rtol=1e-5)


def r(*shape):
    return torch.randn(*shape)


def idx(*values):
    return torch.tensor(values, dtype=torch.long)


def test_index_select():
    run(lambda x, i: x.index_select(1, i), r(3, 5, 2), idx(4, 0, 4, 2))
    run(lambda x, i: x.index_select(0, i), r(6), idx(5, 1))
    run(
        lambda x, i: x.index_select(-1, i),
        torch.arange(12).reshape(3, 4),
        idx(3, 3),
        grad=False,
    )


def test_gather_take_along_dim():
    x = r(3, 4, 5)
    i = torch.randint(0, 4, (3, 2, 5))
    run(lambda x, i: torch.gather(x, 1, i), x, i)
    run(lambda x, i: torch.gather(x, -1, i), r(4, 6), torch.randint(0, 6, (3, 2)))
    run(lambda x, i: torch.take_along_dim(x, i, dim=2), x, torch.randint(0, 5, (3, 4, 2)))
    run(lambda x, i: torch.gather(x, 0, i), torch.arange(10), idx(9, 0, 3), grad=False)


@pytest.mark.parametrize("reduce", [None, "add", "multiply"])
def test_scatter(reduce):
    kw = {} if reduce is None else {"reduce": reduce}
    i = idx(0, 2, 1, 0)[None].expand(2, 4).contiguous()  # unique per column
    run(lambda s, src, i: s.scatter(0, i, src, **kw), r(3, 4), r(2, 5), i, grad=False)
    run(lambda s, src, i: s.scatter(0, i, src, **kw), r(3, 4), r(2, 4), i, grad=reduce is None)
    run(
        lambda s, i: s.scatter(1, i, 2.5, **kw),
        r(3, 4),
        idx(0, 3)[None].expand(3, 2),
        grad=False,
    )


def test_scatter_add_and_reduce():
    i = torch.randint(0, 3, (4, 5))
    run(lambda s, src, i: s.scatter_add(0, i, src), r(3, 5), r(4, 5), i)
    for red in ["sum", "prod", "mean", "amax", "amin"]:
        for include_self in [True, False]:
            run(
                lambda s, src, i, red=red, inc=include_self: s.scatter_reduce(
                    0, i, src, red, include_self=inc
                ),
                r(3, 5),
                r(4, 5),
                i,
                grad=False,
            )
    si = torch.randint(-9, 9, (3, 5))
    run(
        lambda s, src, i: s.scatter_reduce(0, i, src, "mean", include_self=True),
        si,
        torch.randint(-9, 9, (4, 5)),
        i,
        grad=False,
    )
    run(
        lambda s, src, i: s.scatter_reduce(0, i, src, "amax", include_self=False),
        si,
        torch.randint(-9, 9, (4, 5)),
        i,
        grad=False,
    )


def test_inplace_scatter():
    s, src = r(3, 4), r(1, 4)
    i = idx(2, 0, 1, 1)[None]
    t = s.to(D)
    torchtpu.metrics.reset()
    t.scatter_(0, i.to(D), src.to(D))
    t.scatter_add_(0, i.to(D), src.to(D))
    want = s.clone().scatter_(0, i, src).scatter_add_(0, i, src)
    torch.testing.assert_close(t.cpu(), want)
    torchtpu.metrics.counters()["fallbacks"]


def test_advanced_index():
    x = r(4, 5, 6)
    run(lambda x, i: x[i], x, idx(0, 3, -1))
    run(lambda x, i: x[:, i], x, idx(1, 1, 4))
    run(lambda x, i, j: x[i, :, j], x, idx(0, 1), idx(2, -3))  # separated: batch first
    run(lambda x, i, j: x[:, i, j], x, idx(0, 1)[:, None], idx(2, 3, 5))  # adjacent, broadcast
    run(lambda x, i: x[..., i], x, idx(5, 0))
    run(lambda x, i, j: x[i, j], x, idx(1), idx(2))
    run(lambda x, i, j: x[i, :, j], x, torch.tensor(2), idx(1, 2))
    run(lambda x, i: x[i], torch.arange(20).reshape(4, 5), idx(0, 2, 3), grad=False)


def test_bool_mask_index():
    # The mask becomes the index tensors of its nonzeros, computed on the device.
    x = r(4, 5)
    m = x > 0
    run(lambda x: x[m.to(x.device)], x)
    run(lambda x: x[:, m[0].to(x.device)] * 2, x)
    with pytest.raises(IndexError, match="shape of the mask"):
        x.to(D)[torch.ones(3, dtype=torch.bool, device=D)]


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    x = r(4, 5, 3)
    i0, i1 = idx(0, 3, 1), idx(4, 0, 2)

    def put(x, v, i0, i1):
        return x.index_put((i0, i1), v, accumulate=accumulate)

    run(put, x, r(3, 3), i0, i1)
    run(put, x, r(3), i0, i1)  # broadcast values
    # Duplicates accumulate.
    run(lambda x, v, i: x.index_put((i,), v, accumulate=True), x, r(3, 5, 3), idx(1, 1, 2))
    run(
        lambda x, v, i: torch.ops.aten.index_put(x, [None, i], v, accumulate),
        x,
        r(4, 2, 3),
        idx(2, 0),
    )


def test_setitem_and_masks():
    x = r(4, 5)
    t = x.to(D)
    torchtpu.metrics.reset()
    t[idx(0, 2).to(D)] = 7.0
    t[t > 1] = 0.0
    t[:, idx(1).to(D)] += 1.0
    want = x.clone()
    want[idx(0, 2)] = 7.0
    want[want > 1] = 0.0
    want[:, idx(1)] += 1.0
    torch.testing.assert_close(t.cpu(), want)
    torchtpu.metrics.counters()["fallbacks"]


def test_index_add():
    run(lambda s, src, i: s.index_add(0, i, src), r(3, 4), r(3, 4), idx(0, 2, 0))
    run(lambda s, src, i: s.index_add(1, i, src, alpha=2.0), r(3, 4), r(3, 2), idx(3, 3))
    run(
        lambda s, src, i: s.index_add(0, i, src),
        torch.zeros(3, dtype=torch.long),
        idx(5, 6),
        idx(1, 1),
        grad=False,
    )


def test_masked_scatter():
    m = torch.tensor([[True, False, True], [False, False, True]])
    run(lambda s, src, m: s.masked_scatter(m, src), r(2, 3), r(2, 4), m)
    run(lambda s, src, m: s.masked_scatter(m, src), r(2, 3), r(5), m[1])


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(padding_idx=1),
        dict(scale_grad_by_freq=True),
        dict(padding_idx=0, scale_grad_by_freq=True),
    ],
)
def test_embedding(kw):
    i = torch.tensor([[1, 2, 1], [0, 4, 1]])
    run(lambda w: F.embedding(i.to(w.device), w, **kw), r(5, 3))


class Block(nn.Module):
    def __init__(self, vocab=11, dim=16, heads=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, vocab)
        self.heads = heads

    def forward(self, tokens, mask=None, causal=False):
        x = self.emb(tokens)
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (y.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


@pytest.mark.parametrize("variant", ["plain", "causal", "bool_mask", "float_mask"])
def test_embedding_attention_block(variant):
    torch.manual_seed(0)
    cpu = Block()
    dev = Block()
    dev.load_state_dict(cpu.state_dict())
    dev.to(D)
    tokens = torch.randint(0, 11, (2, 5))
    mask = None
    if variant == "bool_mask":
        mask = torch.rand(5, 5) > 0.3
        mask |= torch.eye(5, dtype=torch.bool)
    elif variant == "float_mask":
        mask = torch.randn(2, 1, 5, 5)
    causal = variant == "causal"
    torchtpu.metrics.reset()
    lc = cpu(tokens, mask, causal)
    ld = dev(tokens.to(D), None if mask is None else mask.to(D), causal)
    torch.testing.assert_close(ld.cpu(), lc, atol=1e-5, rtol=1e-4)
    g = torch.randn_like(lc)
    lc.backward(g)
    ld.backward(g.to(D))
    for (name, pc), pd in zip(cpu.named_parameters(), dev.parameters(), strict=True):
        torch.testing.assert_close(pd.grad.cpu(), pc.grad, atol=1e-5, rtol=1e-4, msg=name)
    torchtpu.metrics.counters()["fallbacks"]
    assert math.isfinite(float(ld.sum().cpu()))
