"""How to read a results table: the protocol choices behind a published table, read from its metadata (``03``-``05``).

Two numbers from two papers compare only when they were made the same way. :func:`protocol_choices` collects,
for one :class:`~sbert_workbook.published.table.PublishedTable`, the choices that move a number: the split,
the aggregation over subsets (``all`` or ``wmean``, per row where a row differs), which rows were fitted on
the test sentences themselves (transductive), what was chosen on labelled dev data, how many seeds and
epochs. Everything is read from the table's own fields (nothing typed twice), so TEACHING.md's summary
(``tools/teaching_guide.py``) cannot drift from ``published``; a choice the metadata does not state reads
"not stated".
"""
from __future__ import annotations

import re

from sbert_workbook.published.table import INFERRED_MARK, PublishedTable, short_aggregation

NOT_STATED = "not stated"
#: Phrases that say a choice was made on labelled development data, and how the summary names each.
DEV_CHOICES = {
    r"\bk chosen among [\d-]+ on the validation set": "k chosen on the validation set (labelled dev data)",
    r"best STS-B dev checkpoint": "best STS-B dev checkpoint kept",
}
_SEEDS = re.compile(r"(\d+) (?:random seeds|runs with different random seeds|seeds)")
_EPOCHS = re.compile(r"(\d+(?:\.\d+)?) epochs?\b")
_FITTED_ON_TARGET = "fitted on the target set's sentences"


def _text(table: PublishedTable) -> str:
    return " ; ".join([table.metric, table.training, *table.notes])


def _marked(text: str) -> str:
    short = text.split(f" {INFERRED_MARK}")[0] if text.startswith("n/a") else short_aggregation(text)
    return f"{short} (inferred)" if INFERRED_MARK in text else short


def aggregation_choice(table: PublishedTable) -> str:
    """The table's aggregation (``all``, ``wmean``, ``n/a`` …, "(inferred)" where the paper does not say), then the
    rows measured otherwise."""
    rows = "".join(f"; row '{row}': {_marked(text)}" for row, text in table.row_aggregation.items()
                   if short_aggregation(text) != short_aggregation(table.aggregation) or INFERRED_MARK in text)
    return _marked(table.aggregation) + rows


def transductive_rows(table: PublishedTable) -> list[str]:
    """Rows whose model was fitted on the target set's own sentences, test sentences included (no labels used)."""
    return [row for row, model in table.model.items() if _FITTED_ON_TARGET in model]


def undecided_rows(table: PublishedTable) -> list[str]:
    """Rows whose metadata names the target set without saying the model was fitted on it (the paper does not say)."""
    return [row for row, model in table.model.items() if "target set" in model and _FITTED_ON_TARGET not in model]


def dev_choices(table: PublishedTable) -> list[str]:
    """What the table's metadata says was chosen on labelled development data."""
    return [name for pattern, name in DEV_CHOICES.items() if re.search(pattern, _text(table))]


def seeds_choice(table: PublishedTable) -> str:
    """The number(s) of seeds the metadata names, with the largest printed ± where the table prints one."""
    counts = sorted(set(_SEEDS.findall(_text(table))), key=int)
    said = " / ".join(counts) if counts else NOT_STATED
    if table.spread:
        row, spread = table.largest_spread()
        said += f"; ± printed, largest {spread:g} ({row})"
    return said


def epochs_choice(table: PublishedTable) -> str:
    """Every number of epochs the metadata names (several where rows were trained differently)."""
    counts = sorted(set(_EPOCHS.findall(table.training)), key=float)
    return " / ".join(counts) if counts else NOT_STATED


def protocol_choices(table: PublishedTable) -> dict[str, str]:
    """The choices behind ``table``'s numbers, one short phrase each (see the module docstring)."""
    fitted, undecided = transductive_rows(table), undecided_rows(table)
    on_test = "; ".join(fitted + [f"{NOT_STATED} for {row}" for row in undecided]) or "no row"
    return {"split": table.split, "aggregation": aggregation_choice(table), "fitted on the test sentences": on_test,
            "chosen on labelled dev data": "; ".join(dev_choices(table)) or NOT_STATED,
            "seeds": seeds_choice(table), "epochs": epochs_choice(table)}
