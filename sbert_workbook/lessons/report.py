"""What a lesson's report call returns: a table with its caption, the sentences computed from it, its figures, and
the verdicts it recorded.

A report cell is one hidden call (``nb06.cone_table(lesson, runs)``); the function builds the table (with
:func:`sbert_workbook.evaluation.provenance.with_provenance`, so its caption says which model, pooling, aggregation
and split made it), writes every sentence that states a result from the numbers (never typed), records each verdict
with :mod:`sbert_workbook.teaching.story`, and returns a :class:`Report`. The notebook shows it in order; tests read
its parts. Introduced in ``01_mlm_to_similarity.ipynb``.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from sbert_workbook.teaching import story


class Report:
    """Parts shown in the order given: DataFrames or Stylers (tables), strings (printed lines), anything else
    IPython can display (figures, Markdown); plus the ``{claim: verdict}`` the report recorded."""

    def __init__(self, *parts: Any, verdicts: dict[str, str] | None = None):
        self.parts = [part for part in parts if part is not None]
        self.verdicts = dict(verdicts or {})

    @property
    def tables(self) -> list[pd.DataFrame]:
        return [part.data if hasattr(part, "data") and isinstance(part.data, pd.DataFrame) else part
                for part in self.parts if isinstance(part, pd.DataFrame) or type(part).__name__ == "Styler"]

    @property
    def table(self) -> pd.DataFrame:
        """The first table (most reports have one)."""
        if not self.tables:
            raise AttributeError("This report holds no table.")
        return self.tables[0]

    @property
    def text(self) -> str:
        return "\n".join(part for part in self.parts if isinstance(part, str))

    @property
    def figures(self) -> list[Any]:
        return [part for part in self.parts if type(part).__name__ in ("Figure", "FigureWidget")]

    def _ipython_display_(self) -> None:
        from IPython.display import display

        for part in self.parts:
            print(part) if isinstance(part, str) else display(part)

    def __repr__(self) -> str:
        return f"Report({len(self.tables)} table(s), {len(self.figures)} figure(s), verdicts {self.verdicts})"


def verdict(notebook: str, claim: str, value: str) -> dict[str, str]:
    """Record ``value`` as notebook's verdict on ``claim`` (for tools/story_check.py) and return ``{claim: value}``,
    ready for :class:`Report`'s ``verdicts``."""
    story.record(notebook[:2], claim, value)
    return {claim: value}
