"""Command line: ``python -m sbert_workbook {eval,notebooks,...}`` (introduced in ``00_start_here.ipynb``)."""
from __future__ import annotations

import argparse
import json
import sys

from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.encoding.pooling import POOLINGS


def build_parser() -> argparse.ArgumentParser:
    from sbert_workbook import about

    parser = argparse.ArgumentParser(prog="python -m sbert_workbook", description="sbert-workbook tools")
    parser.add_argument("--version", action="version", version=f"sbert-workbook {about.version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    evaluate = commands.add_parser("eval", help="STS evaluation table for a model and pooling")
    evaluate.add_argument("--model", default="auto", help="'auto', 'embedded', a hub id or a model folder")
    evaluate.add_argument("--pooling", default="mean", choices=POOLINGS)
    evaluate.add_argument("--similarity", default="cosine", choices=("cosine", "dot", "euclidean", "manhattan"))
    evaluate.add_argument("--aggregation", default="all", choices=("all", "wmean"))
    evaluate.add_argument("--datasets", nargs="+", default=list(SEVEN_STS_SETS), metavar="NAME")
    evaluate.add_argument("--data-dir", default=None, help="folder holding sts/, sick/ and nli/ (default: see docs/models-and-data.md)")
    evaluate.add_argument("--limit", type=int, default=None, help="at most this many pairs per data set")
    evaluate.add_argument("--batch-size", type=int, default=64)
    evaluate.add_argument("--device", default=None)
    evaluate.add_argument("--backend", default="torch", choices=("torch", "onnx"),
                          help="onnx: ONNX Runtime on the CPU, the same vectors, faster (cls/mean/max pooling)")
    evaluate.add_argument("--json", action="store_true", help="print the table as JSON")

    notebooks = commands.add_parser("notebooks", help="run notebooks headless, save executed copies and HTML to build/")
    notebooks.add_argument("only", nargs="*", help="run only notebooks whose name contains one of these")
    notebooks.add_argument("--full", action="store_true", help="full mode instead of quick mode")

    solutions = commands.add_parser("solutions", help="run notebooks with every exercise solved; save them to build/solutions/")
    solutions.add_argument("only", nargs="*", help="run only notebooks whose name contains one of these")
    solutions.add_argument("--full", action="store_true", help="full mode instead of quick mode")

    book = commands.add_parser("book", help="the edition to read before running: every notebook executed (quick mode, "
                               "embedded model) as static HTML pages with an index, in build/book/")
    book.add_argument("only", nargs="*", help="build only notebooks whose name contains one of these")
    book.add_argument("--out", default=None, help="folder to write (default: build/book)")
    book.add_argument("--executed", default=None, metavar="FOLDER", help="make the pages from runs made already "
                      "(./workbook binder-check keeps them in build/binder/book-executed) instead of running again")

    release = commands.add_parser("release", help="the notebooks and a wheel without the solutions, for a class that is graded")
    release.add_argument("--out", default=None, help="folder to write (default: build/release)")
    release.add_argument("--wheel-url", default=None, metavar="URL",
                         help="where you will host the release's wheel for Colab (its address, or its folder's ending in "
                              "/): the notebooks' setup cell installs it from there; without it, students upload the "
                              "wheel into their Colab session")
    release.add_argument("--wheelhouse", action="store_true", help="also download every package the install needs into "
                         "wheelhouse/, for laptops like this one (same system and Python) that install without internet")
    release.add_argument("--check", action="store_true", help="then run 00 and 01 from the release's wheel in an empty "
                         "folder and check that no solution can be imported (about a minute on 2 cores)")

    classroom = commands.add_parser("classroom", help="the pair and embedding explorers as a stand-alone Voila web app")
    classroom.add_argument("--port", type=int, default=8866)
    classroom.add_argument("--ip", default="127.0.0.1", help="127.0.0.1: this machine only; 0.0.0.0: the whole room")
    classroom.add_argument("--token", default=None, help="access token in the URL (default: a random one; '' for none)")
    classroom.add_argument("--model", default="auto", help="'auto', 'embedded', a hub id or a model folder")
    classroom.add_argument("--quick", action="store_true", help="fewer sentences, for slow machines and tests")
    classroom.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    classroom.add_argument("--cull-after", type=int, default=120, metavar="SECONDS",
                           help="shut down a visitor's kernel this long after their page closed (default 120)")
    classroom.add_argument("--room", type=int, default=0, metavar="N",
                           help="visitors arriving at once: start N kernels of --room-app, run, before anyone comes")
    classroom.add_argument("--room-app", default="embedding_explorer", choices=["embedding_explorer", "pair_explorer"],
                           help="the explorer the room opens first (default embedding_explorer)")
    classroom.add_argument("--max-kernels", type=int, default=None, metavar="N",
                           help="the most visitors' kernels at once (default: what free memory holds); "
                                "later visitors are asked to come back in a minute")

    doctor = commands.add_parser("doctor", help="check Python, torch, device, widgets, model and data; print fixes")
    doctor.add_argument("--model", default="auto", help="'auto', 'embedded', a hub id or a model folder")
    doctor.add_argument("--data-dir", default=None, help="folder holding sts/, sick/ and nli/")
    doctor.add_argument("--device", default=None)
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")

    diagnose = commands.add_parser("diagnose", help="diagnose a model (the cone, rogue dimensions, frequency, the fix "
                                   "ladder with intervals) and write its one-page report, HTML and JSON (notebook 07)")
    diagnose.add_argument("model", help="a model folder or hub id, 'embedded', 'auto', 'glove' or 'tiny-mlm'")
    diagnose.add_argument("--out", default=".", help="folder for diagnosis-MODEL.html and .json (default: here)")
    diagnose.add_argument("--pairs-per-set", type=int, default=None,
                          help="test pairs sampled from each of the seven STS sets (default: notebook 07's quick mode, "
                               f"{_diagnosis_pairs()}, from its manifest)")
    diagnose.add_argument("--data-dir", default=None, help="folder holding sts/, sick/ and nli/")
    diagnose.add_argument("--device", default=None)
    diagnose.add_argument("--seed", type=int, default=0)

    predownload = commands.add_parser("predownload", help="fill the Hugging Face caches (online) for offline classrooms")
    predownload.add_argument("--models", nargs="*", default=None, metavar="MODEL", help="hub ids (default: the workbook's models)")
    predownload.add_argument("--datasets", nargs="*", default=None, metavar="NAME", help="registry names (default: all)")

    links = commands.add_parser("links", help="the Colab, Binder and nbgitpuller links of this version's notebooks")
    links.add_argument("--hub", default=None, metavar="URL", help="your JupyterHub's address, for nbgitpuller links")
    links.add_argument("--repo", default=None, metavar="URL", help="a course repository holding a students' release "
                       "(./workbook release): Binder and nbgitpuller open it instead of the workbook's")
    links.add_argument("--branch", default=None, help="the course repository's branch (with --repo; default: main)")
    return parser


def _diagnosis_pairs() -> int | None:
    """07's quick-mode pairs per set, as its manifest writes them (the one copy)."""
    from sbert_workbook.lessons.manifests.nb07 import MANIFEST

    return MANIFEST.sizes["PAIRS_PER_SET"].value("quick")


def run_eval(args) -> int:
    from sbert_workbook.encoding.encoder import load_encoder
    from sbert_workbook.evaluation.provenance import table_caption
    from sbert_workbook.evaluation.sts import evaluate_sts

    encoder = load_encoder(args.model, device=args.device, backend=args.backend)
    table = evaluate_sts(encoder, args.datasets, args.pooling, args.similarity, args.aggregation, args.data_dir,
                         args.limit, args.batch_size)
    if args.json:
        print(json.dumps({"provenance": table.attrs["provenance"], "rows": table.reset_index().to_dict(orient="records")}, indent=2))
    else:
        print(table_caption(table))
        print(table.round(2).to_string())
    return 0


def run_notebooks(args) -> int:
    from sbert_workbook.runner.notebooks import run_all

    run_all(args.only or None, quick=not args.full)
    return 0


def run_solutions(args) -> int:
    from sbert_workbook.runner.notebooks import run_all_solved

    run_all_solved(args.only or None, quick=not args.full)
    return 0


def run_book(args) -> int:
    from sbert_workbook.book.build import build_book

    build_book(args.out, args.only or None, executed_from=args.executed)
    return 0


def run_release(args) -> int:
    from sbert_workbook.installs.release import write_release

    out = write_release(args.out, args.wheel_url, args.wheelhouse)
    (wheel,) = (out / "wheel").glob("*.whl")
    where = f"from {args.wheel_url} (put {wheel.name} there)" if args.wheel_url else f"{wheel.name}, uploaded into the session"
    print(f"wrote {out}: {', '.join(sorted(p.name + ('/' if p.is_dir() else '') for p in out.iterdir()))} (no solutions); "
          f"on Colab the notebooks install {where}; see {out / 'README.txt'}")
    if args.check:
        from sbert_workbook.installs.release_check import check_release, report

        print("checking the release: its wheel in a new environment, 00 and 01 run in an empty folder ...", flush=True)
        said = report(check_release(out))
        print(said)
        return 0 if said.endswith("PASS: the release runs from its wheel and holds no solution") else 1
    return 0


def run_classroom(args) -> int:
    import os
    import secrets

    from sbert_workbook.classroom.room import classroom_command, room_capacity, room_summary
    from sbert_workbook.forecast.lessons import path_forecast

    token = secrets.token_urlsafe(12) if args.token is None else args.token
    capacity = room_capacity(args.model) if args.max_kernels is None else args.max_kernels
    argv, env = classroom_command(args.port, args.ip, token, args.model, args.quick, not args.no_browser,
                                  args.cull_after, args.room, args.room_app, capacity)
    host = "localhost" if args.ip in ("127.0.0.1", "localhost") else "<this machine's address>"
    print(f"Classroom app: http://{host}:{args.port}/" + (f"?token={token}" if token else "") + "  (Ctrl-C stops it)", flush=True)
    print(room_summary(args.room, args.room_app, capacity, args.max_kernels is None), flush=True)
    print(f"The lessons here: {path_forecast(args.model)}", flush=True)
    os.execve(argv[0], argv, env)  # Voila replaces this process, so stopping it stops the app
    return 0


def run_doctor(args) -> int:
    from sbert_workbook.environment.doctor import run_checks

    report = run_checks(args.model, args.data_dir, args.device)
    if args.json:
        print(report.table().reset_index().to_json(orient="records", indent=2))
    else:
        print(report)
    return 0 if report.ok else 2


def run_diagnose(args) -> int:
    from sbert_workbook.diagnosis.page import write_report
    from sbert_workbook.diagnosis.run import diagnose

    from sbert_workbook.encoding.glove import GloveNotInstalledError

    try:
        sizes = {} if args.pairs_per_set is None else {"pairs_per_set": args.pairs_per_set}  # else the manifest's
        found = diagnose(args.model, seed=args.seed, device=args.device, data_dir=args.data_dir, **sizes)
    except GloveNotInstalledError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    page, data = write_report(found, args.out)
    print("\n".join(f"{key}: {value}" for key, value in found.headline().items()))
    print(f"wrote {page} ({page.stat().st_size // 1024} KB) and {data} ({data.stat().st_size // 1024} KB) in {found.seconds:.0f} s")
    return 0


def run_predownload(args) -> int:
    from sbert_workbook.environment.predownload import DEFAULT_MODELS, NeedsNetworkError, predownload

    try:
        predownload(DEFAULT_MODELS if args.models is None else args.models, args.datasets)
    except NeedsNetworkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    return 0


def run_links(args) -> int:
    """Every lesson on Colab, 00 and a classroom page on Binder, and (``--hub``) by nbgitpuller; with ``--repo`` (a course
    repository holding a students' release, ``--branch``) Binder and nbgitpuller open it instead, and Colab is left out
    (a release's notebooks carry no badge)."""
    from sbert_workbook import about
    from sbert_workbook.lessons.manifest import all_manifests

    repo, branch = args.repo, args.branch or ("main" if args.repo else None)
    print(f"sbert-workbook {about.version()}: " + (f"the release in {repo}, branch {branch}" if repo else
                                                   f"{about.repository()}, tag {about.git_ref()}"))
    notebooks = [f"notebooks/{lesson.notebook}.ipynb" for lesson in all_manifests()]
    pages = [(notebooks[0], "lab"), ("classroom/embedding_explorer.ipynb", "voila")]
    rows = [] if repo else [("Colab", path, about.colab_url(path)) for path in notebooks]
    rows += [("Binder", path, about.binder_url(path, app, repo=repo, ref=branch)) for path, app in pages]
    if args.hub:
        rows += [("nbgitpuller", path, about.nbgitpuller_url(args.hub, path, app, repo=repo, branch=branch))
                 for path, app in pages]
    for where, notebook, address in rows:
        print(f"{where:12} {notebook:45} {address}")
    return 0


COMMANDS = {"eval": run_eval, "notebooks": run_notebooks, "solutions": run_solutions, "book": run_book, "release": run_release,
            "classroom": run_classroom, "doctor": run_doctor, "diagnose": run_diagnose, "predownload": run_predownload,
            "links": run_links}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (FileNotFoundError, ValueError, KeyError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
