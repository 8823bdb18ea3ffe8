"""Views and in-place semantics on "tpu", compared with the CPU running the same code.

Every case builds its tensors on the device it is given and returns the tensors
to compare; writes through a view must be seen by every alias (the base, the
view and other views of the same storage). Each case runs in the "strict" and
the "launch_blocking" mode.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator

import pytest
import torch

import torchtpu

Case = Callable[[torch.device], object]
CASES: dict[str, Case] = {}


def case(fn: Case) -> Case:
    CASES[fn.__name__] = fn
    return fn


def base(d: torch.device, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.arange(24, dtype=dtype).reshape(2, 3, 4).to(d)


def cplx(d: torch.device) -> torch.Tensor:
    return torch.tensor([1 + 2j, 3 - 4j, -5 + 0.5j], dtype=torch.complex64).to(d)


# ---- reading views ------------------------------------------------------------------


@case
def view(d: torch.device) -> object:
    x = base(d)
    return x.view(6, 4), x.view(-1), x.view(2, 12)


@case
def reshape(d: torch.device) -> object:
    x = base(d)
    return x.reshape(4, 6), x.transpose(0, 1).reshape(3, 8), x.reshape(-1, 2)


@case
def flatten(d: torch.device) -> object:
    x = base(d)
    return x.flatten(), x.flatten(1), x.permute(2, 0, 1).flatten(0, 1)


@case
def transpose_permute_t(d: torch.device) -> object:
    x = base(d)
    return x.transpose(0, 2), x.permute(2, 0, 1), x[0].t(), x.mT, x.transpose(1, 2).transpose(0, 1)


@case
def slicing(d: torch.device) -> object:
    x = base(d)
    return x[:, 1:3, ::2], x[1], x[..., -1], x[:, None, 1], x[1:, :, 1::2]


@case
def select_narrow(d: torch.device) -> object:
    x = base(d)
    return x.select(1, 2), x.narrow(2, 1, 2), x.select(-1, 0).narrow(0, 1, 1)


@case
def integer_indexing(d: torch.device) -> object:
    x = base(d)
    return x[1, :, 2], x[0, 2], x[-1, -1, -1]


@case
def expand(d: torch.device) -> object:
    x = base(d)
    return x[:, :1].expand(2, 5, 4), x[0, 0].expand(3, 4), x[:, :1] + x


@case
def squeeze_unsqueeze(d: torch.device) -> object:
    x = base(d)
    return x[:, :1].squeeze(1), x.unsqueeze(1), x.unsqueeze(-1).squeeze(), x[:1].squeeze(0)


@case
def as_strided(d: torch.device) -> object:
    x = base(d)
    return (
        x.as_strided((3, 3), (5, 2), 1),
        x.as_strided((2, 2), (0, 1)),
        x[1].as_strided((4,), (3,)),
    )


@case
def unfold(d: torch.device) -> object:
    x = base(d)
    return x.flatten().unfold(0, 4, 3), x.unfold(2, 2, 2)


@case
def diagonal(d: torch.device) -> object:
    x = base(d)
    return x[0, :, :3].diagonal(), x.diagonal(offset=1, dim1=1, dim2=2), torch.diagonal(x, 0, 0, 2)


@case
def split_chunk_unbind(d: torch.device) -> object:
    x = base(d)
    return (*x.split(2, dim=2), *x.split([1, 2], dim=1), *x.chunk(3, dim=1), *x.unbind(0))


@case
def view_as_real_complex(d: torch.device) -> object:
    c = cplx(d)
    r = torch.view_as_real(c)
    back = torch.view_as_complex(r)
    pairs = torch.arange(8.0).reshape(4, 2).to(d)
    return r, back, torch.view_as_complex(pairs), r.sum(), torch.view_as_real(c[1:])


# ---- writing through views ------------------------------------------------------------


@case
def augmented_assign_column(d: torch.device) -> object:
    x = base(d)
    v = x[:, 1]
    x[:, 1] += 1
    return x, v


@case
def transposed_mul_(d: torch.device) -> object:
    x = base(d)[0].clone()
    y = x.t()
    y.mul_(2)
    return x, y


@case
def out_into_a_view(d: torch.device) -> object:
    x = base(d)
    torch.add(x[0], 1, out=x[1])
    o = torch.empty(3, 4, device=d)
    torch.mul(x[0], 3, out=o)
    torch.neg(x[0, :, 1], out=x[0, :, 1])
    return x, o


@case
def out_resized(d: torch.device) -> object:
    x = base(d)
    o = torch.empty(0, device=d)
    torch.sub(x, 1, out=o)
    return o


@case
def copy_into_slice(d: torch.device) -> object:
    x = torch.zeros(4, 4, device=d)
    x[1:3, ::2].copy_(torch.ones(2, 2, device=d))
    x[0].copy_(torch.arange(4.0))  # from the host
    x[:, 3] = torch.tensor([9.0, 8.0, 7.0, 6.0], device=d)
    return x


@case
def index_put_(d: torch.device) -> object:
    x = torch.zeros(5, device=d)
    x.index_put_((torch.tensor([0, 3], device=d),), torch.tensor([7.0, 8.0], device=d))
    m = torch.zeros(4, 4, device=d)
    row = m[1]
    row.index_put_(
        (torch.tensor([0, 3, 0], device=d),), torch.tensor(2.0, device=d), accumulate=True
    )
    return x, m, row


@case
def masked_fill_on_a_view(d: torch.device) -> object:
    x = base(d)
    v = x.transpose(0, 2)
    v.masked_fill_(v > 10, -1)
    x[0].masked_fill_(torch.tensor([True, False, True], device=d)[:, None], 5.0)
    return x, v


@case
def boolean_mask_assign(d: torch.device) -> object:
    x = base(d)
    x[x > 15] = 0
    return x


@case
def write_through_view_as_real(d: torch.device) -> object:
    c = cplx(d)
    r = torch.view_as_real(c)
    r[:, 1] = 0  # drop the imaginary parts
    return c, r


@case
def complex_write_seen_by_real_view(d: torch.device) -> object:
    c = cplx(d)
    r = torch.view_as_real(c)
    c.mul_(2)
    return r, c


@case
def chunk_writes(d: torch.device) -> object:
    x = base(d)
    a, b = x.chunk(2, dim=2)
    b.zero_()
    a.add_(100)
    return x, a, b


@case
def unbind_writes(d: torch.device) -> object:
    x = base(d)
    for p in x.unbind(1):
        p.mul_(-1)
    return x


@case
def unfold_write(d: torch.device) -> object:
    x = base(d).flatten()
    u = x.unfold(0, 4, 4)
    u[:, 0] = -1
    return x, u


@case
def diagonal_write(d: torch.device) -> object:
    x = base(d)[0].clone()
    x.diagonal().fill_(9)
    x.diagonal(offset=1).add_(1)
    return x


@case
def view_write(d: torch.device) -> object:
    x = base(d)
    y = x.view(6, 4)
    y[2].sub_(5)
    z = x.reshape(24)  # a view: x is contiguous
    z[::5] = 0
    return x, y, z


@case
def expand_sees_write(d: torch.device) -> object:
    x = base(d)
    e = x[:, :1].expand(2, 3, 4)
    x[:, 0] = 3
    return e


@case
def as_strided_write(d: torch.device) -> object:
    x = base(d)
    s = x.as_strided((2, 2), (4, 1), 5)
    s.fill_(0)
    return x, s


@case
def squeeze_unsqueeze_write(d: torch.device) -> object:
    x = base(d)
    x.unsqueeze(0).squeeze(0)[1, 2, 3] = 50
    x[:, :1].squeeze(1).add_(1000)
    return x


@case
def permute_add_self(d: torch.device) -> object:
    x = base(d)
    y = x.permute(2, 0, 1)
    y.add_(y.clone())
    return x, y


@case
def narrow_copy_from_host(d: torch.device) -> object:
    x = base(d)
    x.narrow(1, 1, 1).copy_(torch.full((2, 1, 4), 5.0))
    return x


@case
def split_then_cat(d: torch.device) -> object:
    x = base(d)
    parts = x.split(1, dim=1)
    parts[1].copy_(parts[0])
    return x, torch.cat(parts, dim=2)


@case
def view_of_view_chain(d: torch.device) -> object:
    x = base(d)
    v = x.transpose(0, 1)[1:].flatten(1).narrow(1, 2, 4).t()
    v.add_(0.5)
    return x, v


@case
def detach_shares_storage(d: torch.device) -> object:
    x = base(d)
    y = x.detach()
    y.mul_(3)
    z = x.data
    z[0] = 1
    return x, y


@case
def inplace_on_integer_view(d: torch.device) -> object:
    x = base(d, torch.int64)
    x[:, 1:, ::3] *= -2
    return x


@case
def setitem_with_broadcast(d: torch.device) -> object:
    x = base(d)
    x[0, :, 1:3] = torch.tensor([[-1.0, -2.0]], device=d)
    x[1, ..., 0] = 42
    return x


FLOW_CASES = sorted(CASES)


@pytest.fixture(params=["strict", "launch_blocking", "defer"])
def tpu_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    with torchtpu.mode(request.param):
        yield request.param


def as_list(result: object) -> list[torch.Tensor]:
    if isinstance(result, torch.Tensor):
        return [result]
    assert isinstance(result, (tuple, list))
    return [t for t in result if t is not None]


@pytest.mark.parametrize("name", FLOW_CASES)
def test_matches_cpu(name: str, tpu_mode: str) -> None:
    fn = CASES[name]
    expected = as_list(fn(torch.device("cpu")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CPU-fallback notices
        actual = as_list(fn(torch.device("tpu")))
    assert len(actual) == len(expected)
    for k, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert a.device.type == "tpu", f"result {k} is on {a.device}"
        assert a.dtype == e.dtype, f"result {k}: {a.dtype} != {e.dtype}"
        assert a.shape == e.shape, f"result {k}: {tuple(a.shape)} != {tuple(e.shape)}"
        assert a.stride() == e.stride(), f"result {k}: strides {a.stride()} != {e.stride()}"
        assert torch.equal(a.cpu(), e), f"result {k}:\n{a.cpu()}\n!=\n{e}"


def test_views_share_storage(tpu_mode: str) -> None:
    x = base(torch.device("tpu"))
    views = [x.view(6, 4), x[1], x.t() if x.dim() == 2 else x.transpose(0, 2), x.unfold(2, 2, 1)]
    views += [
        x.diagonal(dim1=1, dim2=2),
        x.as_strided((2,), (1,)),
        *x.split(1),
        x.expand(2, 2, 3, 4),
    ]
    for v in views:
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert v._base is x
    c = cplx(torch.device("tpu"))
    assert torch.view_as_real(c).untyped_storage().data_ptr() == c.untyped_storage().data_ptr()


def test_views_are_metadata_only(tpu_mode: str) -> None:
    x = base(torch.device("tpu"))
    torchtpu.metrics.reset()
    x.view(6, 4).transpose(0, 1)[1:].unsqueeze(0).expand(3, 3, 6).narrow(1, 0, 2)
    x.as_strided((2, 2), (1, 2)).diagonal()
    c = torchtpu.metrics.counters()
    assert c["launches"] == 0 and c["compiles"] == 0


def _strided_cases() -> list[tuple[list[int], list[int], int]]:
    """(sizes, strides, offset) of views over a 4x6x5 storage: transposes,
    slices, steps, splits, broadcasts, unit dims, and some that need a gather."""
    g = torch.Generator().manual_seed(0)
    cases = [
        ([6, 4], [1, 6], 0),  # a transpose
        ([4, 3, 2], [30, 10, 1], 3),  # a slice of a split
        ([2, 5], [60, 1], 55),  # rows, ending at the storage's end
        ([3, 4], [2, 30], 1),  # step 2, transposed
        ([4, 1, 5], [30, 7, 1], 25),  # a unit dim
        ([3, 4], [0, 30], 2),  # a broadcast (read only)
        ([5], [7], 0),  # a diagonal-like step
        ([4, 6], [5, 1], 0),  # overlapping rows: needs a gather
        ([], [], 17),  # one element
    ]
    for _ in range(12):
        ndim = int(torch.randint(1, 4, (1,), generator=g))
        sizes = [int(torch.randint(1, 5, (1,), generator=g)) for _ in range(ndim)]
        strides = [int(torch.randint(0, 13, (1,), generator=g)) for _ in range(ndim)]
        span = sum((s - 1) * st for s, st in zip(sizes, strides, strict=True))
        offset = int(torch.randint(0, 120 - span, (1,), generator=g)) if span < 119 else 0
        if span + offset < 120:
            cases.append((sizes, strides, offset))
    return cases


@pytest.mark.parametrize("case", _strided_cases(), ids=str)
def test_strided_views_read_and_write_as_on_cpu(case, tpu_mode: str) -> None:
    sizes, strides, offset = case
    base = torch.arange(120.0).reshape(4, 6, 5)
    dev = base.to("tpu")
    view = base.as_strided(sizes, strides, offset)
    dview = dev.as_strided(sizes, strides, offset)
    torch.testing.assert_close((dview * 1).cpu(), view * 1)
    where = torch.arange(120.0).as_strided(sizes, strides, offset)
    if where.unique().numel() < where.numel():
        return  # writes through overlapping views are ill-defined
    src = -torch.arange(view.numel(), dtype=torch.float32).reshape(sizes)
    view.copy_(src)
    dview.copy_(src.to("tpu"))
    torch.testing.assert_close(dev.cpu(), base)
    torch.testing.assert_close(dview.cpu(), view)


def test_lazy_conjugate_and_negative_views_read_their_values() -> None:
    c = torch.tensor([1 + 2j, 3 - 4j, -5 + 0.5j], dtype=torch.complex64)
    d = c.to("tpu")
    torch.testing.assert_close(d.conj().cpu(), c.conj())
    torch.testing.assert_close(d.conj().resolve_conj().cpu(), c.conj())
    neg = d.conj().imag  # a negative view of a real tensor
    assert neg.is_neg()
    torch.testing.assert_close(neg.cpu(), c.conj().imag)
    torch.testing.assert_close((neg * 2 + 1).cpu(), c.conj().imag * 2 + 1)
    x = torch.randn(8)
    torch.testing.assert_close(torch.fft.ifft(x.to("tpu")).cpu(), torch.fft.ifft(x))
