"""A lesson's manifest: the one place that says what a student can do after it, how big its runs are, which equations it
teaches and where each paper result is shown.

Every notebook ``NN_topic`` has ``sbert_workbook/lessons/manifests/nbNN.py`` holding one :class:`Manifest`. Its
:class:`Size` entries give each size the lesson runs at in every mode: ``quick`` (the student's mode on a laptop
CPU), ``full`` (the papers' recipe), ``session`` (the model's own size, runs cut to fit one session's budget on a
T4; a size without one keeps its full value), ``suite`` and ``standin`` (the test suite's smaller runs on the embedded model
and on the bert-base-shaped stand-in) and ``full_on_cpu`` (what ``tools/story_check.py`` runs as full mode on two
cores). The notebook's set-up (:func:`sbert_workbook.lessons.setup.begin`), the tests' notebook runs,
``tools/story_check.py`` and ``tools/teaching_guide.py`` all read it; no size is written anywhere else.
Introduced in ``00_start_here.ipynb`` (the parameters cell's ``SIZES``); docs/adding-a-lesson.md shows how to
write one.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any

#: The modes a size has a value for, in the order the manifests write them.
MODES = ("quick", "full", "session", "suite", "standin", "full_on_cpu")
#: Which mode a size falls back to when it does not name a value for this one.
FALLBACK = {"session": "full", "suite": "quick", "standin": "suite", "full_on_cpu": "full"}
_UNSET = object()


@dataclass(frozen=True)
class Size:
    """One size of a lesson (a sample, a number of steps, a batch): its value in each mode and what it counts."""

    what: str
    quick: Any
    full: Any
    session: Any = _UNSET
    suite: Any = _UNSET
    standin: Any = _UNSET
    full_on_cpu: Any = _UNSET

    def value(self, mode: str) -> Any:
        """The value in ``mode``; ``session`` falls back to ``full``, ``suite`` to ``quick``, ``standin`` to ``suite``,
        ``full_on_cpu`` to ``full``."""
        if mode not in MODES:
            raise ValueError(f"Unknown mode {mode!r}: use one of {', '.join(MODES)}.")
        value = getattr(self, mode)
        return self.value(FALLBACK[mode]) if value is _UNSET else value


@dataclass(frozen=True)
class Equation:
    """An equation on TEACHING.md's sheet: what it is, the equation, the code that computes it, the section."""

    what: str
    equation: str
    implemented_by: str  # "module:attribute", resolved by tools/teaching_guide.py
    section: str  # "3" for the notebook's "## 3 · ..."


@dataclass(frozen=True)
class PaperLink:
    """A row of TEACHING.md's paper map: a paper's result and the section that shows it."""

    paper: str  # "SimCSE 2104.08821"
    shows: str
    section: str
    constant: str = ""  # the published.* constant holding its figures, if any


@dataclass(frozen=True)
class Manifest:
    """Everything about one lesson that is not the lesson's prose or code."""

    notebook: str  # "06_contrastive_simcse"
    #: What a student can do after the lesson, two or three, each a task a teacher can check ("after 05 a student
    #: can …", lower-case, no full stop): 00's map, TEACHING.md's objectives and the book's handouts show them.
    objectives: tuple[str, ...] = ()
    sizes: dict[str, Size] = field(default_factory=dict)
    equations: tuple[Equation, ...] = ()
    paper_map: tuple[PaperLink, ...] = ()
    #: Subsections (by number, "6.2") the 90-minute path leaves for reading at home.
    read_at_home: tuple[str, ...] = ()
    #: Whether tools/story_check.py holds this lesson's verdicts in quick mode to those of a full-mode run on two cores
    #: (with the sizes' ``full_on_cpu`` values): every lesson that records verdicts should.
    story_in_full_mode: bool = False
    #: An optional lesson taught in a session of its own (tools/teaching_guide.py): off the 90-minute path, and the
    #: sessions table starts a new session where it starts; its core sections are that session's core.
    own_session: bool = False
    #: ``work(sizes, plan) -> [forecast.work.Step]``: the lesson's long steps at a mode's sizes, which its set-up turns
    #: into a prediction per mode (:mod:`sbert_workbook.forecast`); None for a lesson with no long step.
    work: Any = None
    #: Whether the lesson has a ``session`` mode (sizes that fit one session on a T4) for ``QUICK = "auto"`` to choose.
    has_session_mode: bool = False

    @property
    def number(self) -> str:
        return self.notebook[:2]

    def sizes_for(self, mode: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """``{NAME: value}`` of every size in ``mode``, with ``overrides`` (the notebook's ``SIZES``) applied; a name
        the lesson does not have is an error that lists the names it has."""
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(self.sizes))
        if unknown:
            raise KeyError(f"SIZES names {', '.join(map(repr, unknown))}, which notebook {self.notebook} does not have. "
                           f"Its sizes: {', '.join(self.sizes) or 'none'}.")
        return {name: overrides.get(name, size.value(mode)) for name, size in self.sizes.items()}


def manifest(notebook: str) -> Manifest:
    """The manifest of ``notebook``: its number ("06"), its name ("06_contrastive_simcse") or a path ending in it."""
    number = re.search(r"(\d\d)(?:_\w+)?(?:\.ipynb)?$", str(notebook))
    if number is None:
        raise ValueError(f"{notebook!r} does not name a lesson: give its number ('06') or its notebook's name.")
    try:
        module = importlib.import_module(f"sbert_workbook.lessons.manifests.nb{number.group(1)}")
    except ModuleNotFoundError as error:
        raise KeyError(f"Lesson {number.group(1)} has no manifest: add sbert_workbook/lessons/manifests/"
                       f"nb{number.group(1)}.py (see docs/adding-a-lesson.md).") from error
    return module.MANIFEST


def all_manifests() -> list[Manifest]:
    """Every lesson's manifest, in lesson order."""
    from importlib import resources

    names = sorted(entry.name[2:4] for entry in resources.files("sbert_workbook.lessons.manifests").iterdir()
                   if re.fullmatch(r"nb\d\d\.py", entry.name))
    return [manifest(number) for number in names]
