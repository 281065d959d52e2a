"""One printable page per notebook (sbert_workbook/book/handouts.py): objectives, equations, an exercise and its check,
read from the manifest and the notebook; printed by Chromium, each fits on one page."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sbert_workbook.classroom.pages import CHROMIUM, CHROMIUM_ARGS
from sbert_workbook.book.handouts import handout, handout_html, write_handouts
from sbert_workbook.runner.notebooks import list_notebooks
from sbert_workbook.lessons.manifest import manifest

NOTEBOOKS = list_notebooks()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_handout_holds_the_objectives_an_equation_an_unsolved_exercise_and_its_check(notebook):
    sheet = handout(notebook)
    assert sheet.objectives == manifest(notebook.stem).objectives and 2 <= len(sheet.objectives) <= 3
    assert 1 <= len(sheet.equations) <= 3, f"{notebook.name}: give its manifest the equation it teaches"
    assert re.search(r"^\w+ = \.\.\.", sheet.code, re.M) and "solution_or" not in sheet.code, sheet.code
    assert sheet.prompt.startswith("**Exercise") and sheet.check.lower().startswith("check")
    page = handout_html(sheet, "9.9.9")
    assert all(objective.split("`")[0] in page for objective in sheet.objectives)
    assert "sbert-workbook 9.9.9" in page and "http" not in page.replace("http-equiv", ""), "nothing from the network"


def test_the_handout_takes_the_exercise_on_the_90_minute_path_when_there_is_one():
    sheet = handout(next(n for n in NOTEBOOKS if n.name.startswith("05_")))
    assert sheet.section.startswith("6 · BERT-flow") and "(core)" in sheet.section


def test_the_book_index_links_each_handout_and_names_the_objectives(tmp_path):
    from sbert_workbook.book.build import Chapter, index_html

    chapters = [Chapter(n, n, n.stem, "purpose") for n in NOTEBOOKS]
    index = index_html(chapters)
    for notebook in NOTEBOOKS:
        assert f'href="handout-{notebook.name[:2]}.html"' in index
        assert html.escape(manifest(notebook.stem).objectives[0].split("`")[0]) in index


def pdf_pages(pdf: Path) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))


@pytest.mark.browser
def test_every_handout_prints_on_one_page(tmp_path):
    """Chromium prints each handout (its maths typeset by the book's MathJax, from assets/) to PDF: one page each."""
    from sbert_workbook.book.assets import write_assets

    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing (.ci/install_browser.sh)")
    if shutil.which("npm") is None and not (Path(__file__).resolve().parents[1] / "book" / "node_modules").is_dir():
        pytest.skip("the book's MathJax needs npm (book/package.json)")
    write_assets(tmp_path / "assets")
    sheets = write_handouts(NOTEBOOKS, tmp_path)
    pages = {}
    for sheet in sheets:
        pdf = tmp_path / sheet.page.replace(".html", ".pdf")
        subprocess.run([str(CHROMIUM), *CHROMIUM_ARGS, "--virtual-time-budget=8000", "--no-pdf-header-footer",
                        f"--print-to-pdf={pdf}", (tmp_path / sheet.page).as_uri()], capture_output=True, timeout=120)
        pages[sheet.page] = pdf_pages(pdf) if pdf.is_file() else 0
    assert pages == {sheet.page: 1 for sheet in sheets}
