"""docs/reliability.md's figures are the ones tools/stall_check.py measured (docs/reliability.json)."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _measurements() -> list[dict]:
    return json.loads((ROOT / "docs" / "reliability.json").read_text())


def _rows(first_cell) -> list[list[str]]:
    """The cells of each table row of docs/reliability.md whose first cell satisfies ``first_cell``."""
    rows = []
    for line in (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("| ") else []
        if cells and first_cell(cells[0]):
            rows.append(cells)
    return rows


def test_the_2x2_table_quotes_every_kernel_and_slices_measurement():
    """ipykernel 6.29.5 and 7.x, with and without kernel_replies' slices (issue 34 §5): one row a measurement."""
    measured = [m for m in _measurements() if m["label"].startswith("ipykernel")]
    assert {(m["versions"]["ipykernel"], m["slices"]) for m in measured} >= {("6.29.5", True), ("6.29.5", False)}
    rows = _rows(lambda cell: cell[:1].isdigit() and "-" not in cell)
    assert len(rows) == len(measured)
    for cells, m in zip(rows, measured):
        assert cells[0] == m["versions"]["ipykernel"] == m["kernel_ipykernel"], (cells, "the kernel itself reported it")
        assert cells[1] == ("on" if m["slices"] else "off") and cells[2] == str(m["runs"]), cells
        assert cells[3] == f"{m['median_s']:.2f} s" and cells[4] == f"{m['slowest_s']:.2f} s", cells
        assert cells[5] == f"**{m['stalled']}**" and cells[6] == str(m["over_3x_median"]), cells
        assert cells[7] == (str(m["rescued"]) if m["slices"] else "—"), cells
        assert m["rescued"] == sum(m["rescued_per_run"]) and len(m["rescued_per_run"]) == m["runs"]


def test_the_earlier_table_quotes_the_before_and_after_measurements_with_their_dates():
    measured = [m for m in _measurements() if m["label"].split(":")[0] in {"before", "after"}]
    rows = _rows(lambda cell: cell[:4].isdigit() and "-" in cell)
    assert len(rows) == len(measured) == 6
    for cells, m in zip(rows, measured):
        assert cells[0] == m["measured"][:10], cells
        assert cells[1].startswith(m["label"].split(":")[0]) and m["versions"]["ipykernel"] in cells[1], cells
        assert cells[3] == f"{m['median_s']:.2f} s" and cells[4] == f"{m['slowest_s']:.2f} s", cells
        assert cells[6] == f"**{m['over_3x_median']}**", cells


def test_after_the_fix_no_run_took_over_three_times_the_median():
    after = [m for m in _measurements() if m["label"].startswith("after")]
    assert {m["target"] for m in after} == {"00_start_here.ipynb", "embedding_explorer", "pair_explorer"}
    assert all(m["over_3x_median"] == 0 and m["stalled"] == 0 for m in after), after


def test_with_the_slices_no_headless_run_stalled():
    with_slices = [m for m in _measurements() if m["label"].startswith("ipykernel") and m["slices"]]
    assert with_slices and all(m["stalled"] == 0 for m in with_slices), with_slices
