"""Reading two rows of published tables against each other, set by set (``05`` §7: target vs NLI fitting under each aggregation)."""
from __future__ import annotations

from collections.abc import Sequence

from sbert_workbook.published.table import PublishedTable

#: The STS sets made of several subsets (years' tracks), where 'all' and 'wmean' differ; STS-B and SICK-R are one set each.
MULTI_SUBSET_SETS = ("sts12", "sts13", "sts14", "sts15", "sts16")


def sets_where_higher(table: PublishedTable, row: str, other: str, columns: Sequence[str] = MULTI_SUBSET_SETS,
                      other_table: PublishedTable | None = None) -> list[str]:
    """The ``columns`` where ``row`` prints a higher value than ``other`` (read from ``other_table`` if given)."""
    second = other_table or table
    return [column for column in columns if table.value(row, column) > second.value(other, column)]
