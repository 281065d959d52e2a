"""Each notebook executes once per variant, and every test that needs an executed notebook reads that run.

Variants: ``own-cache`` (this machine's hub cache: offline, ``auto`` is the embedded all-MiniLM-L6-v2) and
``bert-base-standin`` (a hub cache holding only the random-weight bert-base-uncased stand-in of conftest.py, so
``auto`` takes the 768-dim, 12-layer, MLM-head branches). The ``own-cache`` run also tries every exercise where
it stands: right after each check cell, in the same kernel, the check runs again with the reference solution
(must print ✓), with every listed wrong answer (✗) and with the placeholder (``not attempted``); the random
number generators are saved before and restored after, so the cells below see the state a student's run gives.

The suite starts every run its selected tests read at once, in two background threads (conftest.py), the later
(longer) lessons first, and runs the tests that read them last, so the other tests go on meanwhile; a test that reads
a run waits for it. While runs share the CPU, every notebook kernel works on one CPU thread and so does torch in the
test process, so the streams share the cores instead of fighting over them (measured: two 2-thread kernels on 2 cores
ran up to 3.7 times slower than one; two 1-thread kernels took 98 s together against 130 s one after the other).

With ``--standin-runs FOLDER`` or ``$SBERT_WORKBOOK_STANDIN_RUNS`` (.ci/run sets ``build/colab-standin``) the suite runs no stand-in notebook itself: its
stand-in tests read the runs ``./workbook colab-check --standin`` made there (the same notebooks, stand-in and sizes,
from Colab's installed wheel), once :func:`reused_run_problem` finds each made from the notebook as it is now.
"""
from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from sbert_workbook.runner.notebooks import ONE_THREAD, NotebookRun, Scratch, run_notebook, sizes_parameters, with_parameters
from sbert_workbook.teaching.exercises import NOT_ATTEMPTED, SOLUTIONS_ENV_VAR, find_solution
from sbert_workbook.teaching.story import STORY_ENV_VAR, read

REPO = Path(__file__).resolve().parents[1]
from conftest import OWN_CACHE, STANDIN  # noqa: E402 - the variants are named once, in conftest.py

VARIANTS = [OWN_CACHE, STANDIN]


def suite_parameters(notebook: Path, variant: str) -> dict:
    """The parameters the suite runs ``notebook`` with: ``SIZES`` from the lesson's manifest, its ``suite`` values for the
    embedded model and its ``standin`` values for the bert-base-shaped stand-in.

    The suite tests behaviour (every branch, output, caption and exercise check), not the figures: its runs use smaller
    samples and fewer steps than quick mode as shipped, which runs end to end in `./workbook binder-check` (.ci/run).
    The stand-in's 768 × 12 forward passes cost ~8 times MiniLM's, so its sizes are the least that still run every
    branch (a correlation needs 2 pairs, a probe every label, a subset table 2 pairs).
    """
    return sizes_parameters(notebook, "standin" if variant == STANDIN else "suite")


SOLUTION_LINE = re.compile(r'^(\w+) = solution_or\("(ex\d\d_\w+)", \1\)$')
CHECK_CALL = re.compile(r'\bcheck\(\s*"(ex\d\d_\w+)"')
PLACEHOLDER = re.compile(r"^(\w+) = \.\.\.(\s*#.*)?$", re.M)
#: Saved before an exercise's trials and restored after them (the trials may draw random numbers).
SAVE_RANDOM_STATE = ("import random as _r, numpy as _np, torch as _t\n"
                     "_sbw_random_state = (_r.getstate(), _np.random.get_state(), _t.get_rng_state())")
RESTORE_RANDOM_STATE = ("_r.setstate(_sbw_random_state[0]); _np.random.set_state(_sbw_random_state[1]); "
                        "_t.set_rng_state(_sbw_random_state[2]); del _sbw_random_state")


# ----------------------------------------------------------------------------- exercises: where they are
@dataclass
class Exercise:
    name: str  # exNN_K
    variable: str  # what the student assigns
    exercise_cell: int  # index in nb.cells
    check_cell: int


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def notebook_number(notebook: Path) -> str:
    return notebook.name[:2]


def find_exercises(nb, number: str) -> tuple[list[Exercise], list[str]]:
    """The notebook's exercise/check pairs, and what is wrong with the way they are laid out."""
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    found, problems = [], []
    for position, index in enumerate(code):
        cell, following = nb.cells[index], code[position + 1] if position + 1 < len(code) else None
        if "check" in tags(cell) and (position == 0 or "exercise" not in tags(nb.cells[code[position - 1]])):
            problems.append(f"cell {index}: a check cell that does not follow an exercise cell")
        if "exercise" not in tags(cell):
            continue
        last = SOLUTION_LINE.match(cell.source.strip().splitlines()[-1])
        if not last:
            problems.append(f'cell {index}: an exercise cell must end with `name = solution_or("exNN_K", name)`')
            continue
        variable, name = last.groups()
        if not name.startswith(f"ex{number}_"):
            problems.append(f"cell {index}: {name} should be named ex{number}_K in notebook {number}")
        if not any(m.group(1) == variable for m in PLACEHOLDER.finditer(cell.source)):
            problems.append(f"cell {index}: {name} does not ship unsolved: assign `{variable} = ...  # hint` first")
        check_names = CHECK_CALL.findall(nb.cells[following].source) if following is not None else []
        if following is None or "check" not in tags(nb.cells[following]) or check_names != [name]:
            problems.append(f'cell {index}: exercise {name} has no check cell right after it calling check("{name}", ...)')
            continue
        try:
            if not getattr(find_solution(name), "wrong_answers", None):
                problems.append(f"{name}: its solution lists no wrong answers (use @solution(wrong=...))")
        except (ImportError, KeyError) as error:
            problems.append(f"{name}: no reference solution ({error})")
        found.append(Exercise(name, variable, index, following))
    return found, problems


# ----------------------------------------------------------------------------- exercises: tried in the kernel
def cell_text(cell) -> str:
    return "".join(output.get("text", "") for output in cell.get("outputs", []) if output["output_type"] == "stream")


def trials(scratch: Scratch, exercise_source: str, check_source: str, exercise: Exercise) -> list[str]:
    """Run one check with the reference solution, each wrong answer and the placeholder; say what went wrong."""
    failures = []
    solved = scratch.run(f"SOLUTIONS = True\n{exercise_source}\n{check_source}").strip()
    if not solved.startswith("✓") or "\n" in solved:
        failures.append(f"{exercise.name} with its reference solution printed {solved!r}, not one ✓ line")
    for description in find_solution(exercise.name).wrong_answers:
        said = scratch.run(
            "from sbert_workbook.teaching.exercises import call_with as _call_with, find_solution as _find_solution\n"
            f"{exercise.variable} = _call_with(_find_solution({exercise.name!r}).wrong_answers[{description!r}], globals())\n"
            f"{check_source}").strip()
        if not said.startswith("✗") or "\n" in said:
            failures.append(f"{exercise.name} with the wrong answer '{description}' printed {said!r}, not one ✗ line")
    unsolved = scratch.run(f"SOLUTIONS = False\n{exercise_source}\n{check_source}").strip()
    if unsolved != NOT_ATTEMPTED:
        failures.append(f"{exercise.name} with the placeholder printed {unsolved!r}, not {NOT_ATTEMPTED!r}")
    return failures


@dataclass
class ExerciseTrials:
    """The ``after_cell`` hook that tries each exercise right after its check cell ran as shipped."""

    nb: object
    exercises: list[Exercise]
    failures: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)

    def __call__(self, scratch: Scratch, index: int, cell) -> None:
        exercise = next((e for e in self.exercises if e.check_cell == index), None)
        if exercise is None:
            return
        shipped = cell_text(cell).strip()
        if shipped != NOT_ATTEMPTED:
            self.failures.append(f"{exercise.name} as shipped printed {shipped!r}, not {NOT_ATTEMPTED!r}")
        scratch.run(SAVE_RANDOM_STATE)
        self.failures += trials(scratch, self.nb.cells[exercise.exercise_cell].source, cell.source, exercise)
        scratch.run(RESTORE_RANDOM_STATE)
        self.tried.append(exercise.name)


# ----------------------------------------------------------------------------- one run per notebook and variant
@dataclass
class ExecutedNotebook:
    notebook: Path
    variant: str
    run: NotebookRun | None = None
    error: BaseException | None = None
    exercise_failures: list[str] = field(default_factory=list)
    exercises_tried: list[str] = field(default_factory=list)

    story_file: Path | None = None  # the verdicts the run recorded (sbert_workbook.teaching.story)
    read_from: Path | None = None  # the folder the run was read from (made by colab-check), when it was not run here

    @property
    def verdicts(self) -> dict[str, str]:
        """``{claim: verdict}`` the run recorded."""
        self.executed  # noqa: B018 - fails, with the run's error, if it did not finish
        return next(iter(read(self.story_file).values()), {}) if self.story_file else {}

    @property
    def executed(self) -> Path:
        if self.run is None:
            raise AssertionError(f"{self.notebook.name} ({self.variant}) did not run to the end: "
                                 f"{type(self.error).__name__}: {self.error}")
        return self.run.executed


def reused_run_problem(notebook: Path, folder: Path, variant: str) -> str | None:
    """Why ``folder``'s executed copy of ``notebook`` is not this suite's ``variant`` run of it (None when it is): made
    from the notebook's present cells, at the suite's parameters for ``variant``, every code cell run."""
    copy = folder / "executed" / notebook.name
    if not copy.is_file():
        return f"{copy} is missing: run ./workbook colab-check --standin first"
    ran = nbformat.read(copy, as_version=4)
    injected = [cell.source for cell in ran.cells if "injected-parameters" in cell.metadata.get("tags", [])]
    expected = with_parameters(nbformat.read(notebook, as_version=4), suite_parameters(notebook, variant))
    if [cell.source for cell in ran.cells] != [cell.source for cell in expected.cells]:
        return (f"{copy} was not made from {notebook.name} as it is now at the suite's {variant} parameters "
                f"({'injected: ' + injected[0].strip() if injected else 'no parameters injected'}): run it again")
    stopped = next((cell for cell in ran.cells if cell.cell_type == "code" and cell.source.strip()
                    and cell.get("execution_count") is None), None)
    if stopped is not None:
        errors = [f"{o.get('ename')}: {o.get('evalue')}" for cell in ran.cells for o in cell.get("outputs", [])
                  if o.get("output_type") == "error"]
        return f"{copy} did not run to its end ({errors[0] if errors else 'a cell never ran'})"
    return None


class NotebookRuns:
    """Runs a notebook in a variant the first time a test asks (or in the background, when asked to), and hands every
    later test the same run; with ``standin_runs`` (a folder) the stand-in variant's runs are read from there instead."""

    def __init__(self, standin_env, standin_runs: Path | None = None):
        self._standin_env = standin_env  # a callable: the stand-in's hub-cache environment, built on first use
        self._standin_runs = standin_runs
        self._runs: dict[tuple[str, str], ExecutedNotebook] = {}
        self._pending: dict[tuple[str, str], Future] = {}
        self._background: ThreadPoolExecutor | None = None

    def get(self, notebook: Path, variant: str) -> ExecutedNotebook:
        key = (notebook.name, variant)
        if key not in self._runs and self.reads(variant):
            self._runs[key] = self._read(notebook, variant)
        if key not in self._runs:
            pending = self._pending.pop(key, None)
            self._runs[key] = pending.result() if pending is not None else self._execute(notebook, variant)
        return self._runs[key]

    def reads(self, variant: str) -> bool:
        """Whether this variant's runs are read from a folder (made elsewhere) rather than run here."""
        return variant == STANDIN and self._standin_runs is not None

    def _read(self, notebook: Path, variant: str) -> ExecutedNotebook:
        result = ExecutedNotebook(notebook, variant, read_from=self._standin_runs)
        problem = reused_run_problem(notebook, self._standin_runs, variant)
        if problem is None:
            executed = self._standin_runs / "executed" / notebook.name
            result.run = NotebookRun(notebook, executed, self._standin_runs / "html" / notebook.with_suffix(".html").name, 0.0)
        else:
            result.error = FileNotFoundError(problem)
        return result

    def run_in_background(self, wanted: list[tuple[Path, str]], threads: int = 2) -> None:
        """Start the runs ``wanted`` ((notebook, variant) pairs) in ``threads`` background threads, the later lessons
        first (they are the longer runs: none is left alone at the end), each kernel on one CPU thread."""
        from sbert_workbook.runner import replies as kernel_replies

        wanted = [(notebook, variant) for notebook, variant in wanted if not self.reads(variant)]
        if not wanted:
            return
        kernel_replies.install()  # here, once, not from two threads at a time
        envs = {variant: {**self._variant_env(variant), **ONE_THREAD} for _, variant in wanted}  # built in this thread
        self._background = self._background or ThreadPoolExecutor(max_workers=threads, thread_name_prefix="notebook-runs")
        for notebook, variant in sorted(wanted, key=lambda pair: (-int(notebook_number(pair[0])), pair[1])):
            key = (notebook.name, variant)
            if key not in self._runs and key not in self._pending:
                self._pending[key] = self._background.submit(self._execute, notebook, variant, envs[variant])

    def finished(self) -> list[ExecutedNotebook]:
        """Every run made so far (also those no test has read yet), in lesson order."""
        done = list(self._runs.values()) + [p.result() for p in self._pending.values() if p.done() and not p.cancelled()]
        return sorted(done, key=lambda run: (run.notebook.name, run.variant))

    @property
    def sharing_the_cpu(self) -> bool:
        """Whether background runs are still going (the test process should then keep to one thread)."""
        return any(not pending.done() for pending in self._pending.values())

    def shutdown(self) -> None:
        if self._background is not None:
            self._background.shutdown(wait=True, cancel_futures=True)

    def _variant_env(self, variant: str) -> dict[str, str]:
        return dict(self._standin_env()) if variant == STANDIN else {}

    def _execute(self, notebook: Path, variant: str, env: dict[str, str] | None = None) -> ExecutedNotebook:
        result = ExecutedNotebook(notebook, variant)
        standin = variant == STANDIN
        hook = None
        parameters = suite_parameters(notebook, variant)
        if not standin:  # the cells as the kernel runs them: with the injected-parameters cell, if any
            as_run = with_parameters(nbformat.read(notebook, 4), parameters)
            exercises, _problems = find_exercises(as_run, notebook_number(notebook))
            hook = ExerciseTrials(as_run, exercises) if exercises else None
        if env is None:
            env = {**self._variant_env(variant), **(ONE_THREAD if self.sharing_the_cpu else {})}
        build_dir = REPO / "build" / variant if standin else None
        result.story_file = REPO / "build" / "story" / variant / f"{notebook.stem}.jsonl"
        result.story_file.parent.mkdir(parents=True, exist_ok=True)
        result.story_file.write_text("")
        env = {**env, STORY_ENV_VAR: str(result.story_file)}
        try:
            result.run = run_notebook(notebook, build_dir, env=env, unset=(SOLUTIONS_ENV_VAR,),  # shipped as the student gets it
                                      parameters=parameters,
                                      after_cell=hook)
        except Exception as error:  # noqa: BLE001 - kept, and reported by every test that reads this run
            result.error = error
        if hook is not None:
            result.exercise_failures, result.exercises_tried = hook.failures, hook.tried
        return result
