"""Every reference resolves: each relative Markdown link (and its #anchor) in the README, TEACHING, the CHANGELOG,
docs/ and the notebooks; each section of the README or TEACHING named in quotes, and each repository path, in the
pages, the code's comments and docstrings, pyproject, the constraints, the scripts and binder/.

tests/test_names_exist.py checks the paths, modules and notebook sections the reader's pages name; this test follows
the links between them and what the code tells its reader to go and read. Each pattern is shown catching a planted
wrong reference.
"""
from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A Markdown link or image, ``[text](target)``: the target up to a space or the closing parenthesis.
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: The README or TEACHING, then a section's name in quotes, or capitalised and unquoted before ")", "." or ";".
QUOTED_SECTION = re.compile(r"\b(README|TEACHING)(?:\.md)?(?:'s)?,?\s+(?:section\s+)?[\"“']([^\"”'\n]{2,60})[\"”']")
BARE_SECTION = re.compile(r"\b(README|TEACHING)(?:\.md)?,\s+([A-Z][a-z]+(?: [a-z]+){0,4})(?=[).;])")
#: A path in one of the repository's own folders (placeholders such as nbNN and globs are left alone).
PATH = re.compile(r"(?<![\w/.-])((?:sbert_workbook|tools|tests|docs|benchmarks|classroom|notebooks|binder|\.ci)/"
                  r"[\w./-]*\w\.(?:py|md|json|txt|ipynb|sh|toml|yaml|yml))\b")
MARKDOWN_PAGES = ["README.md", "TEACHING.md", "CHANGELOG.md", *sorted(p.relative_to(ROOT).as_posix()
                                                                    for p in (ROOT / "docs").glob("*.md"))]
#: The code and scripts whose comments are read: what git tracks.
CODE_FOLDERS = ("sbert_workbook/", "tools/", "tests/", "benchmarks/", ".ci/", "binder/")
CODE_FILES = ("pyproject.toml", "constraints.txt", "constraints-colab.txt", "workbook")


def code_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    return [ROOT / name for name in sorted(filter(None, listed.split("\0")))
            if (name.startswith(CODE_FOLDERS) and not name.startswith("tests/fixtures/") and "." not in name.rsplit("/", 1)[-1]
                or name.endswith(".py") and name.startswith(CODE_FOLDERS) or name in CODE_FILES)
            and (ROOT / name).is_file() and not name.endswith((".json", ".jsonl", ".csv", ".tsv", ".npy", ".parquet"))]


def comments_and_docstrings(path: Path) -> str:
    """What a Python file says to its reader: its comments and docstrings (string literals are data); other files whole."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return text
    said = [token.string for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            said.append(ast.get_docstring(node) or "")
    return "\n".join(said)


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return [line.lstrip("#").strip() for line in text.splitlines() if re.match(r"#{1,6} ", line)]


def anchors(path: Path) -> set[str]:
    return {slug(heading) for heading in headings(path)}


def notebook_markdown(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def link_sources() -> dict[Path, str]:
    """Each page whose links are followed, with the text to read them from (a notebook's markdown cells)."""
    pages = {ROOT / name: (ROOT / name).read_text(encoding="utf-8") for name in MARKDOWN_PAGES}
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "classroom").glob("*.ipynb")):
        pages[notebook] = notebook_markdown(notebook)
    return pages


def broken_links(pages: dict[Path, str]) -> tuple[int, list[str]]:
    """(links followed, what is wrong with each that does not resolve)."""
    followed, wrong = 0, []
    for page, text in pages.items():
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold commands, not links
        for target in LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...: not this repository's
                continue
            followed += 1
            file_part, _, anchor = target.partition("#")
            resolved = (page.parent / file_part).resolve() if file_part else page
            name = page.relative_to(ROOT).as_posix()
            if not resolved.exists():
                wrong.append(f"{name}: ({target}) -> {file_part} does not exist")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                wrong.append(f"{name}: ({target}) -> {resolved.name} has no heading #{anchor}")
    return followed, wrong


def section_resolves(document: str, name: str) -> bool:
    """Whether ``document`` (README or TEACHING) has a heading named ``name``: the whole heading, the part after its
    "Appendix X · ", or its "Appendix X"."""
    wanted = name.strip().lower()
    for heading in headings(ROOT / f"{document}.md"):
        heading = re.sub(r"[`*]", "", heading).lower()
        if wanted in (heading, heading.split(" · ", 1)[-1], heading.split(" · ", 1)[0]):
            return True
    return False


def reference_sources() -> tuple[dict[str, str], dict[str, str]]:
    """The texts that may name a README/TEACHING section (the pages, and the code whole: a message is a reference too),
    and those whose repository paths are followed (the pages, and the comments and docstrings of all but the tests,
    which name planted paths on purpose). This file's own planted references are left out."""
    pages = {page.relative_to(ROOT).as_posix(): text for page, text in link_sources().items()}
    code = [path for path in code_files() if path.resolve() != Path(__file__).resolve()]
    sections = {**pages, **{p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8", errors="replace") for p in code}}
    paths = {**pages, **{p.relative_to(ROOT).as_posix(): comments_and_docstrings(p) for p in code
                         if not p.relative_to(ROOT).as_posix().startswith("tests/")}}
    return sections, paths


def broken_references(texts: dict[str, str], paths: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """(named sections in ``texts`` and paths in ``paths`` (``texts`` by default) followed, those that lead nowhere)."""
    followed, wrong = 0, []
    for name, text in texts.items():
        for pattern in (QUOTED_SECTION, BARE_SECTION):
            for document, section in pattern.findall(text):
                followed += 1
                if not section_resolves(document, section):
                    wrong.append(f"{name}: {document}, {section!r} is no section of {document}.md")
    for name, text in (texts if paths is None else paths).items():
        for path in sorted(set(PATH.findall(text))):
            if "NN" in path or "*" in path:
                continue
            followed += 1
            writes_it = f'"{Path(path).name}"' in texts.get(name, "")  # a tool naming the file it writes (or will)
            if not (ROOT / path).exists() and not writes_it:
                wrong.append(f"{name}: {path} does not exist")
    return followed, wrong


def test_every_relative_link_and_anchor_resolves():
    followed, wrong = broken_links(link_sources())
    print(f"{followed} relative links followed, {len(wrong)} broken")
    assert followed > 50, "the scan found almost no links: is it still reading the pages?"
    assert not wrong, "these links lead nowhere:\n" + "\n".join(wrong)


def test_every_named_section_and_path_in_code_and_pages_resolves():
    followed, wrong = broken_references(*reference_sources())
    print(f"{followed} named sections and paths followed, {len(wrong)} broken")
    assert followed > 100
    assert not wrong, "these references lead nowhere:\n" + "\n".join(wrong)


def test_a_planted_wrong_reference_is_caught(tmp_path):
    page = ROOT / "docs" / "planted.md"
    planted = {page: "[load](docs/classroom_load.md) [ok](classroom_load.md) [gone](no_such.md) "
                     "[anchor](measurements.md#no-such-heading) [fine](measurements.md#installing-the-quick-start)"}
    followed, wrong = broken_links(planted)
    assert followed == 5 and len(wrong) == 3, wrong
    texts = {"x.py": "# see README, \"Reliability\"; (README, 'Data'); README \"Quick start\"; TEACHING.md's "
                     "\"What a laptop needs\"; TEACHING.md, \"Appendix D\"; (README, Quick start); README, \"Colab\"; "
                     "tools/no_such.py; docs/measurements.md"}
    followed, wrong = broken_references(texts)
    assert followed == 9 and sorted(w.split(": ", 1)[1] for w in wrong) == [
        "README, 'Colab' is no section of README.md", "README, 'Data' is no section of README.md",
        "README, 'Reliability' is no section of README.md", "tools/no_such.py does not exist"], wrong
    writer = {"tools/w.py": 'OUT = ROOT / "docs" / "w.json"  # docs/w.json: written by this tool'}
    assert broken_references(writer, {"tools/w.py": "docs/w.json: written by this tool"}) == (1, [])
    module = tmp_path / "m.py"
    module.write_text('"""See README, "Data"."""\nPLANTED = "README, \'Reliability\'"  # and tools/no_such.py\n')
    assert "Data" in comments_and_docstrings(module) and "Reliability" not in comments_and_docstrings(module)


def test_github_slugs_are_what_github_makes():
    assert slug("A graded class: the release, not the repository") == "a-graded-class-the-release-not-the-repository"
    assert slug("The environment: `binder/`") == "the-environment-binder"
    assert slug("Appendix D · Model answers, exercises and the classroom apps") == \
        "appendix-d--model-answers-exercises-and-the-classroom-apps"
