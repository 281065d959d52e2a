"""docs/reliability.md's figures are the ones tools/stall_check.py measured (docs/reliability.json)."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_measurement_is_quoted_in_the_reliability_page_as_measured():
    section = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    measurements = json.loads((ROOT / "docs" / "reliability.json").read_text())
    assert {m["label"].split(":")[0] for m in measurements} == {"before", "after"}, "the script ran before and after the fix"
    rows = [line for line in section.splitlines() if line.startswith("| before") or line.startswith("| after")]
    assert len(rows) == len(measurements)
    for row, measured in zip(rows, measurements):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[0].startswith(measured["label"].split(":")[0]) and measured["versions"]["ipykernel"] in cells[0]
        assert cells[2] == f"{measured['median_s']:.2f} s" and cells[3] == f"{measured['slowest_s']:.2f} s", row
        assert cells[5] == f"**{measured['over_3x_median']}**", row


def test_after_the_fix_no_run_took_over_three_times_the_median():
    measurements = json.loads((ROOT / "docs" / "reliability.json").read_text())
    after = [m for m in measurements if m["label"].startswith("after")]
    assert {m["target"] for m in after} == {"00_start_here.ipynb", "embedding_explorer", "pair_explorer"}
    assert all(m["over_3x_median"] == 0 and m["stalled"] == 0 for m in after), after
