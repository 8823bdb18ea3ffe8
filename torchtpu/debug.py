"""Seeing why programs compile again.

``explain_recompiles(True)`` (or ``TORCHTPU_EXPLAIN_RECOMPILES=1``): whenever a
strict op, a fused trace (defer mode) or a compiled graph builds a new program
where one was built before, one line on stderr says which program it is and
what differs from the nearest program already built::

    torchtpu: recompile (trace): a fused trace of 12 ops: shapes: op #3 aten::mm at train.py:41:
      self: f32[8, 64] -> f32[16, 64]

``recompile_report()`` returns the same as data. Causes: ``shapes``, ``dtype``,
``strides``, ``static argument``, ``ops``, ``input layout``, ``python number``
(a number that changed became a program input), ``trace cut`` (the trace was
cut at another place, and why), ``outputs``, ``evicted`` (the in-memory cache
was full). With ``TORCHTPU_SOURCE_LINES=1`` trace ops carry the user's line.

Always on: a fused trace that keeps compiling because one dimension grows (a
sequence length in a decoding loop) warns once on stderr, naming the op and the
dimension; ``growth_warnings()`` returns those warnings.
"""

from __future__ import annotations

from typing import Any

from torchtpu import _C

__all__ = [
    "clear_recompile_report",
    "explain_recompiles",
    "growth_warnings",
    "recompile_report",
]


def explain_recompiles(on: bool = True) -> None:
    """Turn the recompile explainer on or off (process-wide)."""
    _C._explain_recompiles(bool(on))


def explaining_recompiles() -> bool:
    return bool(_C._explaining_recompiles())


def recompile_report() -> list[dict[str, Any]]:
    """Every recompile explained so far: dicts with kind ("op", "trace",
    "graph"), program, cause and detail."""
    return list(_C._recompile_report())


def clear_recompile_report() -> None:
    """Forget the explanations and the programs they compare against."""
    _C._clear_recompile_report()


def growth_warnings() -> list[str]:
    """The warnings given so far about fused traces that compiled again and
    again because a dimension grew (cleared by clear_recompile_report())."""
    return list(_C._growth_warnings())
