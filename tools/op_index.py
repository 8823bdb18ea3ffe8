"""Writes the op index, docs/ops.md (``make op-index``): every ATen overload
torchtpu implements on "tpu", where it is implemented, how, and its OpInfo
status.

Sources: the lowering registry of the built extension
(``torchtpu._C._lowering_sources()``), the Python kernels of ``torchtpu.ops``
(``torchtpu.ops.kernels()``, located with ``inspect``), the ``TORCH_LIBRARY_IMPL(aten,
PrivateUse1 | Meta, m)`` blocks of csrc/aten, and the OpInfo sweep's
docs/coverage.json. ``--output PATH`` writes elsewhere (tests/test_op_index.py
compares a fresh index with the committed one).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
OUTPUT = ROOT / "docs" / "ops.md"
COVERAGE = ROOT / "docs" / "coverage.json"

LOWERING = "native lowering"
PYTHON = "Python kernel on tpu ops"
CPP = "C++ kernel"

# An ATen operator name with an optional overload, as TORCH_LIBRARY_IMPL names it.
_OP_NAME = re.compile(r"^[a-z_][a-z0-9_]*(\.[A-Za-z0-9_]+)?$")
_STRING = re.compile(r'"([^"\\]*)"')
_BLOCK = re.compile(r"TORCH_LIBRARY_IMPL\(aten,\s*(PrivateUse1|Meta),\s*m\)\s*\{")


@dataclass
class Op:
    """One overload and the places that implement it."""

    lowering: str | None = None
    python: str | None = None
    cpp: list[str] = field(default_factory=list)
    meta: list[str] = field(default_factory=list)

    def tier(self) -> str:
        """How the op runs on "tpu"."""
        # A Python kernel is the op's PrivateUse1 kernel: it runs instead of the
        # boxed fallback that reaches the lowerings.
        if self.python:
            return PYTHON
        if self.lowering:
            return LOWERING
        if self.cpp:
            return CPP
        return "Meta kernel only"

    def where(self) -> str:
        """Every place that implements the op, as "kind `file:line`"."""
        parts = []
        if self.python:
            parts.append(f"Python `{self.python}`")
        if self.lowering:
            parts.append(f"lowering `{self.lowering}`")
        parts += [f"C++ kernel `{s}`" for s in self.cpp]
        parts += [f"Meta kernel `{s}`" for s in self.meta]
        return "; ".join(parts)


def lowering_sources(sources: dict[str, str]) -> dict[str, str]:
    """Each lowering's "file:line", moved to the line that holds the op's name.

    The compiler locates a registration at one of its lines (GCC: where the
    statement ends); the index points at the overload's own name, written as a
    literal in the registration: the closest one at or above that line.
    """
    out = {}
    texts: dict[str, list[str]] = {}
    for op, source in sources.items():
        file, _, at = source.rpartition(":")
        line = int(at)
        if file not in texts:
            path = CSRC / file
            texts[file] = path.read_text().splitlines() if path.exists() else []
        lines = texts[file]
        needle = f'"{op}"'
        for k in range(min(line, len(lines)), 0, -1):
            if needle in lines[k - 1]:
                line = k
                break
        out[op] = f"{file}:{line}"
    return out


def python_sources() -> dict[str, str]:
    """Each Python kernel's "file:line" (its function), relative to the repository."""
    import torchtpu  # noqa: F401 - registers the kernels
    from torchtpu.ops import kernels

    base = Path(inspect.getfile(torchtpu)).resolve().parent.parent
    out = {}
    for op, fn in kernels().items():
        path = Path(inspect.getsourcefile(fn) or inspect.getfile(fn)).resolve()
        line = inspect.getsourcelines(fn)[1]
        try:
            shown = path.relative_to(base).as_posix()
        except ValueError:
            shown = path.as_posix()
        out[op] = f"{shown}:{line}"
    return out


def aten_registrations() -> dict[str, dict[str, list[str]]]:
    """{"PrivateUse1" | "Meta": {"aten::op": ["aten/file.cc:line", ...]}} from
    the TORCH_LIBRARY_IMPL(aten, ...) blocks of csrc/aten."""
    out: dict[str, dict[str, list[str]]] = {
        "PrivateUse1": defaultdict(list),
        "Meta": defaultdict(list),
    }
    for path in sorted((CSRC / "aten").glob("*.cc")):
        text = path.read_text()
        for block in _BLOCK.finditer(text):
            depth, end = 1, block.end()
            while depth and end < len(text):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            for s in _STRING.finditer(text, block.end(), end):
                if not _OP_NAME.match(s.group(1)):
                    continue
                line = text.count("\n", 0, s.start()) + 1
                rel = path.relative_to(CSRC).as_posix()
                out[block.group(1)]["aten::" + s.group(1)].append(f"{rel}:{line}")
    return out


# Ops whose OpInfos are named otherwise (base name -> OpInfo names).
_ALIASES = {
    "convolution": ["nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d"]
    + ["nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d"]
    + ["nn.functional.conv_transpose3d"],
    "upsample_nearest1d": ["nn.functional.interpolate.nearest"],
    "upsample_nearest2d": ["nn.functional.interpolate.nearest", "nn.functional.upsample_nearest"],
    "upsample_nearest3d": ["nn.functional.interpolate.nearest"],
    "upsample_nearest_exact1d": ["nn.functional.interpolate.nearest-exact"],
    "upsample_nearest_exact2d": ["nn.functional.interpolate.nearest-exact"],
    "upsample_nearest_exact3d": ["nn.functional.interpolate.nearest-exact"],
    "upsample_linear1d": ["nn.functional.interpolate.linear"],
    "upsample_bilinear2d": [
        "nn.functional.interpolate.bilinear",
        "nn.functional.upsample_bilinear",
    ],
    "upsample_trilinear3d": ["nn.functional.interpolate.trilinear"],
    "upsample_bicubic2d": ["nn.functional.interpolate.bicubic"],
    "reflection_pad1d": ["nn.functional.pad.reflect"],
    "reflection_pad2d": ["nn.functional.pad.reflect"],
    "reflection_pad3d": ["nn.functional.pad.reflect"],
    "replication_pad1d": ["nn.functional.pad.replicate"],
    "replication_pad2d": ["nn.functional.pad.replicate"],
    "replication_pad3d": ["nn.functional.pad.replicate"],
    "max_pool2d_with_indices": ["nn.functional.max_pool2d"],
    "max_pool3d_with_indices": ["nn.functional.max_pool3d"],
    "native_dropout": ["nn.functional.dropout"],
    "nll_loss2d": ["nn.functional.nll_loss"],
    "im2col": ["nn.functional.unfold"],
}


def _opinfo_candidates(op: str) -> list[str]:
    """The OpInfo names an overload may belong to, by its base name."""
    base = op.removeprefix("aten::").split(".")[0]
    bases = {base, base.rstrip("_")}
    for b in list(bases):
        bases.add(b.lstrip("_"))
    for b in list(bases):
        if b.endswith("_forward"):
            bases.add(b.removesuffix("_forward"))
    names = set()
    for b in bases:
        if not b:
            continue
        names.add(b)
        names.update(_ALIASES.get(b, []))
        names.add("nn.functional." + b)
        for prefix in ("special", "linalg", "fft"):
            if b.startswith(prefix + "_"):
                names.add(prefix + "." + b.removeprefix(prefix + "_"))
    return sorted(names)


def opinfo_status(coverage: dict[str, Any]) -> tuple[dict[str, dict[str, str]], list[str]]:
    """{OpInfo name: {dtype: status}} and the OpInfo names."""
    status: dict[str, dict[str, str]] = defaultdict(dict)
    for r in coverage.get("results", []):
        status[r["op"]][r["dtype"]] = r["status"]
    return status, sorted(status)


def _matching(candidates: list[str], names: list[str]) -> list[str]:
    """The OpInfos named like a candidate, or variants of one ("div.trunc_rounding")."""
    found = []
    for n in names:
        for c in candidates:
            if n == c or n.startswith(c + "."):
                found.append(n)
                break
    return found


def _status_text(infos: list[str], status: dict[str, dict[str, str]]) -> str:
    if not infos:
        return "—"
    shown = ", ".join(f"`{n}`" for n in infos[:3]) + (
        f" +{len(infos) - 3}" if len(infos) > 3 else ""
    )
    other: dict[str, list[str]] = defaultdict(list)
    native = 0
    for n in infos:
        for dtype, s in sorted(status[n].items()):
            if s == "native":
                native += 1
            else:
                other[s].append(f"{n} {dtype}" if len(infos) > 1 else dtype)
    parts = [f"{s}: {', '.join(v)}" for s, v in sorted(other.items())]
    if not parts:
        return f"{shown}: native"
    if native:
        parts.append("native otherwise")
    return f"{shown}: " + "; ".join(parts)


def build() -> str:
    """The index's markdown."""
    import torchtpu

    ops: dict[str, Op] = defaultdict(Op)
    internal = 0
    for op, source in lowering_sources(torchtpu._C._lowering_sources()).items():
        if not op.startswith("aten::"):
            internal += 1
            continue
        ops[op].lowering = source
    for op, source in python_sources().items():
        ops[op].python = source
    regs = aten_registrations()
    for op, sources in regs["PrivateUse1"].items():
        ops[op].cpp += sources
    for op, sources in regs["Meta"].items():
        ops[op].meta += sources

    coverage = json.loads(COVERAGE.read_text()) if COVERAGE.exists() else {}
    status, names = opinfo_status(coverage)

    tiers: dict[str, int] = defaultdict(int)
    rows = []
    with_opinfo = 0
    for op in sorted(ops):
        entry = ops[op]
        tiers[entry.tier()] += 1
        infos = _matching(_opinfo_candidates(op), names)
        with_opinfo += bool(infos)
        rows.append(
            f"| `{op.removeprefix('aten::')}` | {entry.tier()} | {entry.where()} | "
            f"{_status_text(infos, status)} |"
        )
    counts = ", ".join(f"{t}: {n}" for t, n in sorted(tiers.items(), key=lambda kv: -kv[1]))
    head = f"""# Op index

Generated by `make op-index` (`tools/op_index.py`) from the built extension and
the sources; do not edit it by hand. `tests/test_op_index.py` fails when it is
stale.

Every ATen overload torchtpu implements on "tpu": {len(ops)} overloads
({counts}).
Overloads without an entry run on the CPU fallback, unless PyTorch decomposes
them into ops that have one. torchtpu's own ops ({internal}, `torchtpu::copy`,
`torchtpu::dense`) and custom kernels (`torchtpu.kernels`) are not listed.

- **{LOWERING}**: StableHLO emitted by a lowering in `csrc/lower/<family>/`,
  used by every mode. `file:line` (relative to `csrc/`) is the line where the
  overload's name is written in its registration
  (`torchtpu._C._lowering_sources()` gives each registration's location).
- **{PYTHON}**: a PrivateUse1 kernel in `torchtpu/ops/`, written
  with tpu ops (data-dependent shapes, host logic); `file:line` of the kernel
  function. It runs instead of the op's lowering where both exist.
- **{CPP}**: a PrivateUse1 kernel of `csrc/aten` (copies, factories, views,
  storage), or one that checks the arguments and hands the op to the lowering.
- **Meta kernel**: ours, in `csrc/aten`, where PyTorch ships none; the bridge
  learns the op's result types from it.
- **OpInfo**: the OpInfos of `docs/coverage.json` (`make coverage`) that the
  overload belongs to by its base name (`abs_`, `abs.out` -> `abs`, and its
  variants `name.*`; `special_x` -> `special.x`, `linalg_x` -> `linalg.x`,
  `x` -> `nn.functional.x`; a leading `_` or a trailing `_forward` dropped;
  a few aliases: `convolution` -> `nn.functional.conv*`, `upsample_*` ->
  `nn.functional.interpolate.*`, `*_pad*d` -> `nn.functional.pad.*`, ...),
  and their status per dtype (native unless said otherwise); "—" where none
  matches ({len(ops) - with_opinfo} overloads). Backward ops are exercised by
  their forward OpInfo's gradient check but are not mapped here.

| Op | Tier | Implemented in | OpInfo |
|---|---|---|---|
"""
    return head + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write (docs/ops.md)")
    args = parser.parse_args(argv)
    text = build()
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
