"""One printable page per notebook, for the room: its objectives, its equations, one exercise and the check that grades
it (``./workbook book`` writes ``handout-NN.html`` beside the pages; TEACHING.md, "Room checklist").

Everything on a handout is read from the source: the objectives and equations from the lesson's manifest
(:mod:`sbert_workbook.lessons.manifest`), the exercise from the notebook itself: the first exercise in a core section
(the 90-minute path's), else the first one, with the "**Exercise**" paragraph above it, its cell as the student gets
it (the ``...`` to fill in) and the title of the check cell below it. Nothing comes from a run, so a handout can be
printed before class. The page is sized for A4 and US Letter (``@page``), and its maths typeset by the book's own
MathJax (``assets/``), with no network. Named in ``00_start_here.ipynb``'s map (the objectives).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from sbert_workbook.lessons.manifest import manifest

#: Where a notebook's metadata keeps its one-line purpose (the book's index and the handout show it).
PURPOSE_KEY = "sbert_workbook"
#: How many of the lesson's equations a page holds: those of core sections first.
MOST_EQUATIONS = 3
#: The line of the exercise cell that hands the reference solution in when SOLUTIONS = True: not for the page.
SOLUTION_LINE = re.compile(r"^\w+ = solution_or\(.*\)$", re.M)
TITLE_PREFIX = "#@title "


@dataclass(frozen=True)
class Handout:
    notebook: str  # "05_bert_flow"
    title: str
    purpose: str
    objectives: tuple[str, ...]
    equations: tuple[tuple[str, str, str], ...]  # (what, equation, section)
    section: str  # the exercise's section heading, "6 · BERT-flow (core)"
    prompt: str  # markdown: the "**Exercise …**" paragraph and what follows it in its cell
    code: str  # the exercise cell as shipped, without its solution_or line
    check: str  # the check cell's title

    @property
    def page(self) -> str:
        return handout_page(Path(self.notebook))


def handout_page(notebook: Path) -> str:
    """The handout's file name in the book: ``handout-NN.html``."""
    return f"handout-{notebook.stem[:2]}.html"


def purpose_of(nb, name: str) -> str:
    """The notebook's one-line purpose (``metadata.sbert_workbook.purpose``), for the book's index and the handouts."""
    purpose = nb.metadata.get(PURPOSE_KEY, {}).get("purpose", "").strip()
    if not purpose:
        raise ValueError(f"{name} has no one-line purpose for the book's index: set the notebook's metadata "
                         f'"{PURPOSE_KEY}": {{"purpose": "..."}} (Edit → Notebook metadata in JupyterLab).')
    return purpose


def title_of(nb, name: str) -> str:
    """The notebook's title: its first ``# `` heading (else ``name``)."""
    for cell in nb.cells:
        heading = next((line[2:].strip() for line in cell.source.splitlines() if line.startswith("# ")), None)
        if cell.cell_type == "markdown" and heading:
            return heading
    return name


def handout(notebook: Path) -> Handout:
    """The handout of ``notebook`` (a lesson's ``.ipynb``), read from it and from its manifest."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    lesson = manifest(notebook.stem)
    section, in_core, core_numbers, found = "", False, set(), []
    for index, cell in enumerate(nb.cells):
        heading = next((line[3:].strip() for line in cell.source.splitlines() if line.startswith("## ")), None)
        if cell.cell_type == "markdown" and heading:
            section, in_core = heading, "core" in cell.metadata.get("tags", [])
            if in_core:
                core_numbers.add(heading.split(" ", 1)[0].rstrip("."))
        if "exercise" in cell.metadata.get("tags", []):
            found.append((section, index, in_core))
    if not found:
        raise ValueError(f"{notebook.name} has no exercise cell (tag 'exercise') for its handout.")
    section, index, _ = next((entry for entry in found if entry[2]), found[0])
    equations = sorted(lesson.equations, key=lambda e: e.section.split(".")[0] not in core_numbers)[:MOST_EQUATIONS]
    prompt = nb.cells[index - 1].source if nb.cells[index - 1].cell_type == "markdown" else ""
    return Handout(notebook.stem, title_of(nb, notebook.name), purpose_of(nb, notebook.name), lesson.objectives,
                   tuple((e.what, e.equation, e.section) for e in equations), section, exercise_prompt(prompt),
                   SOLUTION_LINE.sub("", nb.cells[index].source).strip(), check_title(nb.cells[index + 1].source))


def exercise_prompt(markdown: str) -> str:
    """The "**Exercise…**" paragraph of a markdown cell and what follows it (the whole cell when it has none)."""
    start = markdown.find("**Exercise")
    return markdown[start:] if start >= 0 else markdown


def check_title(source: str) -> str:
    """What a check cell compares with: its ``#@title`` line."""
    first = source.splitlines()[0] if source else ""
    return first[len(TITLE_PREFIX):] if first.startswith(TITLE_PREFIX) else "the check cell below the exercise"


PAGE_STYLE = """@page { size: auto; margin: 12mm 15mm; }
body { font: 10pt/1.35 "DejaVu Sans", "Liberation Sans", sans-serif; max-width: 48em; margin: 0 auto; color: #111; }
h1 { font-size: 14pt; margin: 0 0 0.15em; } h2 { font-size: 11pt; margin: 0.8em 0 0.25em; border-bottom: 1px solid #bbb; }
p { margin: 0.25em 0; } .purpose { font-style: italic; } .meta { font-size: 8pt; color: #555; }
.equation { font-family: "DejaVu Sans Mono", monospace; font-size: 9pt; margin: 0 0 0.35em 1em; }
pre { font-size: 8.5pt; background: #f4f4f4; padding: 0.4em; margin: 0.3em 0; white-space: pre-wrap; }
ul { margin: 0.2em 0; padding-left: 1.3em; } li { margin: 0.1em 0; }
.box { border: 1px solid #999; min-height: 3.5em; margin-top: 0.3em; padding: 0.3em; color: #777; font-size: 8pt; }"""


def inline_markdown(text: str) -> str:
    """One line of markdown (`code`, *emphasis*, $maths$) as HTML without its paragraph."""
    from nbconvert.filters.markdown import markdown2html

    return re.sub(r"^<p>|</p>\s*$", "", markdown2html(text).strip())


def handout_html(sheet: Handout, version: str, mathjax: str = "assets/tex-svg-full.js") -> str:
    """``sheet`` as one printable page (``mathjax``: the script that typesets the prompt's $…$)."""
    from nbconvert.filters.markdown import markdown2html

    esc = html.escape
    objectives = "".join(f"<li>{inline_markdown(objective)}</li>" for objective in sheet.objectives)
    equations = "".join(f'<p>{esc(what)}, §{esc(section)}</p><p class="equation">{esc(equation)}</p>'
                        for what, equation, section in sheet.equations)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(sheet.title)}: handout</title>
<script>window.MathJax = {{tex: {{inlineMath: [['$', '$'], ['\\\\(', '\\\\)']]}}, svg: {{fontCache: 'global'}}}};</script>
<script src="{esc(mathjax)}"></script><style>{PAGE_STYLE}</style></head>
<body><p class="meta">sbert-workbook {esc(version)} · handout · notebooks/{esc(sheet.notebook)}.ipynb</p>
<h1>{esc(sheet.title)}</h1><p class="purpose">{esc(sheet.purpose)}</p>
<h2>After this notebook you can</h2><ul>{objectives}</ul>
<h2>The equations</h2>{equations}
<h2>The exercise ({esc(sheet.section)})</h2>{markdown2html(sheet.prompt)}<pre>{esc(sheet.code)}</pre>
<h2>The check</h2><p>{esc(sheet.check)}. In the notebook it prints ✓, ✗ with a hint, or "not attempted yet".</p>
<div class="box">your answer, or what the check printed</div>
</body></html>
"""


def write_handouts(notebooks: list[Path], out_dir: Path) -> list[Handout]:
    """``handout-NN.html`` for each notebook in ``out_dir`` (the book's folder, whose ``assets/`` hold MathJax)."""
    from sbert_workbook import about

    sheets = [handout(notebook) for notebook in notebooks]
    for sheet in sheets:
        (out_dir / sheet.page).write_text(handout_html(sheet, about.version()), encoding="utf-8")
    return sheets
