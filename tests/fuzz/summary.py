"""The run's records, grouped and summarized: the summary table and the JSON summary."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

FAILURES = ("mismatch", "crash", "timeout", "error")


@dataclass
class Record:
    """One program run in one mode."""

    mode: str
    seed: int
    index: int
    outcome: str  # match, mismatch, crash, timeout, error (a fuzzer bug)
    cls: str = ""  # the first difference's class (or the outcome for crashes/timeouts)
    op: str = ""  # the op it is attributed to
    detail: str = ""
    size: int = 0  # statements + inputs: smaller is a better repro
    source: str = ""
    program: dict[str, Any] = field(default_factory=dict)
    repro: str = ""
    seconds: float = 0.0
    wall: float = 0.0
    diffs: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: dict[str, int] = field(default_factory=dict)
    inherent: list[dict[str, Any]] = field(default_factory=list)


NOTES = (
    ("index out of range on purpose", re.compile(r"\[oob\]")),
    (
        "CPU kernel lacks this dtype",
        re.compile(r"not implemented for '|does not support bool|on CPU"),
    ),
    ("overlapping write must raise", re.compile(r"refers? to a single memory location")),
)


def note(op: str, detail: str) -> str:
    """A hint at what kind of failure a group is, for the people fixing it."""
    first = detail.splitlines()[0] if detail else ""
    return next((text for text, pat in NOTES if pat.search(op + " " + first)), "")


@dataclass
class Group:
    cls: str
    op: str
    per_mode: Counter[str] = field(default_factory=Counter)
    example: Record | None = None  # the smallest
    reduced_source: str = ""
    reduced_repro: str = ""
    reduced_detail: str = ""

    @property
    def count(self) -> int:
        return sum(self.per_mode.values())


def group(records: list[Record]) -> list[Group]:
    """Failures grouped by (class, op), most frequent first; each with its smallest."""
    groups: dict[tuple[str, str], Group] = {}
    for r in records:
        if r.outcome not in FAILURES:
            continue
        g = groups.setdefault((r.cls, r.op), Group(r.cls, r.op))
        g.per_mode[r.mode] += 1
        if g.example is None or (r.size, len(r.source)) < (g.example.size, len(g.example.source)):
            g.example = r
    return sorted(groups.values(), key=lambda g: (-g.count, g.cls, g.op))


def summary(
    records: list[Record], groups: list[Group], modes: list[str], args: dict[str, Any]
) -> dict[str, Any]:
    per_mode: dict[str, Any] = {}
    for m in modes:
        rs = [r for r in records if r.mode == m]
        c = Counter(r.outcome for r in rs)
        wall = sum(r.wall for r in rs)
        per_mode[m] = {
            "programs": len(rs),
            **{k: c.get(k, 0) for k in ("match",) + FAILURES},
            "classes": dict(Counter(r.cls for r in rs if r.outcome in FAILURES).most_common()),
            "seconds_per_program": wall / len(rs) if rs else 0.0,
            "set_aside": sum(len(r.inherent) for r in rs),
        }
    fallbacks: Counter[str] = Counter()
    for r in records:
        fallbacks.update(r.fallbacks)
    return {
        "args": args,
        "modes": per_mode,
        "groups": [
            {
                "class": g.cls,
                "op": g.op,
                "count": g.count,
                "per_mode": dict(g.per_mode),
                "repro": g.example.repro if g.example else "",
                "detail": g.example.detail if g.example else "",
                "note": note(g.op, g.example.detail) if g.example else "",
                "reduced_repro": g.reduced_repro,
                "reduced_source": g.reduced_source,
                "reduced_detail": g.reduced_detail,
            }
            for g in groups
        ],
        "cpu_fallbacks": dict(fallbacks.most_common()),
        "failures": [asdict(r) for r in records if r.outcome in FAILURES],
    }


def table(s: dict[str, Any], show_sources: int = 0) -> str:
    modes = list(s["modes"])
    out = []
    head = f"{'mode':<9}{'programs':>9}{'match':>8}{'mismatch':>10}{'crash':>7}{'timeout':>9}"
    out.append(head + f"{'error':>7}{'s/program':>11}")
    for m, d in s["modes"].items():
        out.append(
            f"{m:<9}{d['programs']:>9}{d['match']:>8}{d['mismatch']:>10}{d['crash']:>7}"
            f"{d['timeout']:>9}{d['error']:>7}{d['seconds_per_program']:>11.2f}"
        )
    classes = sorted({c for d in s["modes"].values() for c in d["classes"]})
    if classes:
        out.append("")
        out.append("failures by class:")
        out.append(f"  {'class':<16}" + "".join(f"{m:>9}" for m in modes))
        for c in classes:
            out.append(
                f"  {c:<16}" + "".join(f"{s['modes'][m]['classes'].get(c, 0):>9}" for m in modes)
            )
    if s["groups"]:
        out.append("")
        out.append("failures by (class, first op), most frequent first; one smallest repro each:")
        for g in s["groups"]:
            per = " ".join(f"{m}={n}" for m, n in g["per_mode"].items())
            hint = f"  [{g['note']}]" if g["note"] else ""
            out.append(f"  {g['count']:>5}  {g['class']:<15} {g['op']:<28} {per}{hint}")
            out.append(f"         {g['reduced_repro'] or g['repro']}")
            detail = g["reduced_detail"] or g["detail"]
            out.append(f"         {detail.splitlines()[0][:150] if detail else ''}")
        for g in s["groups"][:show_sources]:
            out.append("")
            out.append(f"--- {g['class']} / {g['op']} ({g['count']}):")
            out.append(g["reduced_source"] or "")
    if s["cpu_fallbacks"]:
        out.append("")
        out.append(
            "CPU fallbacks seen (informational): "
            + ", ".join(f"{k}={v}" for k, v in list(s["cpu_fallbacks"].items())[:20])
        )
    return "\n".join(out)
