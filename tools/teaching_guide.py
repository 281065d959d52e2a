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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools import teaching_facts as facts  # noqa: E402
from tools.generated_page import check_or_write  # noqa: E402
from tools.section_times import BEFORE_FIRST_SECTION, DEFAULT_OUT, SECTION_WORD, first_section_heading  # noqa: E402

GUIDE = ROOT / "TEACHING.md"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) [^>]*-->\n)(?P<body>.*?)(<!-- end generated: (?P=name) -->)", re.S)
TAGS = ("core", "optional")
NUMBER_PREFIX = re.compile(r"^\d+\s*[·.]\s*")


SUBSECTION = re.compile(r"^###\s+(\d+(?:\.\d+|[a-z])?)\b", re.M)


def allowance(words: int, exercises: int, predicts: int) -> int:
    """The planning rule, in whole minutes (TEACHING.md states it)."""
    return (round(words / facts.READING_WORDS_PER_MINUTE) + facts.MINUTES_PER_EXERCISE * exercises
            + facts.MINUTES_PER_PREDICT * predicts)


@dataclass
class Part:
    """A section's cells before its first ``###`` (``number`` ""), or one ``###`` subsection (``"6.1"``, ``"3a"``)."""
    number: str
    words: int = 0
    exercises: list[str] = field(default_factory=list)
    predicts: int = 0


@dataclass
class Section:
    notebook: str
    title: str  #: the heading without ``##`` and without its visible core/optional word
    tag: str  #: "core", "optional", or "setup" for the cells before the first ``##``
    parts: list[Part]
    run_s: float | None

    @property
    def number(self) -> str:
        return "Summary" if self.title == "Summary" else (re.match(r"\d+", self.title) or [""])[0]

    @property
    def words(self) -> int:
        return sum(p.words for p in self.parts)

    @property
    def exercises(self) -> list[str]:
        return [name for p in self.parts for name in p.exercises]

    @property
    def predicts(self) -> int:
        return sum(p.predicts for p in self.parts)

    @property
    def allowance_min(self) -> int:
        return allowance(self.words, len(self.exercises), self.predicts)

    def path_parts(self) -> list[Part]:
        """The parts the 90-minute path teaches: all but the subsections it leaves for reading."""
        left = facts.PATH_LEAVES_FOR_READING.get(self.notebook, ())
        return [p for p in self.parts if p.number not in left]

    @property
    def path_allowance_min(self) -> int:
        """The rule on the taught parts, their exercises set as homework (no class minutes)."""
        taught = self.path_parts()
        return allowance(sum(p.words for p in taught), 0, sum(p.predicts for p in taught))


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
                current = Section(path.stem, title, tag, [Part("")], measured.get(title))
                found.append(current)
            if cell.cell_type == "markdown":
                count_words(cell.source, current.parts)
            part = current.parts[-1]
            tags = cell.metadata.get("tags", [])
            if "exercise" in tags:
                part.exercises += re.findall(r'solution_or\(\s*"(ex\d\d_\w+)"', cell.source)
            part.predicts += "predict" in tags
    return found


#: A link's or an image's address, ``](https://…)``: not read aloud, so not counted (a link's text and an image's alt are).
LINK_ADDRESS = re.compile(r"\]\([^)\s]*\)")


def count_words(markdown: str, parts: list[Part]) -> None:
    """Add the words of a markdown cell to ``parts``: those above a ``###`` heading to the part before it, each
    ``###`` heading opening a new part; link addresses are not words."""
    markdown = LINK_ADDRESS.sub("]", markdown)
    start = 0
    for heading in SUBSECTION.finditer(markdown):
        parts[-1].words += len(re.findall(r"\w+", markdown[start:heading.start()]))
        parts.append(Part(heading[1]))
        start = heading.start()
    parts[-1].words += len(re.findall(r"\w+", markdown[start:]))


def load_times() -> dict:
    return json.loads(DEFAULT_OUT.read_text(encoding="utf-8")) if DEFAULT_OUT.is_file() else {}


def wall_minutes(times: dict, notebook: str) -> float:
    """The whole notebook's measured quick-mode run (kernel start included)."""
    return times.get("notebooks", {}).get(notebook, {}).get("wall_seconds", 0.0) / 60


def run_minutes(group) -> float:
    return sum(s.run_s or 0.0 for s in group) / 60


@dataclass
class PathRow:
    """One notebook's share of the 90-minute path."""
    notebook: str
    taught: list[Section]  #: its setup cells and core sections
    run_min: float  #: measured run of those cells
    wall_min: float  #: measured run of the whole notebook (Run All)
    allowance_min: int  #: the rule on the taught parts, exercises set as homework

    @property
    def total_min(self) -> float:
        return self.run_min + self.allowance_min

    @property
    def left_for_reading(self) -> list[str]:
        return [f"§{p.number}" for s in self.taught for p in s.parts if p not in s.path_parts()]

    @property
    def homework(self) -> list[str]:
        return [name for s in self.taught for p in s.path_parts() for name in p.exercises]


def core_path(all_sections: list[Section], times: dict) -> list[PathRow]:
    """Per notebook: the 90-minute path's setup cells and core sections, their measured run and their allowance."""
    rows = []
    for notebook, group in itertools.groupby(all_sections, key=lambda s: s.notebook):
        if own_session(notebook):  # taught in a session of its own, off the path
            continue
        taught = [s for s in group if s.tag in ("core", "setup")]
        rows.append(PathRow(notebook, taught, run_minutes(taught), wall_minutes(times, notebook),
                            sum(s.path_allowance_min for s in taught)))
    return rows


def own_session(notebook: str) -> bool:
    """Whether the lesson is taught in a session of its own (its manifest's ``own_session``), off the 90-minute path."""
    from sbert_workbook.lessons.manifest import manifest

    return manifest(notebook).own_session


def core_total(rows: list[PathRow]) -> float:
    return sum(row.total_min for row in rows)


SESSION_MINUTES = facts.SESSION_MINUTES


def session_minutes(all_sections: list[Section], start: int, end: int) -> float:
    """Minutes of sections ``start:end``: their allowances and measured runs, plus re-running the earlier cells of the
    notebook it starts inside (Run All up to where it resumes)."""
    part = all_sections[start:end]
    earlier = [s for s in all_sections[:start] if s.notebook == part[0].notebook]
    return sum(s.allowance_min for s in part) + run_minutes(part) + run_minutes(earlier)


def sessions(all_sections: list[Section], times: dict, limit: float = SESSION_MINUTES) -> list[tuple[Section, Section, float]]:
    """Every section in notebook order, cut into as few sessions of at most ``limit`` minutes as they need; a lesson
    taught in a session of its own (:func:`own_session`) starts a session.

    Greedy: each session takes sections until the next would push it past ``limit`` (for minutes that only grow
    as a session grows, no cut gives fewer sessions). A single section longer than ``limit`` is a session alone.
    """
    cuts, start = [], 0
    while start < len(all_sections):
        end = start + 1
        while (end < len(all_sections) and session_minutes(all_sections, start, end + 1) <= limit
               and not starts_own_session(all_sections, end)):
            end += 1
        cuts.append((start, end))
        start = end
    return [(all_sections[a], all_sections[b - 1], session_minutes(all_sections, a, b)) for a, b in cuts]


def starts_own_session(all_sections: list[Section], index: int) -> bool:
    """Whether section ``index`` opens a lesson taught in a session of its own (a session starts there)."""
    section = all_sections[index]
    return (own_session(section.notebook)
            and (index == 0 or all_sections[index - 1].notebook != section.notebook))


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
    lines = ["| notebook | core sections taught | read at home | homework (exercises) | run: taught cells / whole "
             "notebook (min) | allowance (min) | total (min) |", "|---|---|---|---|---|---|---|"]
    rows = core_path(all_sections, times)
    for row in rows:
        taught = ", ".join(f"§{s.number}" if s.number != "Summary" else "Summary" for s in row.taught if s.tag == "core")
        lines.append(_row(row.notebook, taught, ", ".join(row.left_for_reading) or "—",
                          ", ".join(f"`{name}`" for name in row.homework) or "—", f"{row.run_min:.1f} / {row.wall_min:.1f}",
                          row.allowance_min, f"{row.total_min:.1f}"))
    total, budget = core_total(rows), facts.SESSION_MINUTES - facts.SLACK_MINUTES
    verdict = "fits" if total <= budget else "does NOT fit"
    lines.append(f"| **all {len(rows)}** | | | | | | **{total:.1f}** ({verdict} in {budget}: "
                 f"{facts.SESSION_MINUTES - total:.0f} of {facts.SESSION_MINUTES} min left for set-up and questions) |")
    return "\n".join(lines)


#: The model a room online or with a filled cache runs (MODEL = "auto"), and the budget QUICK = "auto" allows.
ONLINE_MODEL = "bert-base-uncased"


def predicted_minutes(notebook: str, model: str) -> tuple[float, dict[str, float]]:
    """(the whole quick run, its seconds per section) predicted on the reference 2 cores with ``model``'s shape: the
    lesson's own forecast at the probe's rates there (sbert_workbook/forecast/cpu_seconds.json's reference rates)."""
    from sbert_workbook.forecast.lessons import reference_forecast
    from sbert_workbook.forecast.work import BERT_BASE, EMBEDDED
    from sbert_workbook.lessons.manifest import manifest

    lesson = manifest(notebook)
    if lesson.work is None:
        return 0.0, {}
    forecast = reference_forecast(lesson, BERT_BASE if model == ONLINE_MODEL else EMBEDDED)
    return forecast.total_s / 60, forecast.section_seconds()


def block_path_online(all_sections, times) -> str:
    """The same path for a room on bert-base-uncased, predicted (nobody ran the path on it): each notebook's whole
    quick run and the taught share of it, and whether QUICK = "auto" starts it within its budget."""
    from sbert_workbook.forecast.predict import DEFAULT_BUDGET_MIN

    lines = [f"| notebook | run: taught cells / whole notebook (min), predicted | allowance (min) | total (min) | "
             f"starts under `auto` ({DEFAULT_BUDGET_MIN} min a notebook) |", "|---|---|---|---|---|"]
    rows, total, stopped = core_path(all_sections, times), 0.0, []
    for row in rows:
        whole, by_section = predicted_minutes(row.notebook, ONLINE_MODEL)
        numbers = {s.number for s in row.taught if s.tag == "core"} | {"setup"}
        share = (row.run_min / row.wall_min) if row.wall_min else 1.0
        taught = sum(v for k, v in by_section.items() if k.split(".")[0] in numbers) / 60
        taught += by_section.get("rest", 0.0) / 60 * share
        fits = whole <= DEFAULT_BUDGET_MIN
        stopped += [] if fits else [row.notebook[:2]]
        total += taught + row.allowance_min
        lines.append(_row(row.notebook, f"{taught:.1f} / {whole:.1f}", row.allowance_min, f"{taught + row.allowance_min:.1f}",
                          "yes" if fits else "no: it stops at set-up, saying what would fit"))
    budget = facts.SESSION_MINUTES - facts.SLACK_MINUTES
    lines.append(f"| **all {len(rows)}** | | | **{total:.1f}** ({'fits' if total <= budget else 'does NOT fit'} in {budget}) | "
                 f"{len(stopped)} stop{'s' if len(stopped) != 1 else ''}: {', '.join(stopped) or 'none'} |")
    if total > budget or stopped:
        lines += ["", "It does not fit a 90-minute class on such laptops"
                  + (f" ({', '.join(stopped)} stops at set-up)" if stopped else "")
                  + ": teach with `MODEL = \"embedded\"` (the first table) or a GPU runtime."]
    return "\n".join(lines)


def block_sessions(all_sections, times) -> str:
    lines = ["| session | from | to | minutes (allowance + runs) |", "|---|---|---|---|"]
    for k, (first, last, minutes) in enumerate(sessions(all_sections, times), 1):
        lines.append(_row(k, _label(first), _label(last), f"{minutes:.1f}"))
    return "\n".join(lines)


def block_rule(all_sections, times) -> str:
    return (f"One minute per {facts.READING_WORDS_PER_MINUTE} words of the section's markdown (read or presented "
            f"aloud, link addresses not counted, rounded to whole minutes), plus {facts.MINUTES_PER_EXERCISE} minutes per exercise cell (tag "
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


def lesson_source(notebook: Path) -> str:
    """A notebook's text and its lesson's code (``sbert_workbook/lessons/nbNN.py`` or the package ``nbNN/``), where the
    lesson-first notebooks name what they quote."""
    lessons = ROOT / "sbert_workbook" / "lessons"
    number = notebook.stem[:2]
    code = sorted([*lessons.glob(f"nb{number}.py"), *lessons.glob(f"nb{number}/*.py")])
    return "\n".join([notebook.read_text(encoding="utf-8"), *(path.read_text(encoding="utf-8") for path in code)])


def quoted_tables() -> dict[str, list[str]]:
    """Every ``published`` PublishedTable a notebook or its lesson code names (``SBERT_TABLE2``, …) or TEACHING.md's key numbers quote,
    with where: ``{"SBERT_TABLE2": ["04", "TEACHING, appendix B"], …}``, in ``published.TABLES`` order."""
    published = importlib.import_module("sbert_workbook.published")
    sources = {path.stem[:2]: lesson_source(path) for path in notebooks()}
    key_numbers = {name for name, *_ in facts.KEY_NUMBERS}
    found = {}
    for name in published.TABLES:
        where = [number for number, source in sources.items() if re.search(rf"\b{name}\b", source)]
        where += ["TEACHING, appendix B"] if name in key_numbers else []
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


LAPTOP_SIZES = ROOT / "docs" / "laptop_sizes.json"


def block_laptop(all_sections, times) -> str:
    """Disk, from ``docs/laptop_sizes.json`` (``tools/laptop_sizes.py``), and each notebook's kernel peak per model, from
    the figures the package ships (``tools/notebook_memory.py``, read by ``sbert_workbook.environment.memory``)."""
    if not LAPTOP_SIZES.is_file():
        return "_Not measured yet: run `.venv/bin/python tools/laptop_sizes.py`._"
    sizes = json.loads(LAPTOP_SIZES.read_text(encoding="utf-8"))
    lines = [f"Measured by `tools/laptop_sizes.py` on {sizes['system']}. `./workbook` runs on Linux, Apple-silicon Macs "
             "(macOS 14+) and Windows through WSL; only Linux is measured here.", "",
             "| what | disk (MB) |", "|---|---|"]
    lines += [_row(name, mb) for name, mb in sizes["disk_mb"].items()]
    peaks = {kind: entry["peak_mb"] for kind, entry in memory_peaks().items()}
    if peaks:
        spans = [_peak_span(model, mb) for model, mb in peaks.items()]
        lines += ["", f"Kernel peak in quick mode (`tools/notebook_memory.py`): {'; '.join(spans)}. Add JupyterLab and "
                  "the browser; shut a notebook's kernel down before opening the next."]
    return "\n".join(lines)


def _peak_span(model: str, peaks_mb: dict) -> str:
    """``0.6–1.6 GB with the embedded model (most: 05)``, or one notebook's peak when only one was measured."""
    name = "the embedded model" if model == "embedded" else model
    heaviest = max(peaks_mb, key=peaks_mb.get)
    if len(peaks_mb) == 1:
        return f"{peaks_mb[heaviest] / 1024:.1f} GB with {name} ({heaviest[:2]}, the one measured)"
    return f"{min(peaks_mb.values()) / 1024:.1f}–{peaks_mb[heaviest] / 1024:.1f} GB with {name} (most: {heaviest[:2]})"


def memory_peaks() -> dict:
    """The measured peaks the package ships, ``{}`` before any were measured."""
    return importlib.import_module("sbert_workbook.environment.memory").measured_peaks()


def block_room(all_sections, times) -> str:
    """How many classroom visitors a laptop's free memory holds, as ``./workbook classroom`` plans it."""
    from sbert_workbook.classroom.room import KERNEL_GB, room_capacity

    held = ", ".join(f"{gb} GB free holds {room_capacity('embedded', gb * 1024 ** 3)}" for gb in (8, 16, 24))
    return ("- [ ] **Projector or a room at once**: `./workbook classroom --ip 0.0.0.0 --model embedded --quick --room N`, started a few minutes "
            f"early. Each visitor's kernel needs about {KERNEL_GB['embedded']} GB: {held} "
            "([measured](docs/classroom_load.md): 30 at once on 24 GB).")


def block_objectives(all_sections, times) -> str:
    """Appendix F: each lesson's learning objectives, from its manifest (also 00's map and the book's handouts)."""
    from sbert_workbook.lessons.manifest import all_manifests

    rows = [_row(lesson.notebook, "; ".join(lesson.objectives)) for lesson in all_manifests()]
    return "\n".join(["| notebook | after it a student can |", "|---|---|", *rows])


BLOCKS = {"laptop": block_laptop, "objectives": block_objectives, "room": block_room, "rule": block_rule, "measured": block_measured, "path-90": block_path, "path-90-online": block_path_online, "sessions": block_sessions,
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
    return check_or_write(GUIDE, render, "python tools/teaching_guide.py", args.check)


if __name__ == "__main__":
    sys.exit(main())
