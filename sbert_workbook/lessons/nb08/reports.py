"""Lesson 08's reports: each frontier as a table with its caption, the sentences its numbers make, its intervals
drawn and its verdicts, and the cost–quality plane of every point (``08_what_an_embedding_costs.ipynb``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from IPython.display import Markdown
from plotly.subplots import make_subplots

from sbert_workbook.cost.frontier import Frontier
from sbert_workbook.cost.quantization import bytes_per_vector
from sbert_workbook.diagnosis.ladder import effect
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb08.points import K, IndexRun, MatryoshkaRun, RerankRun, StaticRun
from sbert_workbook.lessons.nb08.rerank_reports import rerank_table
from sbert_workbook.lessons.nb08.setup import NOTEBOOK, Lesson08, captioned as _captioned
from sbert_workbook.lessons.report import Report, verdict

MILLION = 1_000_000
#: model2vec's steps and the earlier lesson each one is (sbert_workbook/cost/static_model.py); shown as Markdown, a
#: description rather than a measured table.
STATIC_STEPS = pd.DataFrame(
    {"model2vec does": ["passes every vocabulary token through the transformer alone, mean-pooled",
                        "centres the token vectors and keeps the top PCA directions",
                        "weights each token by a / (a + p), p from Zipf's law over the vocabulary order",
                        "a sentence: the mean of its tokens' vectors, normalised"],
     "the earlier lesson": ["02: static views (02 reads the input embeddings; this reads the output of one pass)",
                            "05: whitening-k without the rescaling; centring is SN's first step",
                            "05: SIF's frequency weighting, against 02's frequency bias",
                            "03: mean pooling, with no context between the words"]},
    index=pd.Index([1, 2, 3, 4], name="step"))


def _changes(frontier: Frontier) -> list[str]:
    """One sentence per storage: bytes saved, STS change with its interval and what it means, recall beside float32's."""
    table, reference = frontier.table, frontier.table.index[0]
    base = table.loc[reference]
    said = []
    for name, interval in frontier.intervals.items():
        row = table.loc[name]
        said.append(f"{name}: {base['bytes per vector'] / row['bytes per vector']:.1f}× fewer bytes than {reference}, "
                    f"STS {interval.described()} ({effect(interval)}), recall@{K} {row[f'recall@{K}']:.3f} against "
                    f"{base[f'recall@{K}']:.3f}, search {row['time vs float32']:.2f}× {reference}'s time")
    return said


def _forest(frontier: Frontier, title: str) -> go.Figure:
    reference = frontier.table.index[0]
    return interval_forest_figure({f"{name} − {reference}": interval for name, interval in frontier.intervals.items()},
                                  title)


def cost_of_float32(lesson: Lesson08) -> Report:
    """§1: what float32 vectors of this model cost, per vector and per million sentences."""
    per_vector = bytes_per_vector("float32", lesson.dimensions)
    return Report(f"{lesson.encoder.name}: {lesson.dimensions} float32 numbers a sentence = {per_vector:,} bytes; a million "
                  f"sentences take {per_vector * MILLION / 2**30:.2f} GiB before any index, and searching them exactly "
                  f"reads all of it for every query.")


def quantization_report(lesson: Lesson08, run: Frontier) -> Report:
    """§2: float32 against int8, binary and rescored binary: the table, each STS change drawn, and the verdicts."""
    table = _captioned(run.table.round(4), lesson, "int8 ranges and binary signs from the calibration sentences")
    verdicts = {}
    for name in ("int8", "binary"):
        verdicts |= verdict(NOTEBOOK, f"{name} against float32, STS", effect(run.intervals[name]))
    rescored = [name for name in run.intervals if name.startswith("binary, rescored")]
    recall = {name: run.recall_change(name, "binary", lesson.sizes.RESAMPLES, lesson.seed) for name in rescored}
    said = [f"recall@{K}, {name} − binary, on the same queries: {interval.described()}" for name, interval in recall.items()]
    for name, interval in recall.items():
        verdicts |= verdict(NOTEBOOK, f"{name.removeprefix('binary, ')} against binary alone, recall@{K}", interval.direction)
    popcount = ("NumPy's np.bitwise_count, one popcount per byte" if hasattr(np, "bitwise_count")
                else "a 256-entry table lookup per byte (this NumPy has no bitwise_count)")
    return Report(table, *_changes(run), *said, f"Hamming distances here: {popcount}.",
                  _forest(run, f"{lesson.encoder.name}: STS change against float32"), verdicts=verdicts)


#: §3's reductions: the row-name prefix of each (its rows read "<prefix> (k = 32)") and its label.
REDUCTIONS = {"first k dimensions": "first k", "first k dimensions, centred": "first k, centred", "PCA-k": "PCA-k",
              "whitening": "whitening-k"}


def reduction_rows(table: pd.DataFrame, prefix: str) -> list[str]:
    """The rows of one reduction, every k (exact prefix: "first k dimensions" is not "first k dimensions, centred")."""
    return [name for name in table.index if name.startswith(f"{prefix} (k = ")]


def dimensions_report(lesson: Lesson08, run: Frontier) -> Report:
    """§3: first-k (as is and centred), PCA-k and whitening-k at every k: the table, STS against k per method, which
    keeps most at the smallest k against the runner-up, and the like-for-like comparisons (centred against centred)."""
    table = _captioned(run.table.round(4), lesson, "PCA-k, whitening-k and the centred first k fitted on the calibration sentences")
    figure = go.Figure()
    for prefix, label in REDUCTIONS.items():
        rows = reduction_rows(run.table, prefix)
        figure.add_trace(go.Scatter(x=run.table.loc[rows, "dimensions"], y=run.table.loc[rows, "STS avg"],
                                    mode="lines+markers", name=label))
    figure.add_hline(y=run.table["STS avg"].iloc[0], line={"dash": "dot"}, annotation_text="float32, all dimensions")
    figure.update_layout(title=f"{lesson.encoder.name}: STS against the dimensions kept", xaxis_title="k (log scale)",
                         yaxis_title="STS avg (Spearman × 100)", xaxis_type="log", height=380)
    smallest = int(run.table.loc[list(run.intervals), "dimensions"].min())
    rows = {label: next(name for name in reduction_rows(run.table, prefix) if run.table.loc[name, "dimensions"] == smallest)
            for prefix, label in REDUCTIONS.items()}
    best, runner_up = sorted(rows, key=lambda label: -run.table.loc[rows[label], "STS avg"])[:2]
    change = lambda a, b: run.change(rows[a], rows[b], resamples=lesson.sizes.RESAMPLES, seed=lesson.seed)  # noqa: E731
    gap, like, centring = change(best, runner_up), change("first k, centred", "PCA-k"), change("first k, centred", "first k")
    said = (f"At k = {smallest}: " + ", ".join(f"{label} {run.table.loc[row, 'STS avg']:.2f}" for label, row in rows.items())
            + f". {best} − {runner_up}: {gap.described()}. Like for like, both centred: first k, centred − PCA-k: "
            f"{like.described()}; what centring alone does to the first k: {centring.described()}.")
    kept = best if gap.direction == "higher" else f"{best} or {runner_up} (a tie)"
    verdicts = verdict(NOTEBOOK, f"the reduction that keeps most STS at k = {smallest}", kept)
    verdicts |= verdict(NOTEBOOK, f"the centred first k against PCA-k at k = {smallest}", like.direction)
    return Report(table, figure, said, _forest(run, f"{lesson.encoder.name}: STS change against float32, every k"),
                  verdicts=verdicts)


def matryoshka_report(lesson: Lesson08, run: MatryoshkaRun | None) -> Report:
    """§3.1: the first k dimensions of the start model, of the plain-trained and of the Matryoshka-trained model at
    every k (means over seeds), each k's Matryoshka − plain change with its interval over seeds, drawn."""
    if run is None:
        return Report("Nothing to report in this mode: the cell above says how to run it.")
    table = pd.DataFrame({"start model": run.start, "trained, plain": run.plain.mean(axis=1),
                          "trained, Matryoshka": run.matryoshka.mean(axis=1)})
    table.index.name = "k"
    table["Matryoshka − plain"] = [run.changes[k].described() for k in table.index]
    figure = go.Figure()
    for column in ("start model", "trained, plain", "trained, Matryoshka"):
        figure.add_trace(go.Scatter(x=table.index, y=table[column], mode="lines+markers", name=column))
    figure.update_layout(title=f"{lesson.encoder.name}: STS of the first k dimensions", xaxis_title="k (log scale)",
                         yaxis_title="STS avg (Spearman × 100)", xaxis_type="log", height=380)
    smallest = int(table.index.min())
    change = run.changes[smallest]
    said = ("Matryoshka − plain at every k: " + "; ".join(f"k = {k}: {interval.described()} ({effect(interval)})"
                                                           for k, interval in run.changes.items())
            + f". At k = {smallest} the Matryoshka-trained model's first dimensions score "
            f"{table.loc[smallest, 'trained, Matryoshka']:.2f} against the plain-trained model's "
            f"{table.loc[smallest, 'trained, plain']:.2f}.")
    return Report(run.trained, with_provenance(table.round(2), model=lesson.encoder, pooling="mean",
                                               aggregation="STS avg: mean Spearman × 100 over the seven sets; each "
                                                           "trained column: the mean over seeds; the change: t interval "
                                                           "over seeds", split=lesson.split.split("; retrieval")[0]),
                  figure, said, interval_forest_figure({f"k = {k}": interval for k, interval in run.changes.items()},
                                                       f"{lesson.encoder.name}: Matryoshka − plain, first k dimensions"),
                  verdicts=verdict(NOTEBOOK, f"Matryoshka training against plain training, first {smallest} dimensions",
                                   effect(change)))


def _static_steps_markdown() -> Markdown:
    """model2vec's steps beside the earlier lessons, as a Markdown table (a description, not a measurement)."""
    rows = [f"| {step} | {row['model2vec does']} | {row['the earlier lesson']} |" for step, row in STATIC_STEPS.iterrows()]
    return Markdown("\n".join(["| step | model2vec does | the earlier lesson |", "|---|---|---|", *rows]))


def static_report(lesson: Lesson08, run: StaticRun) -> Report:
    """§4: the static model beside the transformer: encoding time per query, STS and recall, and their ratios."""
    table = run.frontier.table
    transformer, static = table.index
    rows = pd.DataFrame({"encode ms per query": [lesson.encode_ms, run.encode_ms],
                         "STS avg": table["STS avg"].tolist(), f"recall@{K}": table[f"recall@{K}"].tolist(),
                         "bytes per vector": table["bytes per vector"].tolist()}, index=[lesson.encoder.name, static])
    rows.index.name = "model"
    speed = lesson.encode_ms / run.encode_ms
    change = run.frontier.intervals[static]
    said = (f"Distilled in {run.distil_seconds:.0f} s from {lesson.encoder.name} (the distillation reads no training "
            f"data; what the static model knows, it learned from this teacher). One query encodes {speed:.0f}× faster "
            f"({run.encode_ms:.2f} ms against {lesson.encode_ms:.1f} ms); STS avg {rows['STS avg'].iloc[1]:.2f} "
            f"against the transformer's {rows['STS avg'].iloc[0]:.2f}, in Spearman × 100 points: {change.described()}; "
            f"recall@{K} {rows[f'recall@{K}'].iloc[1]:.3f} against {rows[f'recall@{K}'].iloc[0]:.3f}.")
    return Report(_captioned(rows.round(3), lesson, "encode ms: one query alone, fastest over the timed queries"), said,
                  _static_steps_markdown(), verdicts=verdict(NOTEBOOK, "the static model encodes faster than the transformer",
                                                 "yes" if speed > 1 else "no"))


def index_report(lesson: Lesson08, run: IndexRun) -> Report:
    """§5: exact search against the HNSW graph: time, recall, and how much of exact search's top k it finds."""
    table = _captioned(run.frontier.table.round(4), lesson, "the same float32 vectors, searched two ways")
    hnsw = run.frontier.table.index[1]
    ratio = run.frontier.table.loc[hnsw, "time vs float32"]
    said = (f"The graph finds {100 * run.overlap:.1f} % of exact search's top {K} and answers in {ratio:.2f}× its time, on "
            f"{len(lesson.retrieval.corpus):,} sentences: exact search reads every vector, so its time grows with the "
            "corpus while the graph's walk grows with its logarithm.")
    return Report(table, said)


def plane_report(lesson: Lesson08, quantized: Frontier, reduced: Frontier, static: StaticRun, indexed: IndexRun,
                 reranking: RerankRun) -> Report:
    """§7: every point on two planes: bytes against STS, and milliseconds per query (encoding + search, + reranking)
    against recall@K (the static model's own encoding time for its point)."""
    table = pd.concat([run.table for run in (quantized, reduced, static.frontier, indexed.frontier)])
    table = table[~table.index.duplicated()]
    encode = pd.Series(lesson.encode_ms, index=table.index)
    encode[static.frontier.table.index[1]] = static.encode_ms
    reranked = rerank_table(lesson, reranking)
    for name, row in reranked.iterrows():
        table.loc[name, ["ms per query", f"recall@{K}"]] = [table.loc["float32", "ms per query"] + row["rerank ms per query"],
                                                          row[f"recall@{K} reranked"]]
        encode[name] = lesson.encode_ms
    figure = make_subplots(rows=1, cols=2, subplot_titles=("bytes per vector against STS",
                                                           f"ms per query against recall@{K}"))
    stored = table.dropna(subset=["STS avg"])  # reranking changes the order, not what is stored
    figure.add_trace(go.Scatter(x=stored["bytes per vector"], y=stored["STS avg"], mode="markers", text=stored.index,
                                hovertemplate="%{text}: %{x} bytes, STS %{y:.2f}<extra></extra>", name="STS"), 1, 1)
    figure.add_trace(go.Scatter(x=encode + table["ms per query"], y=table[f"recall@{K}"], mode="markers",
                                text=table.index, name=f"recall@{K}",
                                hovertemplate="%{text}: %{x:.2f} ms, recall %{y:.3f}<extra></extra>"), 1, 2)
    figure.update_xaxes(type="log", title_text="bytes per vector (log)", row=1, col=1)
    figure.update_xaxes(type="log", title_text="ms per query: encoding + search (log)", row=1, col=2)
    figure.update_layout(height=420, showlegend=False, title=f"{lesson.encoder.name}: what each way of keeping vectors costs")
    cheapest, why = within_one_point(quantized, reduced, indexed.frontier)
    said = (f"The fewest bytes whose STS change against float32 lies within one point (the whole 95 % paired-bootstrap "
            f"interval above −1), among this model's own storages: {cheapest}" + (
                f" ({int(table.loc[cheapest, 'bytes per vector'])} bytes against {int(table['bytes per vector'].iloc[0])}; "
                f"{why})." if cheapest != "none" else f" ({why})."))
    return Report(figure, said, verdicts=verdict(NOTEBOOK, "fewest bytes within one STS point of float32", cheapest))


def within_one_point(*frontiers: Frontier) -> tuple[str, str]:
    """The storage with the fewest bytes whose STS change against float32 has its interval's lower bound above −1, and
    its interval; ('none', why) if no storage does. Only the model's own vectors compete (the static model is another
    model), and rescored rows are left out: what they store is binary's, and their STS is binary's question asked
    with a float query."""
    candidates = {}
    for frontier in frontiers:
        for name, interval in frontier.intervals.items():
            if not name.startswith("binary, rescored") and interval.low > -1:
                candidates[name] = (int(frontier.table.loc[name, "bytes per vector"]), interval)
    if not candidates:
        return "none", "no storage's interval lies wholly above −1"
    cheapest = min(candidates, key=lambda name: candidates[name][0])
    return cheapest, f"STS {candidates[cheapest][1].described()}"


def predict_binary(lesson: Lesson08, run: Frontier):
    """§2's predict question: binary keeps one bit of every 32: will STS surely fall a point or more?"""
    from sbert_workbook.teaching.predict import predict_question

    options = ["Yes: surely a point or more below float32", "No sure loss of a point"]
    hurts = effect(run.intervals["binary"]) == "hurts"
    return predict_question(
        f"Binary vectors keep one bit of each of {lesson.encoder.name}'s 32-bit numbers, its sign. Will STS (both "
        "sentences of a pair binarised, compared by how many bits agree, d − 2·Hamming) fall a point or more below "
        "float32's, beyond its interval?",
        options, options[0 if hurts else 1],
        "A sign keeps which side of each direction a sentence lies on. How much that loses depends on how the model "
        "spreads its sentences: centred, spread dimensions keep most of the order in their signs; a cone whose every "
        "sentence has the same sign in its top directions loses them. The next cell shows the change with its interval.")


def beside_sentence_transformers(lesson: Lesson08, int8, binary) -> Report:
    """§2: the notebook's int8 and binary, run on the corpus, against sentence-transformers' quantize_embeddings."""
    from sentence_transformers.util.quantization import quantize_embeddings

    ranges = np.vstack([lesson.calibration.min(axis=0), lesson.calibration.max(axis=0)])
    lines = []
    for name, ours, theirs in (
            ("int8", lambda: int8(lesson.corpus_vectors, ranges[0], ranges[1]),
             lambda: quantize_embeddings(lesson.corpus_vectors, "int8", ranges=ranges)),
            ("binary", lambda: binary(lesson.corpus_vectors), lambda: quantize_embeddings(lesson.corpus_vectors, "ubinary"))):
        try:
            same = np.array_equal(np.asarray(ours()), theirs())
        except Exception as error:  # a cell left unfinished is a message, not a traceback
            same, why = False, f"({type(error).__name__}: {error})"
        else:
            why = ""
        lines.append(f"{'✓' if same else '✗'} your {name} on the {len(lesson.corpus_vectors):,} corpus vectors "
                     f"{'equals' if same else 'differs from'} sentence-transformers' quantize_embeddings ({name if name == 'int8' else 'ubinary'}) {why}".rstrip())
    return Report(*lines)
