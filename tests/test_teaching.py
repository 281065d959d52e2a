"""TEACHING.md, the teacher's guide: every ``##`` section is tagged core or optional, the guide lists them as the
notebooks do, its generated blocks are up to date, and the 90-minute path fits with time to spare."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tools/ is not part of the installed package
from tools import section_times, teaching_guide  # noqa: E402
from tools.teaching_facts import PATH_MUST_TEACH, SESSION_MINUTES, SLACK_MINUTES  # noqa: E402

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
GUIDE = REPO / "TEACHING.md"
FIX = "run python tools/teaching_guide.py"


def headings(notebook: Path) -> list[tuple[str, list[str], list[str]]]:
    """(cell id, its ``## `` lines, its tags) for every markdown cell, read straight from the JSON."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] == "markdown":
            lines = [line.rstrip("\n") for line in "".join(cell["source"]).splitlines() if line.startswith("## ")]
            found.append((cell.get("id"), lines, cell.get("metadata", {}).get("tags", [])))
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_section_heading_has_one_tag_and_its_visible_word(notebook):
    problems = []
    for cell_id, lines, tags in headings(notebook):
        kinds = [tag for tag in tags if tag in ("core", "optional")]
        if not lines:
            if kinds:
                problems.append(f"cell {cell_id} has no ## heading but is tagged {kinds}")
            continue
        if len(lines) != 1:
            problems.append(f"cell {cell_id} holds {len(lines)} ## headings {lines}: one section per cell")
        elif len(kinds) != 1:
            problems.append(f"{lines[0]!r} (cell {cell_id}) carries tags {kinds}: give it exactly one of core/optional")
        elif not lines[0].endswith(f" ({kinds[0]})"):
            problems.append(f"{lines[0]!r} (cell {cell_id}) is tagged {kinds[0]!r}: end the heading with '({kinds[0]})'")
    assert not problems, f"{notebook.name}:\n" + "\n".join(problems)


def guide_sections() -> list[tuple[str, str, str]]:
    """(notebook, title, tag) rows of TEACHING.md's generated section table."""
    text = GUIDE.read_text(encoding="utf-8")
    block = text.split("<!-- generated: sections", 1)[1].split("<!-- end generated: sections -->", 1)[0]
    rows = [[part.strip().replace("\\|", "|") for part in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            for line in block.splitlines()[1:]
            if line.startswith("| ") and not line.startswith("| notebook")]
    return [(row[0], row[1], row[2]) for row in rows if row[2] != "setup"]


def test_guide_lists_every_section_with_the_notebooks_tag():
    expected = []
    for notebook in NOTEBOOKS:
        for _, lines, tags in headings(notebook):
            if lines:
                title = re.sub(r"\s*\((core|optional)\)$", "", lines[0][3:].strip())
                expected.append((notebook.stem, title, next((t for t in tags if t in ("core", "optional")), "?")))
    assert guide_sections() == expected, f"TEACHING.md's section table differs from the notebooks' headings: {FIX}"


def test_guide_is_up_to_date_with_its_generator():
    text = GUIDE.read_text(encoding="utf-8")
    assert "<!-- generated: path-90" in text and "<!-- generated: key-numbers" in text
    assert teaching_guide.render(text) == text, f"TEACHING.md's generated blocks are stale: {FIX}"


def test_the_90_minute_path_teaches_the_flow_and_the_plane_and_leaves_slack():
    times = teaching_guide.load_times()
    rows = teaching_guide.core_path(teaching_guide.sections(times), times)
    total = teaching_guide.core_total(rows)
    assert total <= SESSION_MINUTES - SLACK_MINUTES, (
        f"the 90-minute path needs {total:.1f} min, leaving less than {SLACK_MINUTES} of {SESSION_MINUTES} for set-up "
        "and questions: tag a section 'optional' (cell tag and heading word) or leave a subsection for reading "
        "(tools/teaching_facts.py PATH_LEAVES_FOR_READING), then " + FIX)
    taught = {(row.notebook, s.number) for row in rows for s in row.taught}
    assert set(PATH_MUST_TEACH) <= taught, f"the path leaves out {sorted(set(PATH_MUST_TEACH) - taught)}"
    all_sections = teaching_guide.sections(times)
    sessions = teaching_guide.sessions(all_sections, times)
    assert max(minutes for *_, minutes in sessions) <= SESSION_MINUTES, "a session runs past 90 minutes"
    # as few as possible: each session plus the next one's first section would run past 90 minutes, unless the next
    # one opens a lesson taught in a session of its own (08)
    firsts = [all_sections.index(first) for first, *_ in sessions]
    for start, following in zip(firsts, firsts[1:]):
        assert (teaching_guide.session_minutes(all_sections, start, following + 1) > SESSION_MINUTES
                or teaching_guide.starts_own_session(all_sections, following))
    own = [first for first, *_ in sessions if teaching_guide.starts_own_session(all_sections, all_sections.index(first))]
    assert [first.notebook for first in own] == [n.stem for n in NOTEBOOKS if teaching_guide.own_session(n.stem)]
    assert len(sessions) - len(own) <= 4, "all sections need more than four sessions of 90 minutes"
    assert not {row.notebook for row in rows} & {first.notebook for first in own}, "an own-session lesson is on the path"


def test_every_section_has_a_measured_run_time():
    missing = [f"{s.notebook}: {s.title}" for s in teaching_guide.sections() if s.run_s is None]
    assert not missing, ("docs/section_times.json has no run time for these sections (renamed or new?): run "
                         "python tools/section_times.py --only NN, then " + FIX + "\n" + "\n".join(missing))


def test_section_times_sums_the_code_cells_under_each_heading():
    def code(start: str, end: str):
        return nbformat.v4.new_code_cell("pass", metadata={"execution": {"iopub.execute_input": start,
                                                                         "shell.execute_reply": end}})
    nb = nbformat.v4.new_notebook(cells=[
        code("2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:01.500000Z"),
        nbformat.v4.new_markdown_cell("## 1 · First (core)\n\ntext\n### 1.1 · a subsection"),
        code("2026-01-01T00:00:02Z", "2026-01-01T00:00:04Z"), code("2026-01-01T00:00:04Z", "2026-01-01T00:01:04Z"),
        nbformat.v4.new_markdown_cell("## 2 · Second (optional)"), nbformat.v4.new_markdown_cell("prose only"),
    ])
    assert section_times.seconds_per_section(nb) == {section_times.BEFORE_FIRST_SECTION: 1.5, "1 · First": 62.0,
                                                     "2 · Second": 0.0}


def test_readme_and_start_here_link_the_guide():
    assert "TEACHING.md" in (REPO / "README.md").read_text(encoding="utf-8")
    start = nbformat.read(REPO / "notebooks" / "00_start_here.ipynb", as_version=4)
    assert any("TEACHING.md" in cell.source for cell in start.cells if cell.cell_type == "markdown")


def test_every_command_the_guide_names_exists():
    text = GUIDE.read_text(encoding="utf-8")
    script = (REPO / "workbook").read_text(encoding="utf-8")
    script_commands = set(re.findall(r"^\s{4}([\w-]+)\)", script, re.M))
    from sbert_workbook.cli import build_parser

    cli_commands = set(next(a for a in build_parser()._actions if a.dest == "command").choices)
    unknown = sorted({c for c in re.findall(r"\./workbook ([\w-]+)", text) if c not in script_commands}
                     | {c for c in re.findall(r"python -m sbert_workbook ([\w-]+)", text) if c not in cli_commands})
    assert not unknown, f"TEACHING.md names commands that do not exist: {unknown}"


def test_the_protocol_summary_lists_every_published_table_a_notebook_names():
    from sbert_workbook import published

    named = set()
    for notebook in NOTEBOOKS:
        named |= set(re.findall(r"\b[A-Z][A-Z0-9_]*TABLE[A-Z0-9_]*\b", teaching_guide.lesson_source(notebook)))
    expected = sorted(named & set(published.TABLES))
    block = GUIDE.read_text(encoding="utf-8").split("<!-- generated: protocol", 1)[1].split("<!-- end generated", 1)[0]
    listed = sorted(re.findall(r"^\| `(\w+)` \|", block, re.M))
    assert expected and listed == expected, f"TEACHING.md's protocol table lists {listed}, the notebooks name {expected}: {FIX}"


def test_the_equation_sheet_states_the_package_scale_and_its_temperature():
    import inspect

    from tools.teaching_facts import EQUATIONS

    what, equation, dotted, *_ = next(row for row in EQUATIONS if row[0].startswith("multiple-negatives"))
    scale = inspect.signature(teaching_guide._resolve(dotted)).parameters["scale"].default
    stated = re.search(r"s = (\d+(?:\.\d+)?)\b.*τ = 1/s = (\d+(?:\.\d+)?)", equation)
    assert stated and float(stated[1]) == scale and float(stated[2]) == 1 / scale, (equation, scale)
    assert "Henderson et al. 2017" in what


def test_words_go_to_the_subsection_they_sit_under():
    parts = [teaching_guide.Part("")]
    teaching_guide.count_words("## 6 · Flow (core)\none two\n### 6.1 · Idea\nthree four five\n### 6.2 · Cloud\nsix", parts)
    assert [(p.number, p.words) for p in parts] == [("", 5), ("6.1", 6), ("6.2", 4)]


def test_a_links_address_is_not_counted_as_words_read_aloud():
    parts = [teaching_guide.Part("")]
    teaching_guide.count_words("See [the guide](https://example.org/a/b/c.html) and "
                               "[![Open In Colab](https://x.org/badge.svg)](https://x.org/a/b)", parts)
    assert parts[0].words == len("See the guide and Open In Colab".split())


def test_the_path_leaves_named_subsections_for_reading_and_sets_exercises_as_homework(monkeypatch):
    monkeypatch.setitem(teaching_guide.facts.PATH_LEAVES_FOR_READING, "nb", ("6.2",))
    Part = teaching_guide.Part
    section = teaching_guide.Section("nb", "6 · Flow", "core", [Part("", 150, [], 1), Part("6.1", 150, ["ex_a"], 0),
                                                               Part("6.2", 300, ["ex_b"], 0)], 60.0)
    assert section.allowance_min == 600 // 150 + 3 * 2 + 2 * 1  # the whole section, exercises in class: 12
    assert section.path_allowance_min == 300 // 150 + 2 * 1  # 6.2 read at home, ex_a homework: 4
    row = teaching_guide.PathRow("nb", [section], 1.0, 2.0, section.path_allowance_min)
    assert (row.left_for_reading, row.homework, row.total_min) == (["§6.2"], ["ex_a"], 5.0)


def test_every_subsection_the_path_leaves_for_reading_exists():
    from tools.teaching_facts import PATH_LEAVES_FOR_READING

    found = {(s.notebook, p.number) for s in teaching_guide.sections() for p in s.parts}
    named = {(notebook, number) for notebook, numbers in PATH_LEAVES_FOR_READING.items() for number in numbers}
    assert named <= found, f"tools/teaching_facts.py names subsections no notebook has: {sorted(named - found)}"


def page_one_words(text: str) -> int:
    """Words before the first appendix: tokens with a letter or digit (table rules and bars are not words)."""
    page_one = re.sub(r"<!--.*?-->", "", text.split("\n## Appendix", 1)[0], flags=re.S)
    return sum(bool(re.search(r"\w", token)) for token in page_one.split())


def test_page_one_reads_in_ten_minutes():
    assert page_one_words("## Heading\n| a | b |\n|---|---|\n<!-- generated: x -->one two\n## Appendix A\nmore") == 5
    words = page_one_words(GUIDE.read_text(encoding="utf-8"))
    assert words <= 800, f"TEACHING.md's page one (before '## Appendix') has {words} words, more than 800"


def test_the_readme_reads_in_five_minutes():
    """The README is the way in; reference lives in docs/ (STYLE.md: d2l's is 579 words, sentence-transformers' ~1,300)."""
    words = page_one_words((REPO / "README.md").read_text(encoding="utf-8"))
    assert words <= 1200, f"README.md has {words} words, more than 1,200: move reference to docs/"
