"""Start a lesson: write notebook NN's empty skeleton, every file a lesson has, each in the shape the workbook's tests
hold it to, then refresh what is made from them (docs/adding-a-lesson.md).

Use: ``python tools/new_lesson.py NN slug "Title" [--root DIR]`` (``--root``: a checkout other than this one). It writes
the files of :data:`WRITTEN` (refusing to overwrite any), adds a row or a line to those of :data:`EDITED`, then runs
``tools/add_colab_badges.py`` on the new notebook and ``00_start_here.ipynb`` (the badge, 00's map) and
``tools/package_map.py`` (docs/package.md's map of the rooms). The skeleton's one section teaches the cosine with one
exercise, its check and its reference solution; replace them with the lesson's own. tests/test_adding_a_lesson.py
builds a skeleton in a copy of the checkout and runs the layout, lesson, exercise and page tests on it.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.notebook_cells import hidden_cell, lesson_cells  # noqa: E402

#: The files a new lesson gets, ``NN`` and ``slug`` standing for its number and name.
WRITTEN = ("notebooks/NN_slug.ipynb", "sbert_workbook/lessons/manifests/nbNN.py", "sbert_workbook/lessons/nbNN/__init__.py",
           "sbert_workbook/lessons/nbNN/lesson.py", "sbert_workbook/solutions/nbNN.py", "sbert_workbook/checks/nbNN.py",
           "tests/test_lesson_NN.py")
#: The files that gain a row or a line (00's map and docs/package.md's map are refreshed by their tools).
EDITED = ("README.md", "docs/notebooks.md", "CHANGELOG.md", "notebooks/00_start_here.ipynb", "docs/package.md")


def named(path: str, number: str, slug: str) -> str:
    return path.replace("NN_slug", f"{number}_{slug}").replace("NN", number)


def files(number: str, slug: str, title: str) -> dict[str, str]:
    """The text of each file of :data:`WRITTEN` (the notebook apart), by its path."""
    notebook, n = f"{number}_{slug}", number
    return {
        f"sbert_workbook/lessons/manifests/nb{n}.py": f'''"""The manifest of ``{notebook}.ipynb``: what a student can do after it, its sizes per mode and the equation it
teaches.

Read by the notebook's set-up (``sbert_workbook.lessons.nb{n}.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.lessons.manifest import Equation, Manifest, Size

MANIFEST = Manifest(
    notebook="{notebook}",
    objectives=(
        "compute the cosine of two vectors by hand",
        "say what a cosine near 1, near 0 and near −1 means for two sentences",
    ),
    sizes={{
        "SENTENCES": Size("sentences the first section reads", quick=100, full=1000, suite=20, standin=20),
    }},
    equations=(
        Equation("cosine similarity", "cos(u, v) = u·v / (‖u‖ ‖v‖)", "sbert_workbook.evaluation.similarity:cosine_similarity",
                 "1"),
    ),
)
''',
        f"sbert_workbook/lessons/nb{n}/__init__.py": f'''"""Lesson {n}, {title} (``{notebook}.ipynb``): its set-up in :mod:`.lesson`; as the lesson grows, one module per group of
sections, named for what it teaches, each re-exported here.
"""
from sbert_workbook.lessons.nb{n}.lesson import NOTEBOOK, begin

__all__ = ["NOTEBOOK", "begin"]
''',
        f"sbert_workbook/lessons/nb{n}/lesson.py": f'''"""Lesson {n}, {title}: its set-up (``{notebook}.ipynb``).

``begin`` calls the shared set-up (mode, device, seed, sizes); load here, once, the models and data every section
reads, and return them in a ``Lesson`` subclass (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "{notebook}"


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson:
    """Set the lesson up: mode, device, seed and this mode's sizes from the manifest."""
    return begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
''',
        f"sbert_workbook/solutions/nb{n}.py": f'''"""Reference solutions for ``{notebook}.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.teaching.exercises import solution


@solution(wrong={{"the dot product, not divided by the two lengths": lambda u, v: float(np.dot(u, v))}})
def ex{n}_1(u, v) -> float:
    """cos(u, v) = u·v / (‖u‖ ‖v‖)."""
    return float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))


#: Model answers to the notebook's open questions, by exercise name.
DISCUSSION: dict[str, str] = {{}}
''',
        f"sbert_workbook/checks/nb{n}.py": f'''"""References of notebook {n}'s checks that would give the answer away if typed into the check cell (``{notebook}``)."""
from __future__ import annotations

from scipy.spatial.distance import cosine


def ex{n}_1(u, v) -> float:
    """The cosine of ``u`` and ``v``: one minus scipy's cosine distance."""
    return float(1 - cosine(u, v))
''',
        f"tests/test_lesson_{n}.py": f'''"""Lesson {n}'s calls (``{notebook}.ipynb``) on hand-made inputs: its check accepts the reference solution and rejects
each wrong answer."""
from __future__ import annotations

import numpy as np
import pytest

from sbert_workbook.checks import nb{n} as checks
from sbert_workbook.solutions import nb{n} as solutions

U, V = np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, 1.0])


def test_the_check_accepts_the_reference_solution():
    assert checks.ex{n}_1(U, V) == pytest.approx(solutions.ex{n}_1(U, V))


@pytest.mark.parametrize("mistake", list(solutions.ex{n}_1.wrong_answers))
def test_the_check_rejects_each_wrong_answer(mistake):
    assert solutions.ex{n}_1.wrong_answers[mistake](U, V) != pytest.approx(checks.ex{n}_1(U, V))
''',
    }


def notebook(number: str, slug: str, title: str) -> nbformat.NotebookNode:
    """The skeleton notebook: the standard opening, one core section with its equation, the code and an exercise."""
    path = f"notebooks/{number}_{slug}.ipynb"
    markdown = nbformat.v4.new_markdown_cell
    cells = lesson_cells(f"# {number} · {title}\n\nWhat a student sees and does in this notebook, in two or three sentences.",
                         number, notebook=path)
    cells += [
        markdown("## 1 · The cosine of two vectors (core)\n\nThe cosine of two vectors is their dot product divided by both "
                 "lengths:\n\n$$\\cos(u, v) = \\frac{u \\cdot v}{\\lVert u\\rVert \\, \\lVert v\\rVert}$$",
                 metadata={"tags": ["core"]}),
        nbformat.v4.new_code_cell("u = np.array([1.0, 2.0, 2.0])\nv = np.array([2.0, 0.0, 1.0])"),
        markdown("**Exercise 1.** Compute $\\cos(u, v)$ for the two vectors above."),
        nbformat.v4.new_code_cell(f'my_cosine = ...  # hint: u · v, then divide by both lengths\n'
                                  f'my_cosine = solution_or("ex{number}_1", my_cosine)', metadata={"tags": ["exercise"]}),
        hidden_cell(f"Check for exercise 1: against scipy's cosine distance, out of sight (sbert_workbook/checks/nb{number}.py)",
                    f'check("ex{number}_1", my_cosine, hint="Divide the dot product by the product of the two lengths.")',
                    ("check",)),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"},
                   "sbert_workbook": {"purpose": f"{title}: what the notebook is for, in one sentence (the book's index)."}}
    return nb


def add_readme_row(text: str, notebook: str, title: str) -> str:
    """README's notebook table with the lesson's row after the last one."""
    rows = [m for m in re.finditer(r"^\| `\d\d_\w+` \|.*\n", text, re.M)]
    if not rows:
        raise ValueError("README.md has no notebook table (rows starting '| `NN_topic` |')")
    at = rows[-1].end()
    return text[:at] + f"| `{notebook}` | {title}: what a student sees and does, in one line |\n" + text[at:]


def add_notebooks_paragraph(text: str, number: str, title: str) -> str:
    """docs/notebooks.md with the lesson's paragraph after the last lesson's."""
    last = list(re.finditer(r"^- \*\*\d\d · .*\n(?:  .*\n)*", text, re.M))
    if not last:
        raise ValueError("docs/notebooks.md has no lesson paragraphs (lines starting '- **NN · Title**')")
    at = last[-1].end()
    return text[:at] + f"- **{number} · {title}** — what the lesson teaches and with which of the package's functions.\n" + text[at:]


def add_changelog_line(text: str, notebook: str, title: str) -> str:
    """CHANGELOG.md with the lesson under Unreleased, Added."""
    head = "## [Unreleased]\n"
    if head not in text:
        raise ValueError("CHANGELOG.md has no '## [Unreleased]' section")
    start = text.index(head) + len(head)
    end = text.find("\n## ", start)
    section = text[start:end if end >= 0 else len(text)]
    line = f"- Notebook `{notebook}`: {title}.\n"
    if "### Added\n" in section:
        section = section.replace("### Added\n\n", f"### Added\n\n{line}", 1)
    else:
        section = f"\n### Added\n\n{line}" + section
    return text[:start] + section + text[end if end >= 0 else len(text):]


def new_lesson(number: str, slug: str, title: str, root: Path = ROOT) -> list[str]:
    """Write the skeleton of lesson ``number`` into ``root``; the paths written and edited."""
    if not re.fullmatch(r"\d\d", number) or not re.fullmatch(r"[a-z][a-z0-9_]*", slug):
        raise ValueError(f"give a two-digit number and a lower-case slug (10 your_topic), got {number!r} {slug!r}")
    written = [named(path, number, slug) for path in WRITTEN]
    taken = [path for path in written if (root / path).exists()] + [
        str(p.relative_to(root)) for p in (root / "notebooks").glob(f"{number}_*.ipynb")]
    if taken:
        raise FileExistsError(f"lesson {number} exists already here: {', '.join(sorted(set(taken)))}; pick the next number")
    for path, text in files(number, slug, title).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    nbformat.write(notebook(number, slug, title), root / written[0])
    for path, edit in (("README.md", lambda t: add_readme_row(t, f"{number}_{slug}", title)),
                       ("docs/notebooks.md", lambda t: add_notebooks_paragraph(t, number, title)),
                       ("CHANGELOG.md", lambda t: add_changelog_line(t, f"{number}_{slug}", title))):
        (root / path).write_text(edit((root / path).read_text(encoding="utf-8")), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, str(root / "tools" / "add_colab_badges.py"), str(root / written[0]),
                    str(root / "notebooks" / "00_start_here.ipynb")], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, str(root / "tools" / "package_map.py")], cwd=root, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return written + list(EDITED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("number", help="two digits: the first number no notebook has (10)")
    parser.add_argument("slug", help="the notebook's name after the number, lower case with underscores (your_topic)")
    parser.add_argument("title", help='the notebook\'s title ("Your topic")')
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to write into (default: this one)")
    args = parser.parse_args(argv)
    for path in new_lesson(args.number, args.slug, args.title, args.root.resolve()):
        print(path)
    print("Next: docs/adding-a-lesson.md's checklist, from the manifest's objectives to the measurements.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
