"""``./workbook book``: the edition to read before running, built from the suite's own runs and opened in Chromium.

The pages are written from each notebook's one own-cache run (tests/notebook_runs.py: quick mode, the embedded
model offline), exactly as ``build_book`` writes the runs it makes itself, then served from a loopback static server
and opened in headless Chromium: the index, then two notebooks reached through the book's own links. Every request
the pages make is recorded; any that would leave the machine fails the test.
"""
from __future__ import annotations

import base64
import functools
import http.server
import threading
from pathlib import Path

import nbformat
import pytest

from sbert_workbook.app import book, book_assets
from sbert_workbook.app.runbook import PLOTLY_MIME, list_notebooks

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


def test_an_asset_whose_hash_is_not_the_published_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tampered = book_assets.NpmAsset("requirejs", "2.3.8", book_assets.integrity_of(b"the real tarball"), {})
    cached = book_assets.cache_folder() / "requirejs-2.3.8.tgz"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"something else")
    with pytest.raises(RuntimeError, match="sha512 is not the one the registry published"):
        book_assets.tarball(tampered)
    fips_180_abc = ("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")  # SHA-512("abc"), FIPS 180-2
    assert book_assets.integrity_of(b"abc") == "sha512-" + base64.b64encode(bytes.fromhex(fips_180_abc)).decode()


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


#: Each figure's traces and how many were drawn: SVG traces as ``g.trace``/``g.hm`` groups, WebGL traces (scattergl,
#: scatter3d) as a canvas with a size (headless Chromium draws WebGL in software).
DRAWN_FIGURES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => {
    const types = (g._fullData || []).map(t => t.type);
    const webgl = types.filter(t => t.endsWith('gl') || t === 'scatter3d').length;
    const canvas = Array.from(g.querySelectorAll('canvas')).some(c => c.width > 0 && c.height > 0);
    return {types: types, traces: g.data ? g.data.length : 0, width: g.getBoundingClientRect().width,
            drawn: g.querySelectorAll('g.trace').length + g.querySelectorAll('g.hm').length + (canvas ? webgl : 0)};
})"""


@pytest.mark.browser
def test_the_book_reads_offline_in_a_browser(static_site, notebook_runs, page_with_log):
    page, log = page_with_log
    page.goto(f"{static_site}/index.html")
    entries = page.locator("ol li a")
    assert entries.all_inner_texts() == [book.title_of(nbformat.read(n, 4), n.name) for n in NOTEBOOKS]
    entries.nth(2).click()  # 02, reached through the index's link
    check_page(page, NOTEBOOKS[2], notebook_runs, log)
    page.locator("nav.sbw-book-nav a[rel=next]").first.click()  # 03, through the page's own "next" link
    check_page(page, NOTEBOOKS[3], notebook_runs, log)
    assert not log["outside"], f"requests left the machine: {log['outside'][:5]}"


def check_page(page, notebook: Path, notebook_runs, log) -> None:
    page.wait_for_url(f"**/{notebook.stem}.html")
    executed = notebook_runs.get(notebook, "own-cache").executed
    expected = expected_figures(executed)
    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot').length >= {expected}", timeout=60_000)
    page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0", timeout=60_000)
    figures = page.evaluate(DRAWN_FIGURES_JS)
    blank = [f for f in figures if not f["traces"] or f["drawn"] != f["traces"] or f["width"] < 200]
    assert len(figures) == expected and not blank, f"{notebook.name}: {len(figures)} of {expected} figures, blank: {blank}"
    readouts = sorted(page.locator(".widget-slider .widget-readout").all_inner_texts())
    assert readouts == stored_control_values(executed), f"{notebook.name}: sliders show {readouts}"
    assert not log["errors"], f"{notebook.name}: page errors {log['errors'][:3]}"


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
