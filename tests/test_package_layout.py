"""The package is shaped like the book: layers import only downward, modules stay small, docstrings say where they are taught."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sbert_workbook"
MAX_LINES = 300

#: Layer of each top-level name in the package: a module may import from its own layer or below.
LAYERS = {
    "settings": 0, "devices": 0, "optimizer": 0, "published": 0, "teaching": 0, "heap": 0, "about": 0,
    "data": 1,
    "encoding": 2,
    "evaluation": 3,
    "mlm": 4, "anisotropy": 4, "training": 4, "calibration": 4,
    "environment": 5, "solutions": 5, "checks": 5, "diagnosis": 5, "cost": 5,
    "runner": 6,
    "classroom": 7, "book": 7,
    "installs": 8, "cli": 8,
    "lessons": 9,
    # a lesson's manifest is data (sizes, equations, paper links; 04's reads a model size from training): it sits just
    # above what it reads, so 07's diagnosis and the command line take 07's sizes from it and write no copy of their own
    "manifests": 4,
    # what a run will cost: work declared in the manifests, priced on this machine; doctor and classroom read it
    "forecast": 4,
}
LESSONS = {"mlm", "anisotropy", "training", "calibration"}


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def top_name(path: Path) -> str:
    """``sbert_workbook/evaluation/sts.py`` → ``evaluation``; ``sbert_workbook/settings.py`` → ``settings``;
    ``sbert_workbook/lessons/manifests/nb07.py`` and ``lessons/manifest.py`` → ``manifests``."""
    parts = path.relative_to(PACKAGE).parts
    if parts[:2] in {("lessons", "manifests"), ("lessons", "manifest.py")}:
        return "manifests"
    return parts[0].removesuffix(".py")


def imported_top_names(path: Path) -> set[str]:
    """Which of the package's top-level names a module imports (absolute or relative, at any depth)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = path.relative_to(PACKAGE).parts[:-1][: len(path.relative_to(PACKAGE).parts) - node.level]
            parts = [*base, *(node.module or "").split(".")] if node.module else [*base]
            names.add(parts[0] if parts else (node.names[0].name))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sbert_workbook.lessons.manifest"):
            names.add("manifests")
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
    (fake / "data" / "bad.py").write_text("from sbert_workbook.training.fitting import fit\nfrom ..classroom import room\n")
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
    assert re.search(r"\b0\d\b|\b\d\d_[a-z]\w*|classroom", docstring), f"{path}: its docstring names no notebook"


# ----------------------------------------------------------------------------- no import cycle
def module_name(path: Path) -> str:
    """``sbert_workbook/evaluation/sts.py`` → ``sbert_workbook.evaluation.sts`` (a package: its ``__init__``)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``path`` imports anywhere (at the top or inside a function), absolute or relative."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            candidates = [f"{module}.{alias.name}" for alias in node.names] + [module]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(name for name in candidates if name in known)
    return found - {module_name(path)}


def import_cycles(paths: list[Path]) -> list[list[str]]:
    """Every cycle of the import graph between ``paths`` (as module names, each cycle once)."""
    known = {module_name(path) for path in paths}
    graph = {module_name(path): imported_modules(path, known) - {"sbert_workbook"} for path in paths}
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target, [*stack, target])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_no_import_cycle():
    cycles = import_cycles(modules())
    assert not cycles, "import cycles (move the shared piece into the lower module):\n" + "\n".join(" → ".join(c) for c in cycles)


def test_the_cycle_check_catches_a_cycle_through_a_function_level_import(tmp_path):
    fake = tmp_path / "sbert_workbook"
    (fake / "runner").mkdir(parents=True)
    (fake / "runner" / "one.py").write_text("from sbert_workbook.runner.two import X\n")
    (fake / "runner" / "two.py").write_text("def f():\n    from sbert_workbook.runner import one\n")
    (fake / "runner" / "three.py").write_text("from . import one\n")
    paths = sorted(fake.rglob("*.py"))
    assert [sorted(cycle[:-1]) for cycle in import_cycles_under(fake, paths)] == [["sbert_workbook.runner.one", "sbert_workbook.runner.two"]]


def import_cycles_under(root: Path, paths: list[Path]) -> list[list[str]]:
    global PACKAGE
    saved, PACKAGE = PACKAGE, root
    try:
        return import_cycles(paths)
    finally:
        PACKAGE = saved


# ----------------------------------------------------------------------------- the layout tree (docs/package.md)
LAYOUT_PAGE = PACKAGE.parent / "docs" / "package.md"
#: The pages a reader opens: every dotted module name they quote must exist.
READER_PAGES = [PACKAGE.parent / "README.md", PACKAGE.parent / "TEACHING.md", *sorted((PACKAGE.parent / "docs").glob("*.md"))]


def readme_layout() -> dict[str, set[str]]:
    """docs/package.md's layout tree: ``{folder or "": module names}`` (parenthesised notes and → pointers dropped)."""
    text = LAYOUT_PAGE.read_text(encoding="utf-8")
    block = text[text.index("```\nsbert_workbook/\n") + 4:]
    block = block[: block.index("```")]
    tree, folder = {"": set()}, ""
    for line in block.splitlines()[1:]:
        if re.match(r"^  \S", line):
            name, _, rest = line.strip().partition(" ")
            if name.endswith("/"):
                folder, tree[name[:-1]] = name[:-1], set()
            else:
                folder = ""
                tree[""].add(name.removesuffix(".py"))
                continue
        else:
            rest = line
        listed = re.sub(r"\([^()]*\)", "", rest.split("→")[0])
        tree[folder].update(word.strip() for word in listed.split(",") if word.strip())
    return tree


def package_layout() -> dict[str, set[str]]:
    tree = {"": {p.stem for p in PACKAGE.glob("*.py")}}
    for folder in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()):
        tree[folder.name] = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    return tree


def test_readme_names_every_module_and_only_modules_that_exist():
    readme, package = readme_layout(), package_layout()
    # solutions/, checks/ and lessons/: one module per notebook, written nbNN in the README
    for folder in ("solutions", "checks", "lessons"):
        readme[folder] = {m for m in readme.get(folder, set()) if m != "nbNN"} | \
            ({m for m in package.get(folder, set()) if re.fullmatch(r"nb\d\d", m)} if "nbNN" in readme.get(folder, set()) else set())
    missing = [f"{folder}/{name}" if folder else name for folder, names in package.items() for name in sorted(names - readme.get(folder, set()))]
    gone = [f"{folder}/{name}" if folder else name for folder, names in readme.items() for name in sorted(names - package.get(folder, set()))]
    assert not missing and not gone, (f"docs/package.md's layout tree misses {missing} and names {gone}, which do not exist: "
                                       "update the tree")


def test_readme_dotted_module_names_exist():
    # one reading of a dotted name, shared with the prose check
    from test_names_exist import resolves

    names = {name for page in READER_PAGES for name in re.findall(r"`(sbert_workbook(?:\.\w+)+)", page.read_text(encoding="utf-8"))}
    wrong = [name for name in sorted(names) if not resolves(name)]  # the longest prefix that imports, then attributes
    assert not wrong, f"README, TEACHING or docs/ name modules that do not exist: {wrong}"


# ----------------------------------------------------------------------------- who imports each room (docs/package.md)
#: Rooms whose ``__init__`` another piece of work holds for now: their "Imported by" sentence joins with it.
SENTENCE_PENDING = {"forecast"}


def package_map():
    """tools/package_map.py, which computes the rooms' map from this module's functions."""
    sys.path.insert(0, str(PACKAGE.parent))
    from tools import package_map as tool

    return tool


def test_every_room_says_who_imports_it():
    tool = package_map()
    found = tool.importers()
    wrong = []
    for room, init in tool.room_inits().items():
        docstring = " ".join((ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").split())
        if room not in SENTENCE_PENDING and tool.imported_by_sentence(room, found) not in docstring:
            wrong.append(f"{init.relative_to(PACKAGE.parent)}: should say '{tool.imported_by_sentence(room, found)}'")
    assert not wrong, "rooms that do not say who imports them (python tools/package_map.py --docstrings):\n" + "\n".join(wrong)


def test_package_map_is_up_to_date():
    text = LAYOUT_PAGE.read_text(encoding="utf-8")
    assert package_map().render(text) == text, "docs/package.md's map of the rooms is stale: run python tools/package_map.py"


def test_the_room_sentence_is_written_once_and_in_place():
    tool = package_map()
    source = '"""A room.\n\nIt holds a and b. Imported by: x and y. Then more.\n"""\nimport os\n'
    fresh = tool.with_sentence(source, "Imported by: z.")
    assert fresh == source.replace("Imported by: x and y.", "Imported by: z.")
    assert tool.with_sentence('"""A room."""\n', "Imported by: z.") == '"""A room.\nImported by: z.\n"""\n'


# ----------------------------------------------------------------------------- no private name imported across modules
#: Private imports not yet made public (the set empties as each is fixed).


def private_imports(paths: list[Path]) -> list[str]:
    """'path imports _a, _b from module' for every import of a private name from another of the package's modules."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("sbert_workbook")):
                private = [alias.name for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
                if private:
                    module = "." * node.level + (node.module or "")
                    found.append(f"{path.relative_to(PACKAGE.parent).as_posix()} imports {', '.join(private)} from {module}")
    return found


def test_no_module_imports_another_modules_private_names():
    found = sorted(set(private_imports(modules())))
    assert not found, "make the name public where it is defined (or move the piece):\n" + "\n".join(found)


def test_the_private_import_check_catches_one(tmp_path, monkeypatch):
    fake = tmp_path / "sbert_workbook"
    (fake / "data").mkdir(parents=True)
    (fake / "data" / "one.py").write_text("from sbert_workbook.data.two import _hidden, shown\nfrom .two import __version__\n")
    (fake / "data" / "three.py").write_text("from .two import _other\n")
    monkeypatch.setattr(f"{__name__}.PACKAGE", fake)
    assert private_imports([fake / "data" / "one.py", fake / "data" / "three.py"]) == [
        "sbert_workbook/data/one.py imports _hidden from sbert_workbook.data.two", "sbert_workbook/data/three.py imports _other from .two"]
