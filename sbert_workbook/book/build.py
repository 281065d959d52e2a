"""``./workbook book``: the edition to read before running, as static pages in ``build/book/``.

Every notebook is executed in quick mode as shipped (the student's mode on a CPU) on the embedded model
(:func:`sbert_workbook.runner.notebooks.run_notebook` stores the widgets' state as it runs) and exported with nbconvert
to one HTML page: plotly figures stay interactive (zoom, hover), each control shows the value it had when the figure
below it was drawn, equations are typeset, and everything a page loads sits in ``assets/``
(:mod:`sbert_workbook.book.assets`), so the book opens from a disk or a static web server with no network.
``index.html`` lists the notebooks in order with each one's purpose (``metadata.sbert_workbook.purpose`` in the
notebook), its learning objectives and its one-page handout (:mod:`sbert_workbook.book.handouts`); every page links to
the index and its neighbours. Named in ``00_start_here.ipynb`` and the README.
"""
from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from sbert_workbook.book.assets import PLOTLY_JS, write_assets
from sbert_workbook.book.handouts import PURPOSE_KEY, purpose_of, title_of, write_handouts  # noqa: F401 - the book's too
from sbert_workbook.runner.notebooks import PLOTLY_MIME, list_notebooks, notebooks_folder, run_all, with_plotly_as_html

ASSETS = "assets"
BOOK_TITLE = "sbert-workbook: sentence embeddings, from raw BERT to Sentence-BERT and BERT-flow"
#: nbconvert's lab page, with plotly.js loaded before require.js (else plotly.js registers as an anonymous AMD
#: module and ``Plotly`` stays undefined), MathJax 3 with the notebooks' $…$ delimiters, the book's links, and the code
#: of every cell tagged ``hide-input`` (set-up, reports, checks) folded behind a "show code" toggle.
PAGE_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}
<script src="assets/plotly.min.js"></script>
<script src="{{ resources.require_js_url }}"></script>
{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}
<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
  processEscapes: true}, svg: {fontCache: 'global'}};</script>
<script src="{{ resources.mathjax_url }}"></script>
<script>window.MathJax.Hub = {Queue: function (job) {  /* the widget manager still speaks MathJax 2 */
  if (window.MathJax.typesetPromise) { window.MathJax.typesetPromise(job && job[2] ? [job[2]] : undefined); } }};</script>
<style>.sbw-book-nav { display: flex; gap: 2em; padding: 0.6em 0; font-family: sans-serif; }
.sbw-hidden-code > summary { cursor: pointer; color: #666; font: 0.85em sans-serif; padding: 0.2em 0 0.2em 1em; }</style>
{%- endblock html_head_js_mathjax -%}
{% block input_group -%}
{%- if 'hide-input' in cell.metadata.get('tags', []) -%}
<details class="sbw-hidden-code"><summary>{{ cell.source.split('\n')[0][8:] | e }} <i>(show code)</i></summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{% endblock input_group %}
{% block body_header %}{{ super() }}{{ resources.book_nav }}{% endblock body_header %}
{% block body_footer %}{{ resources.book_nav }}{{ super() }}{% endblock body_footer %}
"""
#: A badge image that would be fetched from the network: shown as its alt text instead.
REMOTE_IMAGE = re.compile(r'<img\b[^>]*\bsrc="https?://[^"]*"[^>]*>', re.I)
ALT_TEXT = re.compile(r'\balt="([^"]*)"', re.I)
NOTEBOOK_LINK = re.compile(r'href="(\d\d_\w+)\.ipynb(#[^"]*)?"')


@dataclass(frozen=True)
class Chapter:
    notebook: Path  # the source notebook
    executed: Path  # its executed copy
    title: str
    purpose: str

    @property
    def page(self) -> str:
        return self.notebook.with_suffix(".html").name


def chapter(notebook: Path, executed: Path) -> Chapter:
    import nbformat

    nb = nbformat.read(notebook, as_version=4)  # the source: its purpose and title as committed
    return Chapter(notebook, executed, title_of(nb, notebook.name), purpose_of(nb, notebook.name))


def navigation(chapters: list[Chapter], position: int) -> str:
    """Links to the index and to the previous and next notebook."""
    links = ['<a href="index.html">Contents</a>']
    if position > 0:
        links.append(f'<a href="{chapters[position - 1].page}" rel="prev">← {html.escape(chapters[position - 1].title)}</a>')
    if position + 1 < len(chapters):
        links.append(f'<a href="{chapters[position + 1].page}" rel="next">{html.escape(chapters[position + 1].title)} →</a>')
    return f'<nav class="sbw-book-nav">{" ".join(links)}</nav>'


def with_widget_figures_as_html(nb):
    """``nb`` whose stored ``Output`` widgets also carry each plotly figure as HTML (the widget manager draws HTML,
    not plotly's own output type); plotly.js itself is on the page already."""
    import plotly.io as pio

    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model in state.values():
        for output in model.get("state", {}).get("outputs", []) or []:
            figure = output.get("data", {}).get(PLOTLY_MIME)
            if figure is not None:
                output["data"]["text/html"] = pio.to_html(figure, full_html=False, include_plotlyjs=False, validate=False)
    return nb


def page_html(chapter_: Chapter, nav: str) -> str:
    """One notebook as a page that loads nothing from the network."""
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", extra_loaders=[jinja2.DictLoader({"book.html.j2": PAGE_TEMPLATE})],
                            template_file="book.html.j2", require_js_url=f"{ASSETS}/require.js",
                            widget_renderer_url=f"{ASSETS}/embed-amd.js", mathjax_url=f"{ASSETS}/tex-svg-full.js")
    nb = with_widget_figures_as_html(with_plotly_as_html(nbformat.read(chapter_.executed, as_version=4),
                                                         include_plotlyjs=False))
    body, _ = exporter.from_notebook_node(nb, resources={"book_nav": nav, "metadata": {"name": chapter_.title}})
    body = REMOTE_IMAGE.sub(lambda m: html.escape((ALT_TEXT.search(m.group(0)) or [None, "image"])[1]), body)
    return NOTEBOOK_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', body)


def index_html(chapters: list[Chapter]) -> str:
    """The contents: each notebook's page, purpose, learning objectives and printable handout (book/handouts.py)."""
    from sbert_workbook.book.handouts import handout_page
    from sbert_workbook.lessons.manifest import manifest

    def objectives(c: Chapter) -> str:
        said = "; ".join(manifest(c.notebook.stem).objectives)
        return f'<br><small>After it you can: {html.escape(said)} · <a href="{handout_page(c.notebook)}">handout</a></small>'

    items = "\n".join(f'<li><a href="{c.page}">{html.escape(c.title)}</a> — {html.escape(c.purpose)}{objectives(c)}</li>'
                      for c in chapters)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(BOOK_TITLE)}</title>'
            '<style>body { font-family: sans-serif; max-width: 50em; margin: 2em auto; line-height: 1.5; }</style></head>\n'
            f"<body><h1>{html.escape(BOOK_TITLE)}</h1>\n<p>Every notebook as it ran in quick mode on the embedded model "
            "(all-MiniLM-L6-v2, offline): read it here, then run it yourself (README, Quick start). Figures are "
            "interactive; widgets show the values they had when the notebook ran.</p>\n"
            f'<ol start="0">\n{items}\n</ol></body></html>\n')


def write_book(executed: dict[Path, Path], out_dir: Path) -> Path:
    """Pages for the executed notebooks (``{source notebook: executed copy}``, in lesson order), the index and assets."""
    chapters = [chapter(notebook, copy) for notebook, copy in executed.items()]
    out_dir.mkdir(parents=True, exist_ok=True)
    write_assets(out_dir / ASSETS)
    assert (out_dir / ASSETS / PLOTLY_JS).is_file()
    for position, chapter_ in enumerate(chapters):
        (out_dir / chapter_.page).write_text(page_html(chapter_, navigation(chapters, position)), encoding="utf-8")
    write_handouts([c.notebook for c in chapters], out_dir)  # one printable page per notebook, linked from the index
    (out_dir / "index.html").write_text(index_html(chapters), encoding="utf-8")
    return out_dir / "index.html"


#: Where a build keeps what the pages were made from: the executed copies and the verdicts their runs recorded.
RUNS_FOLDER = "book-executed"
VERDICTS_FILE = "story.jsonl"


def build_book(out_dir: Path | None = None, only: list[str] | None = None, parallel: int = 2,
               executed_from: Path | None = None) -> Path:
    """Execute every notebook (or those whose name contains one of ``only``) in quick mode as shipped, on the embedded
    model, ``parallel`` at a time, and write the book; returns the index page. The verdicts the runs recorded
    (:mod:`sbert_workbook.teaching.story`) are kept beside the executed copies, in ``<out_dir>/../book-executed/story.jsonl``.
    ``executed_from``: a folder of such runs made already (``./workbook binder-check`` keeps its runs in
    ``build/binder/book-executed``): they are checked (:func:`reuse_problems`) and used instead of running again."""
    from sbert_workbook.teaching.story import STORY_ENV_VAR

    out_dir = Path(out_dir or notebooks_folder().parent / "build" / "book")
    runs_dir = out_dir.parent / RUNS_FOLDER
    runs_dir.mkdir(parents=True, exist_ok=True)
    verdicts = runs_dir / VERDICTS_FILE
    if executed_from is not None:
        executed = reused_runs(Path(executed_from), runs_dir, only)
    else:
        verdicts.write_text("", encoding="utf-8")
        print("running the notebooks in quick mode on the embedded model ...", flush=True)
        runs = run_all(only, runs_dir, quick=True, env={STORY_ENV_VAR: str(verdicts)}, parallel=parallel,
                       parameters={"MODEL": "embedded"})
        executed = {run.notebook: run.executed for run in runs}
    if out_dir.exists():
        shutil.rmtree(out_dir)
    index = write_book(executed, out_dir)
    print(f"the book: {index} ({len(executed)} notebooks); publish the folder {out_dir} as a static site", flush=True)
    return index


def reused_runs(source: Path, runs_dir: Path, only: list[str] | None) -> dict[Path, Path]:
    """The executed copies and verdicts in ``source`` copied into ``runs_dir``, once :func:`reuse_problems` finds
    nothing wrong with them (else a ValueError that lists what)."""
    notebooks = [n for n in list_notebooks() if not only or any(part in n.name for part in only)]
    problems = reuse_problems(source, notebooks)
    if problems:
        raise ValueError(f"the runs in {source} cannot make the book:\n  " + "\n  ".join(problems)
                         + "\nRun ./workbook binder-check again, or ./workbook book without --executed to run them here.")
    (runs_dir / "executed").mkdir(parents=True, exist_ok=True)
    shutil.copy(source / VERDICTS_FILE, runs_dir / VERDICTS_FILE)
    print(f"the notebooks as executed in {source} (not run again) ...", flush=True)
    return {n: Path(shutil.copy(source / "executed" / n.name, runs_dir / "executed" / n.name)) for n in notebooks}


def reuse_problems(source: Path, notebooks: list[Path]) -> list[str]:
    """Why the runs in ``source`` are not what the book would run (empty when they are): every notebook executed
    from its present cells, in quick mode, on the embedded model, with every cell run, and the verdicts file there."""
    import nbformat

    problems = [] if (source / VERDICTS_FILE).is_file() else [f"no {VERDICTS_FILE}"]
    for notebook in notebooks:
        copy = source / "executed" / notebook.name
        if not copy.is_file():
            problems.append(f"{notebook.name} was not executed there")
            continue
        ran = nbformat.read(copy, as_version=4)
        shipped = [cell.source for cell in nbformat.read(notebook, as_version=4).cells]
        if [cell.source for cell in ran.cells if "injected-parameters" not in cell.metadata.get("tags", [])] != shipped:
            problems.append(f"{notebook.name} changed since it was executed there")
        elif any(cell.cell_type == "code" and cell.source.strip() and cell.get("execution_count") is None
                 for cell in ran.cells):
            problems.append(f"{notebook.name} did not run to its end there")
        elif not _printed(ran, "quick mode: on") or _printed(ran, "'auto' chose bert-base-uncased"):
            problems.append(f"{notebook.name} did not run in quick mode on the embedded model there")
    return problems


def _printed(nb, text: str) -> bool:
    return any(text in output.get("text", "") for cell in nb.cells if cell.cell_type == "code"
               for output in cell.get("outputs", []))
