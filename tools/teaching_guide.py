"""Write the generated blocks of TEACHING.md (the teacher's guide to ``00_start_here.ipynb`` … ``06_contrastive_simcse.ipynb``).

Use: ``python tools/teaching_guide.py`` (rewrites every block between ``<!-- generated: NAME … -->`` and
``<!-- end generated: NAME -->``); ``--check`` only says whether TEACHING.md is up to date (tests/test_teaching.py).
Inputs: the notebooks' ``##`` headings, their core/optional tags and exercise/predict cells; the quick-mode
run times in ``docs/section_times.json`` (``tools/section_times.py``); ``sbert_workbook/published/``; the
reference solutions in ``sbert_workbook/solutions/`` (``classroom.py``: the classroom apps' model answers); and the
lists in ``tools/teaching_facts.py``.
"""
from __future__ import annotations

import argparse
import importlib
import itertools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools import teaching_facts as facts  # noqa: E402
from tools.section_times import BEFORE_FIRST_SECTION, DEFAULT_OUT, SECTION_WORD, first_section_heading  # noqa: E402

GUIDE = ROOT / "TEACHING.md"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) [^>]*-->\n)(?P<body>.*?)(<!-- end generated: (?P=name) -->)", re.S)
TAGS = ("core", "optional")
NUMBER_PREFIX = re.compile(r"^\d+\s*[·.]\s*")


@dataclass
class Section:
    notebook: str
    title: str  #: the heading without ``##`` and without its visible core/optional word
    tag: str  #: "core", "optional", or "setup" for the cells before the first ``##``
    words: int
    exercises: list[str]
    predicts: int
    run_s: float | None

    @property
    def number(self) -> str:
        return "Summary" if self.title == "Summary" else (re.match(r"\d+", self.title) or [""])[0]

    @property
    def allowance_min(self) -> float:
        return (round(self.words / facts.READING_WORDS_PER_MINUTE) + facts.MINUTES_PER_EXERCISE * len(self.exercises)
                + facts.MINUTES_PER_PREDICT * self.predicts)


def notebooks() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def sections(times: dict | None = None) -> list[Section]:
    """Every notebook's sections in order, with the counts the allowance rule reads and the measured seconds."""
    import nbformat

    times = load_times() if times is None else times
    found = []
    for path in notebooks():
        measured = times.get("notebooks", {}).get(path.stem, {}).get("sections_seconds", {})
        current = None
        for cell in nbformat.read(path, as_version=4).cells:
            heading = first_section_heading(cell)
            if heading is not None or current is None:
                title = SECTION_WORD.sub("", heading[3:].strip()) if heading else BEFORE_FIRST_SECTION
                tag = next((t for t in TAGS if t in cell.metadata.get("tags", [])), "?") if heading else "setup"
                current = Section(path.stem, title, tag, 0, [], 0, measured.get(title))
                found.append(current)
            if cell.cell_type == "markdown":
                current.words += len(re.findall(r"\w+", cell.source))
            tags = cell.metadata.get("tags", [])
            if "exercise" in tags:
                current.exercises += re.findall(r'solution_or\(\s*"(ex\d\d_\w+)"', cell.source)
            current.predicts += "predict" in tags
    return found


def load_times() -> dict:
    return json.loads(DEFAULT_OUT.read_text(encoding="utf-8")) if DEFAULT_OUT.is_file() else {}


def wall_minutes(times: dict, notebook: str) -> float:
    """The whole notebook's measured quick-mode run (kernel start included)."""
    return times.get("notebooks", {}).get(notebook, {}).get("wall_seconds", 0.0) / 60


def run_minutes(group) -> float:
    return sum(s.run_s or 0.0 for s in group) / 60


def core_path(all_sections: list[Section], times: dict) -> list[tuple[str, int, float, float, float]]:
    """Per notebook: (notebook, core sections, run minutes of core + setup cells, of the whole notebook, core allowance)."""
    rows = []
    for notebook, group in itertools.groupby(all_sections, key=lambda s: s.notebook):
        chosen = [s for s in group if s.tag in ("core", "setup")]
        rows.append((notebook, len(chosen) - 1, run_minutes(chosen), wall_minutes(times, notebook),
                     sum(s.allowance_min for s in chosen)))
    return rows


def core_total(rows) -> float:
    return sum(run + allowance for _, _, run, _, allowance in rows)


SESSION_MINUTES = facts.SESSION_MINUTES


def session_minutes(all_sections: list[Section], start: int, end: int) -> float:
    """Minutes of sections ``start:end``: their allowances and measured runs, plus re-running the earlier cells of the
    notebook it starts inside (Run All up to where it resumes)."""
    part = all_sections[start:end]
    earlier = [s for s in all_sections[:start] if s.notebook == part[0].notebook]
    return sum(s.allowance_min for s in part) + run_minutes(part) + run_minutes(earlier)


def sessions(all_sections: list[Section], times: dict, limit: float = SESSION_MINUTES) -> list[tuple[Section, Section, float]]:
    """Every section in notebook order, cut into as few sessions of at most ``limit`` minutes as they need.

    Greedy: each session takes sections until the next would push it past ``limit`` (for minutes that only grow
    as a session grows, no cut gives fewer sessions). A single section longer than ``limit`` is a session alone.
    """
    cuts, start = [], 0
    while start < len(all_sections):
        end = start + 1
        while end < len(all_sections) and session_minutes(all_sections, start, end + 1) <= limit:
            end += 1
        cuts.append((start, end))
        start = end
    return [(all_sections[a], all_sections[b - 1], session_minutes(all_sections, a, b)) for a, b in cuts]


def _cell(text) -> str:
    """``text`` safe inside a markdown table cell (a ``|`` would end the cell)."""
    return str(text).replace("|", "\\|")


def _row(*cells) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _where(section: Section) -> str:
    return f"{section.notebook[:2]} §{section.number}" if section.tag != "setup" else f"{section.notebook[:2]} (setup)"


def _label(section: Section) -> str:
    """``'02 §4 Observation 1: …'``, ``'05 Summary'``, ``'00 (title, setup and parameters)'``."""
    if section.tag == "setup" or section.number == "Summary":
        return f"{section.notebook[:2]} {section.title}"
    return f"{_where(section)} {NUMBER_PREFIX.sub('', section.title)}"


def block_sections(all_sections, times) -> str:
    lines = ["| notebook | section | tag | run here (s) | words | exercises | predict | allowance (min) |",
             "|---|---|---|---|---|---|---|---|"]
    for s in all_sections:
        run = "—" if s.run_s is None else f"{s.run_s:.1f}"
        lines.append(_row(s.notebook, s.title, s.tag, run, s.words, len(s.exercises), s.predicts, s.allowance_min))
    return "\n".join(lines)


def block_path(all_sections, times) -> str:
    lines = ["| notebook | core sections | run here: setup + core cells (min) | run here: whole notebook (min) "
             "| allowance: setup + core (min) | total: run + allowance (min) |", "|---|---|---|---|---|---|"]
    rows = core_path(all_sections, times)
    for notebook, count, run, wall, allowance in rows:
        lines.append(_row(notebook, count, f"{run:.1f}", f"{wall:.1f}", allowance, f"{run + allowance:.1f}"))
    total = core_total(rows)
    verdict = "fits" if total <= facts.SESSION_MINUTES else "does NOT fit"
    lines.append(f"| **all {len({row[0] for row in rows})}** | | | | | **{total:.1f}** ({verdict} in {facts.SESSION_MINUTES}) |")
    return "\n".join(lines)


def block_sessions(all_sections, times) -> str:
    lines = ["| session | from | to | minutes (allowance + runs) |", "|---|---|---|---|"]
    for k, (first, last, minutes) in enumerate(sessions(all_sections, times), 1):
        lines.append(_row(k, _label(first), _label(last), f"{minutes:.1f}"))
    return "\n".join(lines)


def block_rule(all_sections, times) -> str:
    return (f"One minute per {facts.READING_WORDS_PER_MINUTE} words of the section's markdown (read or presented "
            f"aloud, rounded to whole minutes), plus {facts.MINUTES_PER_EXERCISE} minutes per exercise cell (tag "
            f"`exercise`) and {facts.MINUTES_PER_PREDICT} minutes per predict-then-run question (tag `predict`).")


def block_measured(all_sections, times) -> str:
    if not times:
        return "_Not measured yet: run `python tools/section_times.py`._"
    return (f"Measured {times['measured']} by `python tools/section_times.py`: {times['mode']}; model "
            f"{times['model'].split(': ', 1)[0]}; `nproc` {times['nproc']}; load average {times['load_average_before'][0]} before, "
            f"{times['load_average_after'][0]} after (shared machine: read the seconds as upper bounds).")


def _resolve(dotted: str):
    module, _, attribute = dotted.partition(":")
    found = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


def _heading(all_sections, notebook: str, number: str) -> str:
    for s in all_sections:
        if s.notebook == notebook and s.number == number:
            return _label(s)
    raise KeyError(f"{notebook} has no section {number}: update tools/teaching_facts.py")


def block_equations(all_sections, times) -> str:
    lines = ["| what | equation | implemented by | shown in |", "|---|---|---|---|"]
    for what, equation, dotted, notebook, number in facts.EQUATIONS:
        _resolve(dotted)
        lines.append(_row(what, equation, f"`{dotted.replace(':', '.')}`", _heading(all_sections, notebook, number)))
    return "\n".join(lines)


def block_numbers(all_sections, times) -> str:
    published = importlib.import_module("sbert_workbook.published")
    lines = ["| published | row | column | value |", "|---|---|---|---|"]
    sources = {}
    for name, row, column in facts.KEY_NUMBERS:
        constant = getattr(published, name)
        if hasattr(constant, "value"):
            value, sources[name] = constant.value(row, column), constant.source()
        else:
            value = constant if row is None else constant[row]
            sources[name] = getattr(published, facts.PLAIN_SOURCES[name]) if name in facts.PLAIN_SOURCES \
                else facts.PLAIN_NOTES[name]
        shown = ", ".join("—" if v is None else f"{v:g}" for v in value) if isinstance(value, tuple) else f"{value:g}"
        if name == "BERT_FLOW_TABLE1":
            column = " / ".join(published.BERT_FLOW_TABLE1_BUCKETS)
        lines.append(_row(f"`{name}`", row or "", column or "", shown))
    lines += ["", "Sources (as `sbert_workbook.published` states them):", ""]
    lines += [f"- `{name}`: {source}" for name, source in sources.items()]
    return "\n".join(lines)


def block_papers(all_sections, times) -> str:
    lines = ["| paper | what | notebook section | published |", "|---|---|---|---|"]
    published = importlib.import_module("sbert_workbook.published")
    for paper, what, notebook, number, constant in facts.PAPER_MAP:
        if constant:
            getattr(published, constant)
        lines.append(_row(paper, what, _heading(all_sections, notebook, number), f"`{constant}`" if constant else ""))
    return "\n".join(lines)


def block_exercises(all_sections, times) -> str:
    lines = ["| notebook section | exercise | the reference solution (first docstring line) |", "|---|---|---|"]
    discussion = []
    for s in all_sections:
        module = importlib.import_module(f"sbert_workbook.solutions.nb{s.notebook[:2]}")
        for name in s.exercises:
            doc = (getattr(module, name).__doc__ or "").strip().splitlines()
            lines.append(_row(_where(s), f"`{name}`", doc[0] if doc else "(no docstring)"))
    for path in notebooks():
        module = importlib.import_module(f"sbert_workbook.solutions.nb{path.stem[:2]}")
        keys = list(getattr(module, "DISCUSSION", {}))
        discussion.append(f"- {path.stem} (`solutions/nb{path.stem[:2]}.py`): "
                          + (", ".join(f"`{k}`" for k in keys) if keys else "none yet"))
    classroom = importlib.import_module("sbert_workbook.solutions.classroom")
    discussion.append("- the classroom apps' \"Questions for the room\" (`solutions/classroom.py`): "
                      + ", ".join(f"`{k}`" for k in classroom.DISCUSSION))
    return "\n".join(lines + ["", "Open questions with model answers in each module's `DISCUSSION` dict:", ""] + discussion)


def quoted_tables() -> dict[str, list[str]]:
    """Every ``published`` PublishedTable a notebook names (``SBERT_TABLE2``, …) or TEACHING.md's key numbers quote,
    with where: ``{"SBERT_TABLE2": ["04", "TEACHING §3"], …}``, in ``published.TABLES`` order."""
    published = importlib.import_module("sbert_workbook.published")
    sources = {path.stem[:2]: path.read_text(encoding="utf-8") for path in notebooks()}
    key_numbers = {name for name, *_ in facts.KEY_NUMBERS}
    found = {}
    for name in published.TABLES:
        where = [number for number, source in sources.items() if re.search(rf"\b{name}\b", source)]
        where += ["TEACHING §3"] if name in key_numbers else []
        if where:
            found[name] = where
    return found


def block_protocol(all_sections, times) -> str:
    published = importlib.import_module("sbert_workbook.published")
    protocol = importlib.import_module("sbert_workbook.published.protocol")
    columns = ["split", "aggregation", "fitted on the test sentences", "chosen on labelled dev data", "seeds", "epochs"]
    lines = [_row("published", "paper, table", "quoted in", *columns), "|" + "---|" * (len(columns) + 3)]
    for name, where in quoted_tables().items():
        table = published.TABLES[name]
        choices = protocol.protocol_choices(table)
        lines.append(_row(f"`{name}`", f"{table.paper.split(',')[0]}, {table.table}", ", ".join(where),
                          *(choices[c] for c in columns)))
    return "\n".join(lines)


BLOCKS = {"rule": block_rule, "measured": block_measured, "path-90": block_path, "sessions": block_sessions,
          "sections": block_sections,
          "equations": block_equations, "key-numbers": block_numbers, "paper-map": block_papers,
          "exercises": block_exercises, "protocol": block_protocol}


def render(text: str) -> str:
    """``text`` with every generated block rewritten; an unknown block name fails."""
    times = load_times()
    all_sections = sections(times)

    def replace(match):
        name = match["name"]
        if name not in BLOCKS:
            raise KeyError(f"TEACHING.md has a generated block {name!r} that tools/teaching_guide.py does not know")
        return f"{match[1]}{BLOCKS[name](all_sections, times)}\n{match[4]}"

    return BLOCK.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if TEACHING.md is not up to date")
    args = parser.parse_args(argv)
    text = GUIDE.read_text(encoding="utf-8")
    fresh = render(text)
    if args.check:
        print("TEACHING.md is up to date" if fresh == text else "TEACHING.md is stale: run python tools/teaching_guide.py")
        return int(fresh != text)
    GUIDE.write_text(fresh, encoding="utf-8")
    print(f"wrote {GUIDE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
