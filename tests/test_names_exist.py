"""Every path, module and notebook section that a reader's page names exists (README, TEACHING, docs/, notebooks).

A page that sends a reader to ``sbert_workbook/flow.py`` or to "05 §13" when neither exists leads nowhere. The test
collects the names with three patterns and fails on any that does not resolve; ``test_a_planted_wrong_name_is_caught``
shows each pattern catching a wrong one.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A path under one of the repository's own folders (placeholders such as nbNN and globs are left alone).
PATH = re.compile(r"(?<![\w/.-])((?:sbert_workbook|tools|tests|docs|benchmarks|classroom|notebooks|\.ci)/[\w./-]*\w)")
#: A section of a numbered notebook: "05 §7.1", "03 §9".
SECTION = re.compile(r"\b(0[0-6]) §(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)(?: ·|\. )", re.M)
#: A dotted name in the package: `sbert_workbook.calibration.flow.Glow`.
DOTTED = re.compile(r"\b(sbert_workbook(?:\.[A-Za-z_]\w*)+)")


def pages() -> dict[str, str]:
    """Every text a reader sees: the Markdown pages, and each notebook's cells (markdown, code comments and strings)."""
    found = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
             for p in [ROOT / "README.md", ROOT / "TEACHING.md", *sorted((ROOT / "docs").glob("*.md"))]}
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "classroom").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        found[str(notebook.relative_to(ROOT))] = "\n".join("".join(cell["source"]) for cell in cells)
    return found


def notebook_sections() -> dict[str, set[str]]:
    sections = {}
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        sections[notebook.name[:2]] = {m.group(1) for cell in cells if cell["cell_type"] == "markdown"
                                       for m in HEADING.finditer("".join(cell["source"]))}
    return sections


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module of the package, or an attribute chain of one."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute, None)
        return found is not None
    return False


def missing_names(texts: dict[str, str]) -> list[str]:
    sections, wrong = notebook_sections(), []
    for page, text in texts.items():
        wrong += [f"{page}: {name}" for name in sorted(set(DOTTED.findall(text))) if not resolves(name)]
        for path in sorted(set(PATH.findall(text))):
            if "NN" in path or "*" in path:
                continue
            candidate = ROOT / path.rstrip("/.")
            if not (candidate.exists() or candidate.with_suffix(".py").exists()):
                wrong.append(f"{page}: {path}")
        for notebook, section in sorted(set(SECTION.findall(text))):
            if notebook in sections and section not in sections[notebook] and section.split(".")[0] not in sections[notebook]:
                wrong.append(f"{page}: {notebook} §{section}")
    return wrong


def test_every_named_path_and_section_exists():
    wrong = missing_names(pages())
    assert not wrong, "these names lead nowhere:\n" + "\n".join(wrong)


def test_a_planted_wrong_name_is_caught():
    planted = {"planted.md": "See `sbert_workbook/flow.py`, tools/no_such_tool.py and 05 §13, beside 05 §7, "
                             "`sbert_workbook/calibration/flow.py`, `sbert_workbook.calibration.flow.Glow` and "
                             "`sbert_workbook.flow_training`."}
    assert missing_names(planted) == ["planted.md: sbert_workbook.flow_training", "planted.md: sbert_workbook/flow.py",
                                      "planted.md: tools/no_such_tool.py", "planted.md: 05 §13"]
