"""``./workbook book``: the edition to read before running, its pages written from the suite's own runs and opened in Chromium.

The pages are written from each notebook's one own-cache run (tests/notebook_runs.py: the suite's smaller sizes, the
embedded model offline), exactly as ``build_book`` writes the quick-mode runs it makes itself, then served from a loopback static server
and opened in headless Chromium: the index, then two notebooks reached through the book's own links. Every request
the pages make is recorded; any that would leave the machine fails the test. The book as ``./workbook book`` builds it, from quick mode as
shipped, is tested by tests/test_shipped_book.py.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import http.server
import io
import json
import re
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

import nbformat
import pytest

from sbert_workbook.book import build as book
from sbert_workbook.book import assets as book_assets
from sbert_workbook.runner.notebooks import PLOTLY_MIME, list_notebooks

NOTEBOOKS = list_notebooks()
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


# ----------------------------------------------------------------------------- without a browser
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_states_its_purpose_for_the_index(notebook):
    purpose = book.purpose_of(nbformat.read(notebook, 4), notebook.name)
    assert 30 < len(purpose) < 200 and "\n" not in purpose, f"{notebook.name}: one line, please: {purpose!r}"


def test_a_notebook_without_a_purpose_is_named_with_the_fix():
    with pytest.raises(ValueError, match=r"07_x.ipynb has no one-line purpose.*metadata"):
        book.purpose_of(nbformat.v4.new_notebook(), "07_x.ipynb")


def test_remote_images_become_their_alt_text_and_notebook_links_point_at_pages():
    page = ('<a href="https://colab.example/x"><img alt="Open In Colab" src="https://colab.example/badge.svg"/></a> '
            '<a href="03_pooling_and_sts.ipynb#3-poolings">three</a>')
    cleaned = book.NOTEBOOK_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"',
                                     book.REMOTE_IMAGE.sub("Open In Colab", page))
    assert "<img" not in cleaned and 'href="03_pooling_and_sts.html#3-poolings"' in cleaned


def test_package_json_and_its_lock_pin_the_same_exact_versions_of_what_the_pages_load():
    folder = book_assets.npm_folder()
    wanted = json.loads((folder / "package.json").read_text(encoding="utf-8"))["dependencies"]
    lock = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    assert set(wanted) == set(book_assets.PAGE_FILES), "package.json pins exactly the packages the pages load from"
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", version) for version in wanted.values()), f"not exact: {wanted}"
    assert lock[""]["dependencies"] == wanted, "package-lock.json is out of date: run `npm install --package-lock-only`"
    assert {name: lock[f"node_modules/{name}"]["version"] for name in wanted} == wanted
    unchecked = [path for path, entry in lock.items() if path and not entry.get("integrity", "").startswith("sha512-")]
    assert not unchecked, f"the lock records no sha512 for {unchecked[:3]}"


def test_npm_ci_refuses_a_lock_whose_integrity_is_wrong(tmp_path):
    """A one-file package, installed from a lock npm wrote, then from the same lock with another sha512."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed (the book needs it: Node.js >= 18 with npm)")
    package = tmp_path / "package"
    with tarfile.open(tmp_path / "tiny-1.0.0.tgz", "w:gz") as archive:
        for name, text in {"package.json": '{"name": "tiny", "version": "1.0.0"}', "index.js": "// tiny\n"}.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    package.mkdir()
    (package / "package.json").write_text('{"name": "p", "private": true, "dependencies": {"tiny": "file:../tiny-1.0.0.tgz"}}')
    subprocess.run(["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
                   cwd=package, check=True, capture_output=True)
    assert not book_assets.installed(package)
    assert (book_assets.node_modules(package) / "tiny" / "index.js").is_file()
    assert book_assets.installed(package)

    lock = package / "package-lock.json"
    tampered = "sha512-" + base64.b64encode(hashlib.sha512(b"another tarball").digest()).decode()
    lock.write_text(re.sub(r'"integrity": "sha512-[^"]+"', f'"integrity": "{tampered}"', lock.read_text()))
    assert not book_assets.installed(package), "a lock that changed makes node_modules stale"
    with pytest.raises(RuntimeError, match=r"(?s)npm ci --ignore-scripts.*failed.*EINTEGRITY"):
        book_assets.node_modules(package)


def test_without_npm_the_error_says_to_install_node(tmp_path, monkeypatch):
    monkeypatch.setattr(book_assets.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match=r"no `npm` or `node` is on PATH. Install Node.js >= 18 with npm"):
        book_assets.npm_ci(tmp_path)


def test_the_assets_are_the_files_npm_installed(tmp_path):
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed (the book needs it: Node.js >= 18 with npm)")
    assets = book_assets.write_assets(tmp_path / "assets")
    modules = book_assets.npm_folder() / "node_modules"
    expected = book_assets.page_files(modules)
    assert sorted(p.name for p in assets.iterdir()) == sorted([*expected.values(), book_assets.PLOTLY_JS])
    assert any(name.endswith(".woff2") for name in expected.values()), "the widgets' fonts are copied too"
    differ = [name for source, name in expected.items() if (assets / name).read_bytes() != source.read_bytes()]
    assert not differ, f"{differ} differ from node_modules' files"


def test_a_figure_is_blank_when_nothing_of_it_was_drawn():
    drawn = {"traces": 2, "drawn": 2, "shapes": 0, "shapes_drawn": 0, "width": 800}
    diagram = {"traces": 0, "drawn": 0, "shapes": 9, "shapes_drawn": 9, "width": 800}
    assert blank_figures([drawn, diagram]) == []
    empty, half, undrawn_diagram = {**diagram, "shapes": 0, "shapes_drawn": 0}, {**drawn, "drawn": 1}, {**diagram, "shapes_drawn": 3}
    assert blank_figures([empty, half, undrawn_diagram]) == [empty, half, undrawn_diagram]


def test_navigation_links_the_index_and_both_neighbours(tmp_path):
    chapters = [book.Chapter(Path(f"{i:02d}_n.ipynb"), Path("x"), f"{i:02d} · N", "p") for i in range(3)]
    middle = book.navigation(chapters, 1)
    assert 'href="index.html"' in middle and 'href="00_n.html" rel="prev"' in middle and 'href="02_n.html" rel="next"' in middle
    assert "rel=\"prev\"" not in book.navigation(chapters, 0) and "rel=\"next\"" not in book.navigation(chapters, 2)


# ----------------------------------------------------------------------------- in Chromium
@pytest.fixture(scope="module")
def built_book(notebook_runs, tmp_path_factory) -> Path:
    """The book written from the suite's own-cache runs of every notebook."""
    executed = {notebook: notebook_runs.get(notebook, "own-cache").executed for notebook in NOTEBOOKS}
    return book.write_book(executed, tmp_path_factory.mktemp("book")).parent


@pytest.fixture(scope="module")
def static_site(built_book):
    """The book served as a static site on a loopback port, as a teacher would publish it."""
    handler = functools.partial(QuietHandler, directory=str(built_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D102 - keep pytest's output clean
        pass


def expected_figures(executed: Path) -> int:
    """Plotly figures in the executed notebook: cell outputs and figures inside stored Output widgets."""
    nb = nbformat.read(executed, 4)
    in_cells = sum(PLOTLY_MIME in output.get("data", {}) for cell in nb.cells for output in cell.get("outputs", []))
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    in_widgets = sum(PLOTLY_MIME in output.get("data", {}) for model in state.values()
                     for output in model.get("state", {}).get("outputs", []) or [])
    return in_cells + in_widgets


def stored_control_values(executed: Path) -> list[str]:
    """The readouts the stored sliders should show (ipywidgets formats an IntSlider's value as an integer)."""
    state = nbformat.read(executed, 4).metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    return sorted(str(model["state"]["value"]) for model in state.values() if model["model_name"] == "IntSliderModel")


#: Each figure's traces and how many were drawn: SVG traces as ``g.trace``/``g.hm``/``g.contour`` groups, WebGL traces (scattergl,
#: scatter3d) as a canvas with a size (headless Chromium draws WebGL in software); and its layout shapes and
#: annotations, which a diagram with no trace (04 §2's two architectures) is drawn from.
DRAWN_FIGURES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => {
    const types = (g._fullData || []).map(t => t.type);
    const webgl = types.filter(t => t.endsWith('gl') || t === 'scatter3d').length;
    const canvas = Array.from(g.querySelectorAll('canvas')).some(c => c.width > 0 && c.height > 0);
    const layout = g.layout || {};
    return {types: types, traces: g.data ? g.data.length : 0, width: g.getBoundingClientRect().width,
            drawn: g.querySelectorAll('g.trace').length + g.querySelectorAll('g.hm').length
                   + g.querySelectorAll('.contourlayer > g.contour').length + (canvas ? webgl : 0),
            shapes: (layout.shapes || []).length + (layout.annotations || []).length,
            shapes_drawn: g.querySelectorAll('.shapelayer path').length + g.querySelectorAll('g.annotation').length};
})"""


def blank_figures(figures: list[dict]) -> list[dict]:
    """Figures with nothing drawn: no trace and no shape, a trace or shape not drawn, or no width."""
    return [f for f in figures if not (f["traces"] or f["shapes"]) or f["drawn"] != f["traces"]
            or f["shapes_drawn"] < f["shapes"] or f["width"] < 200]


@pytest.mark.browser
def test_the_book_reads_offline_in_a_browser(static_site, notebook_runs, page_with_log):
    page, log = page_with_log
    page.goto(f"{static_site}/index.html")
    entries = page.locator("ol li > a")  # each page's link; its handout's sits in the entry's <small>
    assert entries.all_inner_texts() == [book.title_of(nbformat.read(n, 4), n.name) for n in NOTEBOOKS]
    assert page.locator("ol li small a").all_inner_texts() == ["handout"] * len(NOTEBOOKS)
    entries.nth(2).click()  # 02, reached through the index's link
    check_page(page, NOTEBOOKS[2], notebook_runs.get(NOTEBOOKS[2], "own-cache").executed, log)
    page.locator("nav.sbw-book-nav a[rel=next]").first.click()  # 03, through the page's own "next" link
    check_page(page, NOTEBOOKS[3], notebook_runs.get(NOTEBOOKS[3], "own-cache").executed, log)
    assert not log["outside"], f"requests left the machine: {log['outside'][:5]}"


def check_page(page, notebook: Path, executed: Path, log) -> None:
    """The open page is ``notebook``'s, drawn from its executed copy ``executed``: every figure, slider and equation."""
    page.wait_for_url(f"**/{notebook.stem}.html")
    expected = expected_figures(executed)
    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot').length >= {expected}", timeout=60_000)
    page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0", timeout=60_000)
    figures = page.evaluate(DRAWN_FIGURES_JS)
    blank = blank_figures(figures)
    assert len(figures) == expected and not blank, f"{notebook.name}: {len(figures)} of {expected} figures, blank: {blank}"
    readouts = sorted(page.locator(".widget-slider .widget-readout").all_inner_texts())
    assert readouts == stored_control_values(executed), f"{notebook.name}: sliders show {readouts}"
    assert not log["errors"], f"{notebook.name}: page errors {log['errors'][:3]}"
    check_hidden_code(page, notebook)


def hidden_cells(notebook: Path) -> int:
    return sum("hide-input" in cell.metadata.get("tags", []) for cell in nbformat.read(notebook, 4).cells if cell.cell_type == "code")


def check_hidden_code(page, notebook: Path) -> None:
    """Every cell tagged hide-input shows its outputs with its code folded; "show code" unfolds it."""
    toggles = page.locator("details.sbw-hidden-code")
    assert toggles.count() == hidden_cells(notebook), f"{notebook.name}: {toggles.count()} folded cells, {hidden_cells(notebook)} hidden"
    if not toggles.count():
        return
    first = toggles.first
    code = first.locator(".jp-InputArea-editor")
    assert not code.is_visible(), f"{notebook.name}: a hidden cell's code shows before 'show code' is clicked"
    first.locator("summary").click()
    assert code.is_visible() and "#@title" in code.inner_text(), f"{notebook.name}: 'show code' did not unfold the code"
    first.locator("summary").click()


@pytest.fixture
def page_with_log(browser):
    """A page whose errors and requests are recorded; requests for anything but the loopback site are refused."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    log = {"errors": [], "outside": []}

    def route(request_route):
        url = request_route.request.url
        if url.startswith("http://127.0.0.1:"):
            return request_route.continue_()
        log["outside"].append(url)
        return request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda error: log["errors"].append(str(error)))
    page.on("console", lambda message: log["errors"].append(message.text) if message.type == "error" else None)
    yield page, log
    context.close()


@pytest.fixture(scope="module")
def browser():
    from test_browser import CHROMIUM, CHROMIUM_ARGS, _require_browser

    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
