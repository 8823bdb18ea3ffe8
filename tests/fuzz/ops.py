"""The op pool: every builder with its weight (how often the generator draws it)."""

from __future__ import annotations

from collections.abc import Callable

from tests.fuzz import ops_elementwise, ops_index, ops_inplace, ops_other, ops_views
from tests.fuzz.program import Stmt

FUNCTIONS: dict[str, Callable[..., Stmt]] = {}
BUILDERS: dict[str, float] = {}
for _module in (ops_elementwise, ops_views, ops_inplace, ops_index, ops_other):
    for _name, (_fn, _weight) in _module.BUILDERS.items():
        FUNCTIONS[_name] = _fn
        BUILDERS[_name] = _weight
