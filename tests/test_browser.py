"""The explorers proven where people use them: JupyterLab and the Voila classroom app in headless Chromium.

A notebook that executes headless proves nothing about ipywidgets and plotly: they live in
the browser. These tests start the real servers from this environment on a free loopback
port with a token, drive Debian's ``/usr/bin/chromium`` with Playwright, and check the DOM:
the plotly figure drew the expected traces (not blank), the widget controls rendered (not
"Loading widget…" or a model repr), and moving a control redraws the figure. Screenshots go
to ``build/browser/``. Install the browser with ``.ci/install_browser.sh``; under CI=true a
missing browser fails these tests instead of skipping them.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
from sbert_workbook.classroom.pages import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    kernel_processes,
    open_at_once,
    room_of,
)

SCREENSHOTS = REPO / "build" / "browser"
#: Visitors who open the classroom app at the same moment in test_six_visitors_at_once_all_see_their_figure.
VISITORS_AT_ONCE = 6
#: Extra Voilà options for the classroom app under test, e.g. the shared socket path of the old transport
#: (``--KernelManager.ip=/tmp/room/kernel``): how the six-at-once test was shown to fail with it.
EXTRA_VOILA_ARGS = os.environ.get("SBERT_WORKBOOK_TEST_VOILA_ARGS", "").split()
FIRST_FIGURE_TIMEOUT_MS = 420_000  # kernel start + model load: 20-90 s usually; in a fresh venv (first imports compile) with
#   the JupyterLab and two Voila kernels starting together on 2 cores, one classroom app took over 240 s (CI, 2026-12-01)
REDRAW_TIMEOUT_MS = 240_000  # a redraw is ~1-5 s alone; in the suite two notebook runs share the 2 cores with the classroom
#   kernel (tests/notebook_runs.py), and in a clean-clone CI run (2026-12-02) the pair explorer's figure took over 60 s
#   to come back: a figure that never returns still fails, only later
CULL_AFTER_S = 30  # the classroom app under test shuts a kernel with no page connected down after 30 idle seconds
#   (default 120). The culler cannot tell a closed page from one whose browser has not connected yet: with 5 s, one of
#   six pages opened at once in the suite lost its kernel before its busy browser connected (404 on its channels)
#: What a page shows when widgets did not render: the loading placeholder, a Python repr, an error.
WIDGET_FAILURE_TEXT = re.compile(r"Loading widget|VBox\(children=|IntSlider\(value=|model_id|model not found|Error displaying widget"
                                 r"|application/vnd\.jupyter\.widget-view\+json|Traceback")
#: What a classroom app must not put in front of the room: file paths, set-up lines, progress bars and load logs.
DEVELOPER_TEXT = re.compile(r"(?<![\w.:/~-])/(?:[\w.@+-]+/)+[\w.@+-]+"  # an absolute POSIX path of two or more components
                            r"|/(?:work|home|tmp|root)/|site-packages|quick mode:|\bdevice: |it/s|Loading weights|█|%\|")
#: The one line each classroom app shows about its set-up (sbert_workbook.classroom.page_setup.model_line).
MODEL_LINE = re.compile(r"^model: \S+", re.M)
#: The figure on show: the last plotly plot with data and a size. While an Output is redrawn, the
#: previous plot can linger in the page, purged (no data) or hidden, before the new one.
#: Figure waits poll on an interval, not on animation frames (Playwright's default): Chromium runs no rAF callbacks
#: for a page it is not painting (two CI runs of three timed out at 240 s on a figure their screenshot shows drawn).
POLL_MS = 250
FIGURE_JS = """(scope) => {
    const shown = Array.from(document.querySelectorAll(scope + ' .js-plotly-plot'))
        .filter(g => g.data && g._fullLayout && g.getBoundingClientRect().width > 0);
    const gd = shown[shown.length - 1];
    if (!gd) return null;
    const box = gd.getBoundingClientRect();
    return {traces: gd.data.length, types: gd.data.map(t => t.type), title: gd.layout.title.text,
            drawn: gd.querySelectorAll('g.trace').length + gd.querySelectorAll('g.hm').length,
            marks: gd.querySelectorAll('g.trace .point').length,
            heatmap_pixels: Array.from(gd.querySelectorAll('g.hm image')).map(i => (i.getAttribute('href') || '').length),
            y_labels: gd.data[0].y ? Array.from(gd.data[0].y).map(String) : [],
            width: box.width, height: box.height};
}"""

#: Every cell output's plots and images, for a failure message: a plot without data or size is not "shown".
OUTPUTS_JS = """(scope) => Array.from(document.querySelectorAll(scope + ' .jp-OutputArea-output')).map(o => ({
    plots: Array.from(o.querySelectorAll('.js-plotly-plot')).map(g => ({data: !!g.data, layout: !!g._fullLayout,
        width: Math.round(g.getBoundingClientRect().width), title: g.layout && g.layout.title ? g.layout.title.text : null})),
    images: Array.from(o.querySelectorAll('img')).map(i => ({width: Math.round(i.getBoundingClientRect().width),
        display: getComputedStyle(i).display, png: (i.getAttribute('src') || '').startsWith('data:image/png')})),
    mime: Array.from(o.querySelectorAll('[data-mime-type]')).map(e => e.getAttribute('data-mime-type')),
})).filter(o => o.plots.length || o.images.length)"""

# ----------------------------------------------------------------------------- browser and servers
def _require_browser() -> None:
    problems = []
    if not CHROMIUM.is_file():
        problems.append(f"{CHROMIUM} is missing (run `.ci/install_browser.sh`, which asks sudo when it is not root, or set SBERT_WORKBOOK_CHROMIUM)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("the Python package playwright is missing (pip install -e '.[test]')")
    if problems:
        message = "browser tests cannot run: " + "; ".join(problems)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def browser():
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(REDRAW_TIMEOUT_MS)
    page.console_lines = []  # what the page logged, for the failure messages
    page.on("console", lambda message: page.console_lines.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: page.console_lines.append(f"pageerror: {error}"))
    page.outputs_sent = []  # sizes of the widget updates the page sent with an Output's outputs
    page.on("websocket", lambda socket: socket.on("framesent", lambda payload: _note_outputs_sent(page.outputs_sent, payload)))
    yield page
    context.close()


#: A widget state update whose state holds an Output's outputs, in a kernel websocket frame (JSON or the v1 binary protocol).
OUTPUTS_UPDATE = re.compile(rb'"state":\s*\{\s*"outputs"')


def _note_outputs_sent(sent: list[int], payload: str | bytes) -> None:
    """Record a frame the page sent that writes an Output's outputs: the kernel alone writes them
    (sbert_workbook/teaching/live_output.py), so a live figure never comes back as plotly's still PNG."""
    data = payload.encode() if isinstance(payload, str) else payload
    if OUTPUTS_UPDATE.search(data):
        sent.append(len(data))


def _assert_page_never_wrote_outputs(page, name: str) -> None:
    assert not page.outputs_sent, (
        f"{name}: the page sent {len(page.outputs_sent)} widget updates of an Output's outputs ({page.outputs_sent} bytes): "
        "a live figure was displayed inside `with output:` instead of written by the kernel (sbert_workbook.teaching.live_output.show)")


class Server:
    """A server process in its own process group, stopped (group and all kernels) on close."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path, probe_url: str):
        self.log = log
        self.process = subprocess.Popen(argv, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"{argv[2:4]} exited with code {self.process.returncode}:\n{self.log_tail()}")
            try:
                urllib.request.urlopen(probe_url, timeout=5)
                return
            except OSError:
                time.sleep(0.5)
        self.close()
        pytest.fail(f"{argv[2:4]} did not answer {probe_url} within 120 s:\n{self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


def _server_env(home: Path) -> dict[str, str]:
    """Quick mode, offline, and Jupyter's per-user state in a throw-away folder."""
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    return {**os.environ, "SBERT_WORKBOOK_QUICK": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
            "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings")}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a copy of classroom/ (so autosave never writes outputs into the repository)."""
    _require_browser()
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(REPO / "classroom", root / "classroom")
    port, token = free_port(), secrets.token_hex(16)
    argv = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True", "--LabApp.extension_manager=readonly",
            "--LabApp.news_url=None"]
    base = f"http://127.0.0.1:{port}"
    server = Server(argv, _server_env(tmp_path_factory.mktemp("lab_home")), root / "lab.log", f"{base}/api/status?token={token}")
    yield base, token, server
    server.close()


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """The classroom app exactly as `./workbook classroom` starts it (quick mode, embedded model)."""
    _require_browser()
    port, token = free_port(), secrets.token_hex(16)
    argv = [sys.executable, "-m", "sbert_workbook", "classroom", f"--port={port}", f"--token={token}", "--quick",
            "--no-browser", "--model=embedded", f"--cull-after={CULL_AFTER_S}"]
    home = tmp_path_factory.mktemp("voila_home")
    base = f"http://127.0.0.1:{port}"
    env = _server_env(home)
    if EXTRA_VOILA_ARGS:  # the same app with Voilà options of the caller's after its own (what the CLI would exec)
        from sbert_workbook.classroom.room import classroom_command

        argv, app_env = classroom_command(port, "127.0.0.1", token, "embedded", quick=True, open_browser=False,
                                          cull_after_s=CULL_AFTER_S)
        argv, env = [*argv, *EXTRA_VOILA_ARGS], {**app_env, **env}
    server = Server(argv, env, home / "voila.log", f"{base}/?token={token}")
    yield base, token, server
    server.close()


# ----------------------------------------------------------------------------- checks in the page
def _screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def _what_the_page_shows(page, shot_name: str) -> str:
    """For a failure message: the widget failure text in the page's cell outputs, and a screenshot taken now."""
    shown = WIDGET_FAILURE_TEXT.findall(_output_text(page, "body"))
    return f"the page shows {shown or 'no widget error text'}; screenshot {_screenshot(page, shot_name)}"


def _wait_for_figure(page, scope: str, name: str, server: Server) -> dict:
    """The rendered figure's facts, or a failure that says what the page showed instead."""
    try:
        page.wait_for_function(f"() => ({FIGURE_JS})({scope!r}) !== null", timeout=FIRST_FIGURE_TIMEOUT_MS, polling=POLL_MS)
    except Exception as error:  # playwright's TimeoutError: report what is on the page instead
        pytest.fail(f"No plotly figure rendered in {scope!r} ({type(error).__name__}); {_what_the_page_shows(page, f'{name}_FAILED')}"
                    f"\nserver log:\n{server.log_tail()}")
    page.wait_for_timeout(500)  # let plotly finish the first paint
    return _settled_figure(page, scope)


def _settled_figure(page, scope: str, condition: str = "true") -> dict | None:
    """The figure once it satisfies ``condition`` with every trace drawn; else the figure as it is, for the asserts.

    A control change can redraw more than once, and between two redraws the Output holds no
    figure (or a half-painted one) for a moment, so one look is not enough on a busy machine.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    settled = (f"() => {{ const f = ({FIGURE_JS})({scope!r}); "
               f"return f !== null && f.drawn === f.traces && ({condition}) ? f : null; }}")
    try:
        return page.wait_for_function(settled, timeout=REDRAW_TIMEOUT_MS, polling=POLL_MS).json_value()
    except PlaywrightTimeoutError:
        figure = page.evaluate(FIGURE_JS, scope)
        if figure is None:
            pytest.fail(f"The figure vanished from {scope!r} after it had been drawn and did not come back within "
                        f"{REDRAW_TIMEOUT_MS // 1000} s; {_what_the_page_shows(page, 'figure_vanished_FAILED')}")
        return figure


def _assert_drawn(figure: dict | None, expected_traces: int) -> None:
    assert figure is not None, "the figure vanished from the page after it had been drawn"
    assert figure["traces"] == expected_traces, f"expected {expected_traces} traces, the figure has {figure['types']}"
    assert figure["drawn"] == expected_traces, f"{figure['drawn']} of {expected_traces} traces were drawn in the SVG"
    assert figure["marks"] > 0 or any(figure["heatmap_pixels"]), "the figure is blank: no points, bars or heatmap image"
    assert figure["width"] > 300 and figure["height"] > 200, f"the figure is {figure['width']}x{figure['height']} px"


def _output_text(page, scope: str) -> str:
    """The text of every cell output (not the code, which may well mention IntSlider)."""
    return "\n".join(page.locator(f"{scope} .jp-OutputArea").all_inner_texts())


def _assert_widgets_rendered(page, scope: str, controls: dict[str, int], name: str) -> None:
    outputs = _output_text(page, scope)
    assert MODEL_LINE.search(outputs), f"could not read the cell outputs (.jp-OutputArea) in {scope!r}; the page layout changed?"
    shown = WIDGET_FAILURE_TEXT.findall(outputs)
    found = {selector: page.locator(f"{scope} {selector}").count() for selector in controls}
    if shown or found != controls:
        shot = _screenshot(page, f"{name}_FAILED")
        pytest.fail(f"widgets did not render: expected controls {controls}, found {found}; the page shows {shown or 'no widget error text'}; "
                    f"screenshot {shot}")


def _assert_room_sees_only_the_app(page, name: str) -> None:
    """The Voila page shows the explorer, its text and one model line: no paths, set-up lines or progress bars."""
    shown = page.inner_text("body")
    found = sorted({match.group(0) for match in DEVELOPER_TEXT.finditer(shown)})
    if found:
        shot = _screenshot(page, f"{name}_DEVELOPER_TEXT_FAILED")
        pytest.fail(f"the classroom app shows developer text {found}; keep it for the teacher (doctor, the notebooks); screenshot {shot}")
    assert len(MODEL_LINE.findall(shown)) == 1, f"expected one 'model: …' line naming the model, the page shows:\n{shown[:2000]}"


def _selected_option(select) -> str:
    """The picker's shown label ('' when blank); ipywidgets renders its spaces as no-break spaces."""
    return select.evaluate("s => s.selectedIndex >= 0 ? s.options[s.selectedIndex].text.replace(/\\u00a0/g, ' ') : ''")


def _redrawn(page, scope: str, act, condition: str, server: Server | None = None) -> dict:
    """Run ``act`` (moving a control), wait until the figure ``f`` satisfies the JS ``condition``, return it settled.

    A figure that never satisfies it fails with what the page showed instead: the figure's title, the text boxes'
    values, the widget error text, the page's console, a screenshot and (given ``server``) the server log's tail.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    act()
    try:
        page.wait_for_function(f"() => {{ const f = ({FIGURE_JS})({scope!r}); return f !== null && ({condition}); }}",
                               timeout=REDRAW_TIMEOUT_MS, polling=POLL_MS)
    except PlaywrightTimeoutError:
        figure = page.evaluate(FIGURE_JS, scope)
        outputs = page.evaluate(OUTPUTS_JS, scope)
        account = _what_the_page_shows(page, "redraw_FAILED")
        after_shot = page.evaluate(FIGURE_JS, scope)
        boxes = page.locator(f"{scope} .widget-text input").evaluate_all("inputs => inputs.map(i => i.value)")
        brief = lambda f: None if f is None else {k: f[k] for k in ("title", "y_labels")}  # noqa: E731
        pytest.fail(f"the figure did not come to satisfy {condition!r} within {REDRAW_TIMEOUT_MS // 1000} s; it shows "
                    f"{brief(figure)} (after a screenshot: {brief(after_shot)}); outputs {outputs}; text boxes {boxes}; "
                    f"{account}\npage console (last 20):\n"
                    + "\n".join(getattr(page, "console_lines", [])[-20:])
                    + ("" if server is None else f"\nserver log:\n{server.log_tail()}"))
    page.wait_for_timeout(300)
    return _settled_figure(page, scope, condition)


def _slide_to_start(page, scope: str):
    def act():
        page.locator(f"{scope} .widget-slider .noUi-handle").first.focus()
        page.keyboard.press("Home")
    return act


def _open_voila_page(page, url: str) -> None:
    """Voila streams the page while the kernel runs the notebook: its "load" event waits for the
    whole run (kernel start, model load, encoding), which can pass a minute on a busy 2-core machine,
    so wait only for the response to start; the figure waits below allow for the run."""
    page.goto(url, wait_until="commit", timeout=FIRST_FIGURE_TIMEOUT_MS)


def _check_embedding_explorer(page, scope: str, name: str, server: Server) -> Path:
    figure = _wait_for_figure(page, scope, name, server)
    _assert_drawn(figure, 4)
    assert figure["types"] == ["histogram", "scatter", "scatter", "scatter"]
    _assert_widgets_rendered(page, scope, {".widget-slider .noUi-handle": 1, ".widget-checkbox input[type=checkbox]": 1}, name)
    shot = _screenshot(page, name)
    last_layer = int(re.search(r"layer (\d+)", figure["title"]).group(1))
    assert last_layer > 0, figure["title"]

    at_start = _redrawn(page, scope, _slide_to_start(page, scope), "f.title.includes('layer 0 (raw)')", server)
    _assert_drawn(at_start, 4)
    _screenshot(page, f"{name}_layer0")
    centred = _redrawn(page, scope, lambda: page.locator(f"{scope} .widget-checkbox input").first.check(),
                       "f.title.includes('layer 0 (mean vector removed)')", server)
    _assert_drawn(centred, 4)
    _screenshot(page, f"{name}_layer0_centred")
    _assert_page_never_wrote_outputs(page, name)
    return shot


# ----------------------------------------------------------------------------- the tests
def test_jupyterlab_runs_the_embedding_explorer(page, lab):
    base, token, server = lab
    page.goto(f"{base}/lab/tree/classroom/embedding_explorer.ipynb?token={token}")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext", timeout=FIRST_FIGURE_TIMEOUT_MS)
    page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.sessionContext.ready; }")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    _check_embedding_explorer(page, ".jp-Notebook", "lab_embedding_explorer", server)


def test_classroom_app_serves_the_embedding_explorer(page, classroom):
    base, token, server = classroom
    _open_voila_page(page, f"{base}/voila/render/embedding_explorer.ipynb?token={token}")
    _check_embedding_explorer(page, "body", "voila_embedding_explorer", server)
    assert "embedding_explorer(encoder" not in page.inner_text("body"), "Voila should show outputs only, not the code"
    _assert_room_sees_only_the_app(page, "voila_embedding_explorer")


def test_classroom_app_serves_the_pair_explorer(page, classroom):
    base, token, server = classroom
    _open_voila_page(page, f"{base}/voila/render/pair_explorer.ipynb?token={token}")
    figure = _wait_for_figure(page, "body", "voila_pair_explorer", server)
    _assert_drawn(figure, 3)
    assert figure["types"] == ["heatmap", "scatter", "scatter"] and figure["heatmap_pixels"][0] > 100
    _assert_widgets_rendered(page, "body", {".widget-text input": 2, ".widget-slider .noUi-handle": 1, ".widget-dropdown select": 1},
                             "voila_pair_explorer")
    _screenshot(page, "voila_pair_explorer")
    _assert_room_sees_only_the_app(page, "voila_pair_explorer")
    picker = page.locator(".widget-dropdown select")
    assert _selected_option(picker) == "(type your own sentences)", "the STS-B picker must name what the boxes hold, not start blank"

    at_start = _redrawn(page, "body", _slide_to_start(page, "body"), "f.title.includes('at layer 0')", server)
    _assert_drawn(at_start, 3)
    sentence_a = page.locator(".widget-text input").first
    typed = _redrawn(page, "body", lambda: (sentence_a.fill("Penguins waddle across the ice."), sentence_a.press("Enter")),
                     "f.y_labels.includes('penguins')", server)
    assert "gold score" not in typed["title"], "a typed pair has no gold score"
    picked = _redrawn(page, "body", lambda: picker.select_option(index=1), "f.title.includes('gold score')", server)
    assert "at layer 0" in picked["title"], "picking a pair keeps the chosen layer"
    _assert_drawn(picked, 3)
    assert _selected_option(picker).startswith("gold "), "the picker shows the picked pair"
    _screenshot(page, "voila_pair_explorer_picked")
    _assert_room_sees_only_the_app(page, "voila_pair_explorer_picked")
    _assert_page_never_wrote_outputs(page, "voila_pair_explorer")


def _kernel_processes(server: Server) -> set[int]:
    """Process ids of the kernels the server started (its children running ipykernel)."""
    return set(kernel_processes(server.process))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts kernel processes through /proc")
def test_a_closed_classroom_page_gives_its_kernel_back(browser, classroom):
    """Voilà starts a kernel per page load and keeps it; the app shuts a closed page's kernel down once idle."""
    base, token, server = classroom
    before = _kernel_processes(server)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    _open_voila_page(page, f"{base}/voila/render/pair_explorer.ipynb?token={token}")
    _wait_for_figure(page, "body", "voila_pair_explorer_for_culling", server)
    visitor = _kernel_processes(server) - before
    assert len(visitor) == 1, f"expected one new kernel for the page, found {sorted(visitor)}"
    time.sleep(CULL_AFTER_S + 2)
    assert visitor <= _kernel_processes(server), "a kernel whose page is still open must never be culled"
    context.close()
    deadline = time.monotonic() + 60
    while visitor & _kernel_processes(server) and time.monotonic() < deadline:
        time.sleep(1)
    assert not visitor & _kernel_processes(server), "the closed page's kernel was still running 60 s later"


def test_six_visitors_at_once_all_see_their_figure(classroom):
    """A room arriving at once: six pages (both explorers in turn) opened at the same moment must all draw.

    Each visitor's kernel is started when their page opens, six at the same moment: with one socket path for all
    kernels (SBERT_WORKBOOK_TEST_VOILA_ARGS=--KernelManager.ip=/tmp/room/kernel) their messages cross and pages
    never draw."""
    from concurrent.futures import ThreadPoolExecutor

    base, token, server = classroom
    with ThreadPoolExecutor(1) as thread:  # Playwright's asyncio API, beside this module's sync browser
        load = thread.submit(open_at_once, base, token, room_of(VISITORS_AT_ONCE), FIRST_FIGURE_TIMEOUT_MS / 1000).result()
    summary = load.summary()
    assert summary["drawn"] == VISITORS_AT_ONCE, (
        f"{summary['drawn']} of {VISITORS_AT_ONCE} pages opened at once drew their figure ({summary}); "
        f"'Invalid Signature' lines in the server log: {server.log.read_text(errors='replace').count('Invalid Signature')}"
        f"\nserver log:\n{server.log_tail()}")


# ----------------------------------------------------------------------------- predict-then-run questions, clicked
PREDICT_NOTEBOOK = "predict_check.ipynb"
PREDICT_OPTIONS = ["two", "three", "four"]
PREDICT_ANSWER, PREDICT_WRONG = "three", "four"
PREDICT_WHY = "One more than two is three."
#: The feedback line's text: innerText of the HTML widget (ipywidgets may render spaces as no-break spaces).
FEEDBACK_JS = "(scope) => Array.from(document.querySelectorAll(scope + ' .sbw-predict-feedback')).map(e => e.innerText.replace(/\\u00a0/g, ' '))"


def _predict_notebook() -> dict:
    """One cell, a predict_question with known options, as the notebooks write it."""
    import nbformat

    source = ("from sbert_workbook.teaching.predict import predict_question\n"
              f"predict_question('How much is two plus one?', {PREDICT_OPTIONS!r}, {PREDICT_ANSWER!r}, {PREDICT_WHY!r})")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return notebook


@pytest.fixture(scope="module")
def predict_voila(tmp_path_factory):
    """Voilà serving a folder that holds only the one-cell predict notebook."""
    import nbformat

    from sbert_workbook.runner.transport import kernel_options

    _require_browser()
    root = tmp_path_factory.mktemp("predict_voila")
    nbformat.write(nbformat.from_dict(_predict_notebook()), root / PREDICT_NOTEBOOK)
    port, token = free_port(), secrets.token_hex(16)
    argv = [sys.executable, "-m", "sbert_workbook.classroom.voila_server", str(root), f"--port={port}", "--Voila.ip=127.0.0.1", f"--Voila.token={token}",
            "--Voila.open_browser=False", "--VoilaConfiguration.show_tracebacks=True", *kernel_options()]
    home = tmp_path_factory.mktemp("predict_voila_home")
    base = f"http://127.0.0.1:{port}"
    server = Server(argv, _server_env(home), home / "voila.log", f"{base}/?token={token}")
    yield base, token, server
    server.close()


def _put_notebook(base: str, token: str, name: str, notebook: dict) -> None:
    """Save ``notebook`` as ``name`` in the JupyterLab server's root, through its contents API."""
    import json

    body = json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode()
    request = urllib.request.Request(f"{base}/api/contents/{name}", data=body, method="PUT",
                                     headers={"Content-Type": "application/json", "Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 201), f"saving {name} through the contents API answered {response.status}"


def _click_predict_options(page, scope: str, name: str, server: Server) -> None:
    """The options render as buttons, nothing is revealed before a click, a wrong then the right click say so."""
    buttons = page.locator(f"{scope} .sbw-predict-options button")
    try:
        page.wait_for_function(f"() => document.querySelectorAll({scope!r} + ' .sbw-predict-options button').length > 0",
                               timeout=FIRST_FIGURE_TIMEOUT_MS)
    except Exception as error:  # playwright's TimeoutError: report what is on the page instead
        shot = _screenshot(page, f"{name}_FAILED")
        shown = WIDGET_FAILURE_TEXT.findall(page.inner_text("body"))
        pytest.fail(f"No predict buttons rendered in {scope!r} ({type(error).__name__}); the page shows "
                    f"{shown or 'no widget error text'}; screenshot {shot}\nserver log:\n{server.log_tail()}")
    labels = [text.replace("\u00a0", " ").strip() for text in buttons.all_inner_texts()]
    assert labels == PREDICT_OPTIONS, f"expected one button per option {PREDICT_OPTIONS}, the page shows {labels}"
    assert all(buttons.nth(i).is_enabled() and buttons.nth(i).is_visible() for i in range(len(labels)))
    feedback = page.evaluate(FEEDBACK_JS, scope)
    assert len(feedback) == 1, f"expected one feedback line (.sbw-predict-feedback), found {feedback}"
    assert "Choose an answer" in feedback[0] and PREDICT_WHY not in feedback[0], f"revealed before a click: {feedback[0]!r}"

    def click(option: str, expected: str) -> str:
        buttons.nth(PREDICT_OPTIONS.index(option)).click()
        try:
            page.wait_for_function(f"() => ({FEEDBACK_JS})({scope!r}).some(t => t.includes({expected!r}))",
                                   timeout=REDRAW_TIMEOUT_MS)
        except Exception:  # playwright's TimeoutError: say what the line shows instead
            shot = _screenshot(page, f"{name}_click_FAILED")
            pytest.fail(f"after clicking {option!r} the feedback never showed {expected!r}: it shows "
                        f"{page.evaluate(FEEDBACK_JS, scope)}; screenshot {shot}")
        assert "mod-active" in (buttons.nth(PREDICT_OPTIONS.index(option)).get_attribute("class") or ""), \
            f"the clicked button {option!r} is not shown as chosen"
        return page.evaluate(FEEDBACK_JS, scope)[0]

    wrong = click(PREDICT_WRONG, "✗ Not quite")
    assert f"“{PREDICT_ANSWER}”" in wrong and f"You chose “{PREDICT_WRONG}”" in wrong and PREDICT_WHY in wrong, wrong
    right = click(PREDICT_ANSWER, "✓ Right")
    assert right.startswith("✓ Right.") and PREDICT_WHY in right and "✗" not in right, right
    outputs = _output_text(page, scope)
    assert "How much is two plus one?" in outputs, f"could not read the cell outputs (.jp-OutputArea) in {scope!r}: {outputs[:500]!r}"
    shown = WIDGET_FAILURE_TEXT.findall(outputs)
    shot = _screenshot(page, name)
    assert not shown, f"the page shows widget failure text {shown}; screenshot {shot}"


def test_jupyterlab_predict_question_answers_clicks(page, lab):
    base, token, server = lab
    _put_notebook(base, token, PREDICT_NOTEBOOK, _predict_notebook())
    # A workspace of its own, reset: the server's default workspace reopens the notebooks earlier tests opened, and
    # "run all" would run whichever of them is current.
    page.goto(f"{base}/lab/workspaces/predict-check/tree/{PREDICT_NOTEBOOK}?reset&token={token}")
    page.wait_for_function("(path) => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.context.path === path",
                           arg=PREDICT_NOTEBOOK, timeout=FIRST_FIGURE_TIMEOUT_MS)
    page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.sessionContext.ready; }")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    _click_predict_options(page, ".jp-Notebook", "lab_predict_question", server)


def test_voila_predict_question_answers_clicks(page, predict_voila):
    base, token, server = predict_voila
    _open_voila_page(page, f"{base}/voila/render/{PREDICT_NOTEBOOK}?token={token}")
    _click_predict_options(page, "body", "voila_predict_question", server)
    assert "predict_question(" not in page.inner_text("body"), "Voila should show outputs only, not the code"
