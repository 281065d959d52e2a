"""The standard setup cell on a simulated Colab, and the "Open in Colab" badges.

The cell must install the workbook from the repository, at the tag of the version the notebook belongs to, and switch
on Colab's widget manager only when ``google.colab`` is importable, and do nothing of the kind elsewhere.
Colab is simulated by a fake ``google.colab`` module in ``sys.modules`` and a fake
``subprocess.run``; the real cell text from tools/notebook_cells.py is executed.
"""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tools/ is not part of the installed package
from sbert_workbook import about  # noqa: E402
from sbert_workbook.lessons.manifest import manifest  # noqa: E402
from tools.add_colab_badges import add_badge, map_lines, refresh_map, refresh_setup_cell  # noqa: E402
from tools.notebook_cells import REPOSITORY, SETUP_CELL, colab_badge, standard_cells  # noqa: E402

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ALL_NOTEBOOKS = NOTEBOOKS + sorted((REPO / "classroom").glob("*.ipynb"))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.fixture
def pip_calls(monkeypatch):
    """subprocess.run replaced by a recorder: nothing is installed for real."""
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: calls.append((args, kwargs)))
    return calls


@pytest.fixture
def fake_colab(monkeypatch):
    """A ``google.colab`` module whose ``output.enable_custom_widget_manager`` counts its calls."""
    enabled = []
    output = types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: enabled.append(True)
    colab = types.ModuleType("google.colab")
    colab.output = output
    if "google" not in sys.modules:
        monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    return enabled


def test_on_colab_the_setup_cell_installs_the_workbook_and_enables_widgets(pip_calls, fake_colab):
    namespace = {}
    exec(SETUP_CELL, namespace)
    assert len(pip_calls) == 1, f"expected one pip install, got {pip_calls}"
    (command,), options = pip_calls[0]
    assert command[:4] == [sys.executable, "-m", "pip", "install"], command
    assert command[-1] == f"sbert-workbook @ git+{REPOSITORY}@v{about.version()}", "the version it belongs to, by tag"
    assert "[" not in command[-1], "Colab gets the core only: no extras (JupyterLab, ONNX, test tools)"
    assert not any(arg.startswith(("-U", "--upgrade", "--force")) for arg in command), "Colab's preinstalled packages stay"
    assert options.get("check") is True, "a failed install must stop the notebook, not continue half set up"
    assert fake_colab == [True], "Colab's custom widget manager is needed for ipywidgets 8 outputs"
    assert namespace["sbw"].__name__ == "sbert_workbook"


def test_elsewhere_the_setup_cell_installs_nothing(pip_calls, monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    namespace = {}
    exec(SETUP_CELL, namespace)
    assert pip_calls == [], "outside Colab nothing may be installed"
    assert namespace["sbw"].__name__ == "sbert_workbook"


@pytest.mark.parametrize("notebook", ALL_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_notebook_runs_exactly_this_setup_cell_and_nothing_else_differs_on_colab(notebook):
    code = [_source(cell) for cell in _cells(notebook) if cell["cell_type"] == "code"]
    assert code[0] == SETUP_CELL, f"{notebook.name}: the first code cell differs from tools/notebook_cells.py SETUP_CELL"
    later = [i for i, source in enumerate(code[1:], start=2) if "google.colab" in source]
    assert not later, f"{notebook.name}: code cells {later} branch on Colab; only the setup cell may"


def test_standard_cells_can_carry_the_badge():
    title = standard_cells("# 09 · Title", notebook="notebooks/09_x.ipynb")[0].source
    assert title.startswith(colab_badge("notebooks/09_x.ipynb") + "\n\n# 09 · Title")
    assert standard_cells("# 09 · Title")[0].source == "# 09 · Title"


def test_add_badge_inserts_once_refreshes_and_keeps_other_badges(tmp_path):
    import nbformat

    folder = tmp_path / "notebooks"
    folder.mkdir()
    path = folder / "07_demo.ipynb"
    table_badge = colab_badge("notebooks/08_other.ipynb")
    title = f"# 07 · Demo\n\n| next | {table_badge} |"
    nbformat.write(nbformat.v4.new_notebook(cells=standard_cells(title)), path)
    assert add_badge(path, tmp_path) is True
    assert add_badge(path, tmp_path) is False, "a second run changes nothing"
    source = _cells(path)[0]["source"]
    assert "".join(source) == f"{colab_badge('notebooks/07_demo.ipynb')}\n\n{title}"
    moved = folder / "06_demo.ipynb"
    path.rename(moved)
    assert add_badge(moved, tmp_path) is True
    refreshed = "".join(_cells(moved)[0]["source"])
    assert refreshed.count("07_demo") == 0 and refreshed.count("06_demo.ipynb") == 1 and table_badge in refreshed


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_has_its_own_colab_badge_first(notebook):
    first_line = _source(_cells(notebook)[0]).split("\n")[0]
    expected = colab_badge(f"notebooks/{notebook.name}")
    assert first_line == expected, f"{notebook.name}: the title cell should start with its badge; run `python tools/add_colab_badges.py`"


def test_refresh_setup_cell_puts_the_current_setup_cell_into_a_notebook(tmp_path):
    import nbformat

    path = tmp_path / "07_demo.ipynb"
    cells = standard_cells("# 07 · Demo")
    cells[1].source = SETUP_CELL.replace(REPOSITORY, "https://github.com/old/place")
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    assert refresh_setup_cell(path) is True
    assert refresh_setup_cell(path) is False, "a second run changes nothing"
    assert [_source(cell) for cell in _cells(path) if cell["cell_type"] == "code"][0] == SETUP_CELL


def test_00s_map_shows_every_notebook_with_its_objectives_and_badge():
    """00's map is what tools/add_colab_badges.py makes: every notebook in order, its manifest's 2-3 objectives, its badge."""
    title = _source(_cells(NOTEBOOKS[0])[0])
    start, end = map_lines(title)
    rows = title.split("\n")[start + 2:end + 1]
    assert [row.split("`")[1] for row in rows] == [path.stem for path in NOTEBOOKS]
    for notebook, row in zip((path.stem for path in NOTEBOOKS), rows):
        objectives = manifest(notebook).objectives
        assert 2 <= len(objectives) <= 3, f"{notebook}: give its manifest two or three learning objectives"
        assert all(o.replace("|", r"\|") in row for o in objectives), f"{notebook}: run python tools/add_colab_badges.py"
        assert row.endswith(f"{about.colab_badge(f'notebooks/{notebook}.ipynb')} |")


def test_refresh_map_rewrites_a_stale_map_once(tmp_path):
    import shutil

    path = tmp_path / "00_start_here.ipynb"
    shutil.copy(NOTEBOOKS[0], path)
    assert refresh_map(path) is False, "the committed map is up to date"
    import nbformat

    nb = nbformat.read(path, 4)
    nb.cells[0].source = nb.cells[0].source.replace("; ", "; and ", 1)
    nbformat.write(nb, path)
    assert refresh_map(path) is True and refresh_map(path) is False
    assert _cells(path)[0]["source"] == _cells(NOTEBOOKS[0])[0]["source"]
