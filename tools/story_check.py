"""One story in both modes: each notebook's computed verdicts in quick mode and in full mode, side by side.

    python tools/story_check.py [--only 01 05] [--quick-only] [--quick-from story.jsonl] [--out docs/story.json]

Runs each notebook that records verdicts (``sbert_workbook.teaching.story.record``) in quick mode as shipped and, where
its manifest asks (``story_in_full_mode``), in full mode on two cores (with its sizes' ``full_on_cpu`` values), each with ``SBERT_WORKBOOK_STORY`` set, and stores ``{"quick": {notebook: {claim: verdict}}, "full": ...}`` with
where and when it ran in ``docs/story.json``. It prints every claim the two modes disagree on;
``tests/test_story.py`` holds that there is none and that every stored claim is still made by its notebook.
``--quick-from`` takes the quick-mode verdicts from a run made already with ``SBERT_WORKBOOK_STORY`` set (e.g.
``tools/notebook_memory.py``'s, which runs every notebook in quick mode as shipped) instead of running quick mode again.
The file is written after every notebook, so a long run keeps what it finished.
A measurement script, not a test: the full runs take about an hour on 2 cores.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "story.json"


def full_mode_parameters() -> dict[str, dict]:
    """Notebooks whose full mode fits on a 2-core CPU, with the sizes that keep it there (each manifest's
    ``full_on_cpu`` values; sbert_workbook/lessons/manifests/nbNN.py)."""
    from sbert_workbook.lessons.manifest import all_manifests

    return {m.notebook: {"SIZES": m.sizes_for("full_on_cpu")} for m in all_manifests() if m.story_in_full_mode}


def verdicts_of(notebook: Path, quick: bool, parameters: dict) -> dict[str, str]:
    """Run ``notebook`` once and return the verdicts it recorded: ``{claim: verdict}``."""
    from sbert_workbook.runner.notebooks import run_notebook
    from sbert_workbook.teaching.story import STORY_ENV_VAR, read

    with tempfile.TemporaryDirectory(prefix="sbw-story-") as folder:
        path = Path(folder) / "story.jsonl"
        path.touch()
        run = run_notebook(notebook, ROOT / "build" / "story" / ("quick" if quick else "full"), timeout_s=3600,
                           quick=quick, env={STORY_ENV_VAR: str(path)}, parameters=parameters)
        print(f"  {notebook.name} ({'quick' if quick else 'full'} mode): {run.seconds:.0f} s", flush=True)
        return next(iter(read(path).values()), {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="notebooks whose name contains one of these (default: those whose full mode fits on a CPU)")
    parser.add_argument("--quick-only", action="store_true", help="quick mode only (keeps the stored full verdicts)")
    parser.add_argument("--quick-from", type=Path, help="a story.jsonl a quick-mode-as-shipped run recorded: its "
                        "verdicts stand for quick mode, which is not run again")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from sbert_workbook.runner.notebooks import list_notebooks
    from sbert_workbook.encoding.resolve import resolve_model
    from sbert_workbook.teaching.story import disagreements, read

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    stored = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {"quick": {}, "full": {}}
    full_mode = full_mode_parameters()
    chosen = [n for n in list_notebooks() if (n.stem in full_mode if not args.only else any(p in n.name for p in args.only))]
    recorded = read(args.quick_from) if args.quick_from else {}
    stored.update(model=resolve_model("auto").describe(), full_mode_parameters=full_mode)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for notebook in chosen:
        if args.quick_from:
            stored["quick"][notebook.stem] = recorded.get(notebook.name[:2], {})
        else:
            stored["quick"][notebook.stem] = verdicts_of(notebook, True, {})
        if not args.quick_only and notebook.stem in full_mode:
            stored["full"][notebook.stem] = verdicts_of(notebook, False, full_mode[notebook.stem])
        stored.update(measured=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), nproc=os.cpu_count())
        args.out.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    found = disagreements(stored["quick"], stored["full"])
    claims = sum(len(stored["full"].get(nb, {})) for nb in stored["quick"])
    print(f"wrote {args.out}: {claims} claims compared, {len(found)} disagree" + "".join(f"\n  {line}" for line in found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
