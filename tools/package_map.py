"""Write docs/package.md's map of the rooms: each room's layer, its modules and the rooms that import it.

Use: ``python tools/package_map.py`` (rewrites the block between ``<!-- generated: rooms … -->`` and
``<!-- end generated: rooms -->``); ``--check`` only says whether the page is up to date (tests/test_package_layout.py);
``--docstrings`` also rewrites the ``Imported by: …`` sentence closing each room's ``__init__`` docstring.
Everything is computed from the import graph with tests/test_package_layout.py's own functions (its ``LAYERS``, its
reading of every import, function-level ones included), so the page, the docstrings and the layer test read one graph.
The map covers every package the notebooks (``00_start_here.ipynb`` on) import through.
"""
from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
import test_package_layout as layout  # noqa: E402
from tools.generated_page import check_or_write  # noqa: E402

PAGE = ROOT / "docs" / "package.md"
BLOCK = re.compile(r"(<!-- generated: rooms [^>]*-->\n)(?P<body>.*?)(<!-- end generated: rooms -->)", re.S)
IMPORTED_BY = re.compile(r"Imported by: [^.]*\.")
WIDTH = 120  #: the docstrings' line length
#: How the package's own ``__init__`` (the public names, ``sbert_workbook.load_encoder`` …) and ``__main__`` are named
#: as importers.
PACKAGE_FILES = {"__init__": "the package's __init__", "__main__": "the package's __main__"}


def room_folder(room: str) -> Path:
    """Where a room lives: its folder under ``sbert_workbook`` (``manifests``: ``lessons/manifests``), or its one module."""
    package = layout.PACKAGE
    if room == "manifests":
        return package / "lessons" / "manifests"
    return package / room if (package / room).is_dir() else package / f"{room}.py"


def rooms() -> list[str]:
    """Every name in the layer order, lowest layer first (then by name)."""
    return sorted(layout.LAYERS, key=lambda room: (layout.LAYERS[room], room))


def importers() -> dict[str, set[str]]:
    """``{room: the rooms whose modules import it}`` (a room's imports of itself left out)."""
    found = {room: set() for room in layout.LAYERS}
    for path in layout.modules():
        here = layout.top_name(path)
        for name in layout.imported_top_names(path):
            if name != here and name in found:
                found[name].add(PACKAGE_FILES.get(here, here))
    return found


def listed(names: set[str]) -> str:
    """``a, b and c`` in the layer order, the package's ``__init__`` and ``__main__`` last."""
    last = sorted(names & set(PACKAGE_FILES.values()))
    ordered = sorted(names - set(last), key=lambda room: (layout.LAYERS[room], room)) + last
    return ", ".join(ordered[:-1]) + " and " + ordered[-1] if len(ordered) > 1 else "".join(ordered)


def imported_by_sentence(room: str, found: dict[str, set[str]] | None = None) -> str:
    """The sentence that closes ``room``'s ``__init__`` docstring: ``Imported by: a, b and c.``"""
    names = (found or importers())[room]
    return f"Imported by: {listed(names)}." if names else "Imported by: nothing in the package."


def modules_of(room: str) -> str:
    folder = room_folder(room)
    if folder.suffix == ".py":
        return "(one module)"
    names = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    names += sorted(f"{p.name}/" for p in folder.iterdir() if (p / "__init__.py").is_file() and p.name != "manifests")
    return ", ".join(names)


def block() -> str:
    found = importers()
    rows = ["| room | layer | modules | imported by |", "|---|---|---|---|"]
    for room in rooms():
        where = room_folder(room).relative_to(layout.PACKAGE).as_posix() + ("/" if room_folder(room).is_dir() else "")
        rows.append(f"| `{where}` | {layout.LAYERS[room]} | {modules_of(room)} | {listed(found[room]) or 'nothing'} |")
    return "\n".join(rows)


def render(text: str) -> str:
    if not BLOCK.search(text):
        raise KeyError(f"{PAGE} has no '<!-- generated: rooms -->' block")
    return BLOCK.sub(lambda match: f"{match[1]}{block()}\n{match[3]}", text)


def room_inits() -> dict[str, Path]:
    """Every room that is a package: its ``__init__.py``."""
    return {room: room_folder(room) / "__init__.py" for room in rooms() if room_folder(room).is_dir()}


def with_sentence(source: str, sentence: str) -> str:
    """An ``__init__``'s source with its docstring's ``Imported by`` sentence made ``sentence`` (added at its end)."""
    start = source.index('"""') + 3
    end = source.index('"""', start)
    doc = source[start:end]
    sentence = "\n".join(textwrap.wrap(sentence, WIDTH))
    doc = IMPORTED_BY.sub(sentence, doc, count=1) if IMPORTED_BY.search(doc) else doc.rstrip() + f"\n{sentence}\n"
    return source[:start] + doc + source[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/package.md's map is not up to date")
    parser.add_argument("--docstrings", action="store_true", help="also rewrite each room's 'Imported by:' sentence")
    args = parser.parse_args(argv)
    stale = check_or_write(PAGE, render, "python tools/package_map.py", args.check)
    if args.check:
        return stale
    if args.docstrings:
        found = importers()
        for room, init in room_inits().items():
            source = init.read_text(encoding="utf-8")
            new = with_sentence(source, imported_by_sentence(room, found))
            if new != source:
                init.write_text(new, encoding="utf-8")
                print(f"wrote {init.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
