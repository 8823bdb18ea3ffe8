"""The differential fuzzer: random programs run on the CPU and on "tpu", compared.

    python tests/fuzz/run.py --programs 1000 --seed 0 --mode all --workers 2
    python -m tests.fuzz.run ...                       # the same

Each program runs in each mode asked for (strict; defer, read after torchtpu.sync();
compile, one torch.compile(backend="tpu") function), in crash-isolated worker processes.
Failing programs are saved as standalone repro scripts, <outdir>/<mode>_<seed>_<index>.py;
failures are grouped by (class, first op) and each group's smallest program is reduced
(statements removed while it fails the same way) into <outdir>/reduced/. The summary is
printed and written to <outdir>/summary.json. Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.execute import MODES  # noqa: E402
from tests.fuzz.gen import program_seed  # noqa: E402
from tests.fuzz.pool import ROOT, Job, Pool, Result  # noqa: E402
from tests.fuzz.program import Program  # noqa: E402
from tests.fuzz.repro import reducer, safe_name, signature, write_repro  # noqa: E402
from tests.fuzz.summary import FAILURES, Group, Record, group, summary, table  # noqa: E402

REDUCE_BUDGET = 40  # runs per group


def _op_at(prog: Program | None, step: int | None, mode: str) -> str:
    if prog is None or step is None:
        return "?"
    labels = ["input"] * len(prog.inputs) + [s.op for s in prog.stmts]
    if step < len(labels):
        return labels[step]
    return {"defer": "sync", "compile": "compile"}.get(mode, "read")


def signature_of(r: Result) -> tuple[str, str]:
    prog = Program.from_json(r.program) if r.program else None
    return signature(r.outcome, r.diffs, _op_at(prog, r.step, r.job.mode))


def _detail(r: Result) -> str:
    """The differences of a result (the first eight), or how its worker was lost."""
    if r.diffs:
        return "\n".join(
            f"{d['cls']} at step {d['step']} ({d['op']}): {d['detail']}" for d in r.diffs[:8]
        )
    return f"{r.outcome} at step {r.step} ({signature_of(r)[1]}): {r.detail}"


def record(r: Result, seed: int, index: int, outdir: Path) -> Record:
    prog = Program.from_json(r.program) if r.program else None
    rec = Record(r.job.mode, seed, index, r.outcome, seconds=r.seconds, wall=r.wall)
    rec.fallbacks, rec.inherent, rec.diffs = r.fallbacks, r.inherent, r.diffs
    if prog is not None:
        rec.size = len(prog.stmts) + len(prog.inputs)
        rec.program = r.program or {}
        rec.source = prog.source()
    if r.outcome == "match":
        return rec
    rec.cls, rec.op = signature_of(r)
    rec.detail = _detail(r)
    if prog is not None:
        path = outdir / f"{r.job.mode}_{seed}_{index}.py"
        title = f"{rec.cls} at `{rec.op}` (mode {r.job.mode}, seed {seed}, program {index})"
        rec.repro = str(write_repro(path, prog, r.job.mode, title, rec.detail))
    return rec


def reduce_groups(
    pool: Pool, groups: list[Group], outdir: Path, budget: int = REDUCE_BUDGET
) -> None:
    """Shrink each group's smallest program while it fails with the same signature; the
    groups are reduced side by side, one candidate each at a time."""
    active: dict[int, Any] = {}
    best: dict[int, Program] = {}
    runs: dict[int, int] = {}
    for k, g in enumerate(groups):
        if g.example is None or not g.example.program or g.cls == "error":
            continue
        prog = Program.from_json(g.example.program)
        best[k] = prog.pruned()
        gen = reducer(prog)
        try:
            active[k] = (gen, next(gen))
            runs[k] = 0
        except StopIteration:
            pass
    while active:
        jobs = [
            Job(groups[k].example.mode, program=cand.to_json(), tag=k)  # type: ignore[union-attr]
            for k, (_, cand) in active.items()
        ]
        for r in pool.run(jobs):
            k = r.job.tag
            assert isinstance(k, int)
            gen, cand = active[k]
            same = signature_of(r) == (groups[k].cls, groups[k].op)
            if same:
                best[k] = cand
            runs[k] += 1
            try:
                if runs[k] >= budget:
                    raise StopIteration
                active[k] = (gen, gen.send(same))
            except StopIteration:
                gen.close()
                del active[k]
    # A last run of each reduced program, renumbered, for the details its repro shows.
    final = {k: prog.renumbered() for k, prog in best.items()}
    jobs = [Job(groups[k].example.mode, program=p.to_json(), tag=k) for k, p in final.items()]  # type: ignore[union-attr]
    for r in pool.run(jobs):
        k = r.job.tag
        assert isinstance(k, int)
        g = groups[k]
        assert g.example is not None
        prog = final[k]
        detail = _detail(r)
        if signature_of(r) != (g.cls, g.op):  # did not fail the same way again: keep the original
            prog = Program.from_json(g.example.program)
            detail = g.example.detail
        path = outdir / "reduced" / f"{safe_name(g.cls)}__{safe_name(g.op)}.py"
        title = f"{g.cls} at `{g.op}` (reduced from {Path(g.example.repro).name})"
        g.reduced_repro = str(write_repro(path, prog, g.example.mode, title, detail))
        g.reduced_source = prog.source()
        g.reduced_detail = detail


def fuzz(
    programs: int,
    seed: int,
    modes: list[str],
    workers: int,
    outdir: Path,
    timeout: float = 120.0,
    start: int = 0,
    reduce: bool = True,
    progress: bool = True,
) -> dict[str, Any]:
    """Run the fuzzer; returns the summary (also written to <outdir>/summary.json)."""
    outdir.mkdir(parents=True, exist_ok=True)
    pool = Pool(workers, outdir / "logs", timeout)
    jobs = [
        Job(m, program_seed(seed, i), tag=i) for m in modes for i in range(start, start + programs)
    ]
    records: list[Record] = []
    began = last = time.monotonic()
    try:
        for r in pool.run(jobs):
            assert isinstance(r.job.tag, int)
            records.append(record(r, seed, r.job.tag, outdir))
            now = time.monotonic()
            if progress and (now - last > 10 or len(records) == len(jobs)):
                last = now
                bad = sum(1 for x in records if x.outcome in FAILURES)
                print(
                    f"[fuzz] {len(records)}/{len(jobs)} programs, {bad} failing, "
                    f"{now - began:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        groups = group(records)
        if reduce and groups:
            reduce_groups(pool, groups, outdir)
    finally:
        pool.close()
    args = {"programs": programs, "seed": seed, "modes": modes, "workers": workers, "start": start}
    s = summary(records, groups, modes, args)
    s["wall_seconds"] = time.monotonic() - began
    (outdir / "summary.json").write_text(json.dumps(s, indent=1, default=str))
    return s


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--programs", type=int, default=100, help="programs per mode")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="index of the first program")
    p.add_argument("--mode", choices=[*MODES, "all"], default="strict")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    p.add_argument("--outdir", type=Path, default=ROOT / "build" / "fuzz")
    p.add_argument("--no-reduce", action="store_true", help="do not shrink the group repros")
    p.add_argument("--show", type=int, default=10, help="print the reduced source of N groups")
    a = p.parse_args(argv)
    modes = list(MODES) if a.mode == "all" else [a.mode]
    s = fuzz(a.programs, a.seed, modes, a.workers, a.outdir, a.timeout, a.start, not a.no_reduce)
    print(table(s, a.show))
    print(f"\nsummary: {a.outdir / 'summary.json'}  ({s['wall_seconds']:.0f} s)")
    return 1 if s["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
