"""Prints the model tests' figures (steps, loss and weight differences from
the CPU, fallbacks, time) as a table at the end of the run."""

from __future__ import annotations

import model_compare


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 (pytest's reporter)
    if model_compare.RESULTS:
        terminalreporter.section("models on tpu vs CPU")
        terminalreporter.write_line(model_compare.table(model_compare.RESULTS))
