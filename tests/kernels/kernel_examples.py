"""Shared by the custom-kernel tests: the examples folder on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
