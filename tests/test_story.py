"""One story in quick and full mode: the verdicts tools/story_check.py stored agree, and the notebooks still make them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sbert_workbook.teaching import story

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tools.story_check import full_mode_parameters  # noqa: E402

FULL_MODE = full_mode_parameters()

STORED = json.loads((REPO / "docs" / "story.json").read_text(encoding="utf-8"))


def test_quick_mode_as_shipped_tells_the_story_full_mode_tells():
    found = story.disagreements(STORED["quick"], STORED["full"])
    assert not found, "quick and full mode disagree (fix the sizes or take the claim out; then python tools/story_check.py):\n" + "\n".join(found)


def test_full_mode_ran_for_every_notebook_that_fits_a_cpu():
    assert set(STORED["full"]) == set(FULL_MODE) and all(STORED["full"][notebook] for notebook in FULL_MODE)
    assert set(FULL_MODE) <= set(STORED["quick"])


@pytest.mark.parametrize("notebook", sorted(REPO / "notebooks" / f"{stem}.ipynb" for stem in FULL_MODE), ids=lambda p: p.stem)
def test_the_notebook_still_makes_the_claims_stored_for_it(notebook, notebook_runs):
    """The suite's run (its own smaller sizes) makes the same claims; their verdicts are what story_check compares."""
    made = set(notebook_runs.get(notebook, "own-cache").verdicts)
    stored = set(STORED["quick"][notebook.stem])
    assert made == stored, (f"{notebook.stem} now claims {sorted(made - stored)} and no longer {sorted(stored - made)}: "
                            "run python tools/story_check.py")


def test_record_writes_a_line_only_when_asked(tmp_path, monkeypatch):
    monkeypatch.delenv(story.STORY_ENV_VAR, raising=False)
    assert story.record("05", "whitening against raw", "higher") == "higher"
    path = tmp_path / "story.jsonl"
    monkeypatch.setenv(story.STORY_ENV_VAR, str(path))
    story.record("05", "whitening against raw", "tie")
    story.record("05", "whitening against raw", "higher")
    assert story.read(path) == {"05": {"whitening against raw": "higher"}}
    with pytest.raises(ValueError, match="non-empty"):
        story.record("05", "whitening against raw", "")


def test_a_disagreement_names_the_claim_and_both_verdicts():
    quick, full = {"05": {"a": "higher", "b": "tie"}}, {"05": {"a": "lower", "b": "tie", "c": "higher"}, "01": {"x": "y"}}
    assert story.disagreements(quick, full) == ["05 · a: quick higher, full lower", "05 · c: quick (not made), full higher"]
