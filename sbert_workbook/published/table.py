"""The two records every published figure lives in (``03``, ``04``, ``05`` show them beside what students measure).

:class:`PublishedTable` is one table as printed, with its provenance: paper, table, metric, split,
aggregation (per table, and per row where a row was measured under another protocol), each row's
model and pooling, the printed spread over seeds, how trained rows were trained, and notes.
:class:`PublishedRecipe` is a training recipe, each setting with the place that states it.
Whatever a paper does not state is written with :func:`inferred`, so it never reads as the paper's word.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

SBERT = "Reimers & Gurevych (2019), Sentence-BERT, EMNLP-IJCNLP (arXiv 1908.10084)"
BERT_FLOW = "Li et al. (2020), On the Sentence Embeddings from Pre-trained Language Models (BERT-flow), EMNLP (arXiv 2011.05864)"
SIMCSE = "Gao et al. (2021), SimCSE, EMNLP (arXiv 2104.08821v4)"
SEVEN_COLUMNS = ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb", "sickr")
ALL = "all: pairs of all subsets of a year pooled into one correlation"
WMEAN = "wmean: one correlation per subset, averaged weighted by size (SentEval's results['all'][...]['wmean'])"
#: How :func:`inferred` marks what a paper does not state.
INFERRED_MARK = "[inferred:"


def inferred(value: str, why: str) -> str:
    """``value`` marked as not stated by the paper: ``'value [inferred: why]'``."""
    return f"{value} {INFERRED_MARK} {why}]"


def same(rows, value: str) -> dict[str, str]:
    """The same metadata for every row."""
    return {row: value for row in rows}


def short_aggregation(aggregation: str) -> str:
    """``'all'``, ``'wmean'``, ``'n/a'`` …: the name before the explanation."""
    return aggregation.split(":")[0].split(" (")[0].split(" [")[0].strip()


@dataclass(frozen=True)
class PublishedTable:
    """One table of a paper as printed: rows of values under ``columns``, with where they come from."""

    paper: str
    table: str
    metric: str
    split: str
    aggregation: str  #: the table's aggregation (STS12-16); a row measured otherwise is in ``row_aggregation``
    columns: tuple[str, ...]
    rows: dict[str, tuple[float | None, ...]]
    model: dict[str, str]  #: row → the model it was measured on
    pooling: dict[str, str]  #: row → the pooling behind the row
    spread: dict[str, float] = field(default_factory=dict)  #: row → the ± the paper prints after it (over seeds)
    row_aggregation: dict[str, str] = field(default_factory=dict)  #: row → its own aggregation where it differs
    training: str = ""  #: how the trained rows were trained (epochs, seeds), as the paper states it
    notes: tuple[str, ...] = ()  #: what the paper says, or leaves unsaid, about this table

    def __post_init__(self):
        wrong = [row for row, values in self.rows.items() if len(values) != len(self.columns)]
        for name in ("model", "pooling"):
            wrong += [f"{name}: {row}" for row in self.rows if row not in getattr(self, name)]
        for name in ("model", "pooling", "spread", "row_aggregation"):
            wrong += [f"{name}: {row}" for row in getattr(self, name) if row not in self.rows]
        if wrong:
            raise ValueError(f"{self.table} of {self.paper}: rows without their values or metadata, or metadata "
                             f"for no row: {wrong}. Every row needs {len(self.columns)} values, a model and a pooling.")

    def _check_row(self, row: str) -> None:
        if row not in self.rows:
            raise KeyError(f"{self.table} of {self.paper} has no row {row!r}; rows: {', '.join(self.rows)}.")

    def value(self, row: str, column: str) -> float | None:
        """The printed value of ``row`` under ``column``; a clear KeyError names what exists."""
        self._check_row(row)
        if column not in self.columns:
            raise KeyError(f"{self.table} has no column {column!r}; columns: {', '.join(self.columns)}.")
        return self.rows[row][self.columns.index(column)]

    def aggregation_of(self, row: str) -> str:
        """The aggregation behind ``row``: its own where it was measured otherwise, else the table's."""
        self._check_row(row)
        return self.row_aggregation.get(row, self.aggregation)

    def source(self, row: str | None = None) -> str:
        """One line citing the table (and the row's model, pooling and aggregation)."""
        aggregation = self.aggregation if row is None else self.aggregation_of(row)
        if row is None and self.row_aggregation:
            aggregation += "".join(f"; row '{r}': {a}" for r, a in self.row_aggregation.items())
        where = f"{self.paper}, {self.table}: {self.metric}, {self.split}, aggregation {aggregation}"
        where += f"; training: {self.training}" if self.training else ""
        return where if row is None else f"{where}; row '{row}' ({self.model[row]}, pooling: {self.pooling[row]})"

    def largest_spread(self) -> tuple[str, float]:
        """The row with the largest printed ± and that ±."""
        if not self.spread:
            raise ValueError(f"{self.table} of {self.paper} prints no spread over seeds.")
        row = max(self.spread, key=self.spread.get)
        return row, self.spread[row]

    def inferred(self) -> dict[str, str]:
        """Every piece of this table's metadata the paper does not state, by where it sits."""
        found = {name: getattr(self, name) for name in ("metric", "split", "aggregation", "training")}
        found |= {f"note {i + 1}": note for i, note in enumerate(self.notes)}
        for name in ("model", "pooling", "row_aggregation"):
            found |= {f"{name} of '{row}'": text for row, text in getattr(self, name).items()}
        return {where: text for where, text in found.items() if INFERRED_MARK in text}

    def frame(self, rows=None) -> pd.DataFrame:
        """The table (``rows`` of it, all by default) as a DataFrame: a ``pooling`` column, an ``aggregation`` column
        where rows differ in aggregation, ``±`` where the paper prints one, and the provenance in ``attrs``."""
        chosen = list(rows) if rows is not None else list(self.rows)
        missing = [row for row in chosen if row not in self.rows]
        if missing:
            raise KeyError(f"{self.table} has no rows {missing}; rows: {', '.join(self.rows)}.")
        table = pd.DataFrame([self.rows[row] for row in chosen], index=chosen, columns=list(self.columns), dtype=float)
        if self.spread:
            table["±"] = [self.spread.get(row) for row in chosen]
        if self.row_aggregation:
            table.insert(0, "aggregation", [short_aggregation(self.aggregation_of(row)) for row in chosen])
        table.insert(0, "pooling", [self.pooling[row] for row in chosen])
        table.index.name = f"published ({self.table})"
        table.attrs["source"] = self.source()
        table.attrs["notes"] = list(self.notes)
        table.attrs["provenance"] = {
            "model": "; ".join(dict.fromkeys(self.model[row] for row in chosen)) + " — quoted from the paper, not re-run",
            "pooling": "per row: see 'pooling'",
            "aggregation": "per row: see 'aggregation'" if self.row_aggregation else self.aggregation,
            "split": self.split, "source": self.source(),
        }
        return table


@dataclass(frozen=True)
class PublishedRecipe:
    """A training recipe as a paper gives it: each setting's value and the place that states it."""

    paper: str
    name: str
    settings: dict[str, object]
    where: dict[str, str]  #: setting → section/table stating it; what the paper leaves out is marked inferred

    def __post_init__(self):
        if set(self.settings) != set(self.where):
            raise ValueError(f"{self.name}: every setting needs a source and every source a setting; "
                             f"unmatched: {sorted(set(self.settings) ^ set(self.where))}.")

    def source(self, setting: str | None = None) -> str:
        """One line citing the recipe, or one of its settings."""
        if setting is None:
            return f"{self.paper}: {self.name}"
        if setting not in self.settings:
            raise KeyError(f"{self.name} has no setting {setting!r}; settings: {', '.join(self.settings)}.")
        return f"{self.paper}: {self.name}, {setting} = {self.settings[setting]} ({self.where[setting]})"

    def frame(self) -> pd.DataFrame:
        """The recipe as a table: one row per setting, its value and where it is stated."""
        table = pd.DataFrame({"value": [str(v) for v in self.settings.values()], "where": list(self.where.values())},
                             index=pd.Index(list(self.settings), name=self.name))
        table.attrs["source"] = self.source()
        return table
