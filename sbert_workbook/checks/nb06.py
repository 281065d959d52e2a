"""References of notebook 06's checks that would give the answer away if typed into the check cell."""
from __future__ import annotations

from sbert_workbook.evaluation.geometry import alignment


def ex06_alignment(align_u, align_v):
    """Wang & Isola's alignment of the pairs, as 02 §7 and section 5's table compute it."""
    return float(alignment(align_u, align_v))
