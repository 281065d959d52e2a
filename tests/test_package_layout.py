"""The package is shaped like the book: layers import only downward, modules stay small, docstrings say where they are taught."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sbert_workbook"
MAX_LINES = 300

#: Layer of each top-level name in the package: a module may import from its own layer or below.
LAYERS = {
    "settings": 0, "devices": 0, "published": 0, "exercises": 0,
    "data": 1,
    "encoding": 2,
    "evaluation": 3,
    "mlm": 4, "anisotropy": 4, "training": 4, "calibration": 4,
    "app": 5, "solutions": 5,
}
LESSONS = {"mlm", "anisotropy", "training", "calibration"}


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def top_name(path: Path) -> str:
    """``sbert_workbook/evaluation/sts.py`` → ``evaluation``; ``sbert_workbook/settings.py`` → ``settings``."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imported_top_names(path: Path) -> set[str]:
    """Which of the package's top-level names a module imports (absolute or relative, at any depth)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = path.relative_to(PACKAGE).parts[:-1][: len(path.relative_to(PACKAGE).parts) - node.level]
            parts = [*base, *(node.module or "").split(".")] if node.module else [*base]
            names.add(parts[0] if parts else (node.names[0].name))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sbert_workbook."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.ImportFrom) and node.module == "sbert_workbook":
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("sbert_workbook."))
    return {name for name in names if name in LAYERS}


def upward_imports(path: Path) -> list[str]:
    here = top_name(path)
    if here not in LAYERS:  # the package's own __init__ and __main__ re-export and dispatch
        return []
    wrong = []
    for name in sorted(imported_top_names(path)):
        if LAYERS[name] > LAYERS[here]:
            wrong.append(f"{path.relative_to(PACKAGE.parent)} ({here}, layer {LAYERS[here]}) imports {name} (layer {LAYERS[name]})")
        elif here in LESSONS and name in LESSONS and name != here:
            wrong.append(f"{path.relative_to(PACKAGE.parent)}: lesson {here} imports lesson {name}; move the shared piece lower")
    return wrong


def test_every_module_is_placed_in_a_layer():
    unplaced = [str(p) for p in modules() if top_name(p) not in LAYERS and p.parent != PACKAGE]
    unplaced += [str(p) for p in PACKAGE.glob("*.py") if top_name(p) not in {*LAYERS, "__init__", "__main__"}]
    assert not unplaced, f"give these a place in LAYERS: {unplaced}"


def test_no_import_goes_upward_in_the_layer_order():
    wrong = [line for path in modules() for line in upward_imports(path)]
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_the_layer_check_catches_an_upward_import(tmp_path, monkeypatch):
    fake = tmp_path / "sbert_workbook"
    (fake / "data").mkdir(parents=True)
    (fake / "data" / "bad.py").write_text("from sbert_workbook.training.fitting import fit\nfrom ..app import cli\n")
    (fake / "mlm").mkdir()
    (fake / "mlm" / "side.py").write_text("from sbert_workbook.anisotropy.metrics import mean_cosine\n")
    monkeypatch.setattr(f"{__name__}.PACKAGE", fake)
    assert len(upward_imports(fake / "data" / "bad.py")) == 2
    assert len(upward_imports(fake / "mlm" / "side.py")) == 1


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_is_small(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines (limit {MAX_LINES}): split it along its own sections"


@pytest.mark.parametrize("path", [p for p in modules() if p.name != "__main__.py"], ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_docstring_names_the_notebook_that_introduces_it(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert re.search(r"\b0\d\b|\b0\d_\w+|classroom", docstring), f"{path}: its docstring names no notebook"
