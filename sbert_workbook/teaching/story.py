"""The conclusions a notebook draws, as computed verdicts, so that quick and full mode can be held to one story.

A core section ends on a verdict the cell computes ("whitening: above raw", "best STS: flow"). The cell prints it
for the reader and hands it to :func:`record`, which does nothing else unless ``SBERT_WORKBOOK_STORY`` names a
file: then it appends ``{"notebook", "claim", "verdict"}`` as one JSON line. ``tools/story_check.py`` runs the
notebooks in quick and in full mode with it set, stores both sets of verdicts in ``docs/story.json``, and
``tests/test_story.py`` holds that every claim quick mode makes agrees with full mode's. Introduced in
``01_mlm_to_similarity.ipynb``; every lesson uses it.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

STORY_ENV_VAR = "SBERT_WORKBOOK_STORY"


def record(notebook: str, claim: str, verdict: str) -> str:
    """Note that ``notebook`` concludes ``verdict`` about ``claim`` (both short strings); returns ``verdict``."""
    if not (notebook and claim and isinstance(verdict, str) and verdict):
        raise ValueError(f"A verdict needs a notebook, a claim and a non-empty text; got {notebook!r}, {claim!r}, {verdict!r}.")
    path = os.environ.get(STORY_ENV_VAR)
    if path:
        with Path(path).open("a", encoding="utf-8") as file:
            file.write(json.dumps({"notebook": notebook, "claim": claim, "verdict": verdict}, ensure_ascii=False) + "\n")
    return verdict


def read(path: str | os.PathLike) -> dict[str, dict[str, str]]:
    """``{notebook: {claim: verdict}}`` from a file :func:`record` wrote (a later verdict on a claim replaces an earlier)."""
    verdicts: dict[str, dict[str, str]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            verdicts.setdefault(entry["notebook"], {})[entry["claim"]] = entry["verdict"]
    return verdicts


def disagreements(quick: dict[str, dict[str, str]], full: dict[str, dict[str, str]]) -> list[str]:
    """'notebook · claim: quick X, full Y' for every claim both modes made with different verdicts, and for every claim
    one mode made about a notebook the other ran but did not make."""
    found = []
    for notebook in sorted(set(quick) & set(full)):
        for claim in sorted(set(quick[notebook]) | set(full[notebook])):
            q, f = quick[notebook].get(claim, "(not made)"), full[notebook].get(claim, "(not made)")
            if q != f:
                found.append(f"{notebook} · {claim}: quick {q}, full {f}")
    return found
