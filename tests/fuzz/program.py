"""A fuzz program: input lines and straight-line statements, with the metadata the runner
needs to attribute a difference to a statement (what each statement defines and writes).

A program is plain Python over three names: `torch`, `dev` (the device) and `g` (a CPU
`torch.Generator`). Every input is drawn on the CPU from `g`, reseeded per input, and moved
with `.to(dev)`, so both runs see identical values and any input can be dropped without
changing the others.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

NAME_RE = re.compile(r"\b[xv]\d+\b")
# In-place ops that change a tensor's shape and strides, not its values.
METADATA_OPS = {"t_", "transpose_", "unsqueeze_", "squeeze_"}


@dataclass
class Stmt:
    """One line of the program."""

    code: str
    op: str  # the label mismatches are grouped by ("add", "mul_", "getitem", ...)
    defines: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)  # tensors written in place (by name)
    raises: str | None = None  # the CPU's exception type in the generator's dry run

    def restrides(self) -> bool:
        """Whether the statement may set the shape or strides of what it writes (out=
        resizes its tensor; t_ and friends change the metadata in place)."""
        return "out=" in self.code or self.op in METADATA_OPS

    def uses(self) -> list[str]:
        """The program names this statement reads (its targets included)."""
        rhs = self.code.split("=", 1)[1] if self.defines else self.code
        return NAME_RE.findall(rhs) + list(self.writes)


@dataclass
class Input:
    name: str
    expr: str  # evaluated on the CPU, then `.to(dev)`

    @property
    def line(self) -> str:
        return f"{self.name} = {self.expr}.to(dev)"


@dataclass
class Program:
    seed: str
    inputs: list[Input] = field(default_factory=list)
    stmts: list[Stmt] = field(default_factory=list)

    def source(self) -> str:
        lines = ["g = torch.Generator()"]
        lines += [i.line for i in self.inputs]
        for s in self.stmts:
            lines.append(s.code + (f"  # raises {s.raises} on CPU" if s.raises else ""))
        return "\n".join(lines) + "\n"

    def names(self) -> list[str]:
        """Every name the program keeps, in definition order."""
        out = [i.name for i in self.inputs]
        for s in self.stmts:
            out += [d for d in s.defines if d not in out]
        return out

    def first_cpu_error(self) -> int | None:
        return next((i for i, s in enumerate(self.stmts) if s.raises), None)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> Program:
        return Program(
            seed=d["seed"],
            inputs=[Input(**i) for i in d["inputs"]],
            stmts=[Stmt(**s) for s in d["stmts"]],
        )

    def without(self, index: int) -> Program:
        """The program without statement `index`, and without the inputs nothing uses."""
        stmts = [s for i, s in enumerate(self.stmts) if i != index]
        return Program(self.seed, self.inputs, stmts).pruned()

    def pruned(self) -> Program:
        used = {n for s in self.stmts for n in s.uses()}
        return Program(self.seed, [i for i in self.inputs if i.name in used], list(self.stmts))

    def renumbered(self) -> Program:
        """The same program with its names numbered in order: x0, x1, ... for the inputs
        and v0, v1, ... for the values the statements define."""
        mapping = {i.name: f"x{k}" for k, i in enumerate(self.inputs)}
        for s in self.stmts:
            for d in s.defines:
                mapping.setdefault(d, f"v{len(mapping) - len(self.inputs)}")

        def sub(text: str) -> str:
            return NAME_RE.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)

        return Program(
            self.seed,
            [Input(mapping[i.name], i.expr) for i in self.inputs],
            [
                Stmt(
                    sub(s.code),
                    s.op,
                    [sub(d) for d in s.defines],
                    [sub(w) for w in s.writes],
                    s.raises,
                )
                for s in self.stmts
            ],
        )

    def removable(self, index: int) -> bool:
        """Whether no later statement reads a name statement `index` defines."""
        defs = set(self.stmts[index].defines)
        return not any(defs & set(s.uses()) for s in self.stmts[index + 1 :])
