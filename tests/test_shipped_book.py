"""The book as ``./workbook book`` builds it (quick mode as shipped, the embedded model): what a reader opens before
installing carries the results a student's own run shows, and every page reads offline.

Building it runs every notebook in quick mode as shipped (several minutes), more than the suite's budget holds, so
these tests read a book built beforehand and run only when given one::

    ./workbook book && ./workbook test tests/test_shipped_book.py --book build/book

``.ci/run`` does exactly that. Without ``--book`` they are skipped, saying so.
"""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from test_book import NOTEBOOKS, browser, check_page, page_with_log, static_site  # noqa: F401 - fixtures used below

from sbert_workbook.teaching import story
from sbert_workbook.book import build as book

REPO = Path(__file__).resolve().parents[1]
STORED = json.loads((REPO / "docs" / "story.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def built_book(request) -> Path:
    """The folder ``--book`` names, checked to be a whole book with the runs it was written from beside it."""
    folder = request.config.getoption("--book")
    if not folder:
        pytest.skip("no --book given: build it with `./workbook book`, then pass --book build/book (.ci/run does)")
    folder = Path(folder).resolve()
    missing = [p.name for p in [folder / "index.html", *(folder / n.with_suffix(".html").name for n in NOTEBOOKS)]
               if not p.is_file()]
    assert not missing, f"{folder} is not a whole book ({missing} missing): run `./workbook book` without arguments"
    return folder


def executed_copy(built_book: Path, notebook: Path) -> Path:
    return built_book.parent / book.RUNS_FOLDER / "executed" / notebook.name


def test_the_book_ran_quick_mode_as_shipped_on_the_embedded_model(built_book):
    """Run by ``./workbook book`` (MODEL = "embedded" injected) or by binder-check (as shipped, binder/start pinning
    ``auto`` to the embedded model): quick mode either way, and never bert-base-uncased."""
    for notebook in NOTEBOOKS:
        nb = nbformat.read(executed_copy(built_book, notebook), 4)
        injected = [c.source for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
        assert injected in ([], ["# Injected parameters\nMODEL = 'embedded'\n"]), f"{notebook.name}: ran with {injected}"
        printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
        assert "quick mode: on" in printed, f"{notebook.name}: its run does not say it ran in quick mode"
        assert "'auto' chose bert-base-uncased" not in printed, f"{notebook.name} ran on bert-base-uncased"
        assert not book.reuse_problems(executed_copy(built_book, notebook).parent.parent, [notebook])


def test_the_books_conclusions_are_the_ones_both_modes_reach(built_book):
    """The verdicts the book's runs recorded are the stored quick-mode claims, and agree with full mode's."""
    recorded = story.read(built_book.parent / book.RUNS_FOLDER / book.VERDICTS_FILE)
    by_stem = {n.stem: recorded.get(n.stem[:2], {}) for n in NOTEBOOKS if n.stem[:2] in recorded}
    assert set(by_stem) == set(STORED["quick"]), f"the book's runs made claims in {sorted(by_stem)}"
    for stem, claims in by_stem.items():
        assert set(claims) == set(STORED["quick"][stem]), f"{stem}: the book claims {sorted(claims)}"
    found = story.disagreements(by_stem, STORED["full"])
    assert not found, "the book's pages tell a different story than full mode:\n" + "\n".join(found)


@pytest.mark.browser
def test_every_page_of_the_book_reads_offline(built_book, static_site, page_with_log):  # noqa: F811
    page, log = page_with_log
    page.goto(f"{static_site}/index.html")
    page.locator("ol li a").first.click()
    for position, notebook in enumerate(NOTEBOOKS):
        if position:
            page.locator("nav.sbw-book-nav a[rel=next]").first.click()  # through each page's own "next" link
        check_page(page, notebook, executed_copy(built_book, notebook), log)
    assert not log["outside"], f"requests left the machine: {log['outside'][:5]}"
