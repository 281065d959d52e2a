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
from sbert_workbook.lessons.nb08.setup import NOTEBOOK, Lesson08
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


def _captioned(table: pd.DataFrame, lesson: Lesson08, what: str) -> pd.DataFrame:
    return with_provenance(table, model=lesson.encoder, pooling=lesson.encoder.modules.describe().removeprefix("pooling: "),
                           aggregation=f"STS avg: mean Spearman × 100 over the seven sets; recall@{K} and MRR@{K} over "
                                       "the queries; ms per query: the search alone, fastest of the repeats; " + what,
                           split=lesson.split)


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
    recovered = run.table.loc[rescored, f"recall@{K}"].max() >= run.table.loc["binary", f"recall@{K}"]
    verdicts |= verdict(NOTEBOOK, f"rescoring binary candidates keeps or raises recall@{K}", "yes" if recovered else "no")
    return Report(table, *_changes(run), _forest(run, f"{lesson.encoder.name}: STS change against float32"),
                  verdicts=verdicts)


def dimensions_report(lesson: Lesson08, run: Frontier) -> Report:
    """§3: first-k, PCA-k and whitening-k at every k: the table, STS against k per method, and which keeps most."""
    table = _captioned(run.table.round(4), lesson, "PCA-k and whitening-k fitted on the calibration sentences")
    figure = go.Figure()
    methods = {"first k dimensions": "first k", "PCA-k": "PCA-k", "whitening": "whitening-k"}
    for prefix, label in methods.items():
        rows = [name for name in run.table.index if name.startswith(prefix)]
        figure.add_trace(go.Scatter(x=run.table.loc[rows, "dimensions"], y=run.table.loc[rows, "STS avg"],
                                    mode="lines+markers", name=label))
    figure.add_hline(y=run.table["STS avg"].iloc[0], line={"dash": "dot"}, annotation_text="float32, all dimensions")
    figure.update_layout(title=f"{lesson.encoder.name}: STS against the dimensions kept", xaxis_title="k (log scale)",
                         yaxis_title="STS avg (Spearman × 100)", xaxis_type="log", height=380)
    smallest = int(run.table.loc[list(run.intervals), "dimensions"].min())
    at_smallest = run.table.index[run.table["dimensions"] == smallest]
    rows = {label: next(name for name in at_smallest if name.startswith(prefix)) for prefix, label in methods.items()}
    best, runner_up = sorted(rows, key=lambda label: -run.table.loc[rows[label], "STS avg"])[:2]
    gap = run.change(rows[best], rows[runner_up], resamples=lesson.sizes.RESAMPLES, seed=lesson.seed)
    said = (f"At k = {smallest}: " + ", ".join(f"{label} {run.table.loc[row, 'STS avg']:.2f}" for label, row in rows.items())
            + f". {best} − {runner_up}: {gap.described()}.")
    kept = best if gap.direction == "higher" else f"{best} or {runner_up} (a tie)"
    return Report(table, figure, said, _forest(run, f"{lesson.encoder.name}: STS change against float32, every k"),
                  verdicts=verdict(NOTEBOOK, f"the reduction that keeps most STS at k = {smallest}", kept))


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
    said = (f"At k = {smallest} the Matryoshka-trained model's first dimensions score {table.loc[smallest, 'trained, Matryoshka']:.2f} "
            f"against the plain-trained model's {table.loc[smallest, 'trained, plain']:.2f}: {change.described()}. "
            f"The Matryoshka sum at k = {smallest}: {effect(change)}.")
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
    quality = rows["STS avg"].iloc[1] / rows["STS avg"].iloc[0]
    change = run.frontier.intervals[static]
    said = (f"Distilled in {run.distil_seconds:.0f} s, no training data. One query encodes {speed:.0f}× faster "
            f"({run.encode_ms:.2f} ms against {lesson.encode_ms:.1f} ms); it keeps {100 * quality:.0f} % of the "
            f"transformer's STS ({change.described()}) and {rows[f'recall@{K}'].iloc[1]:.3f} of recall@{K} against "
            f"{rows[f'recall@{K}'].iloc[0]:.3f}.")
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


def rerank_table(lesson: Lesson08, run: RerankRun) -> pd.DataFrame:
    """Per k: recall@K and MRR@K of float32 search alone and reranked, and the cross-encoder's ms per query."""
    rows = {}
    for o in run.outcomes:
        rows[f"float32, top {o.k} reranked"] = {f"recall@{K} search": np.mean(o.before >= 1 / K),
                                                 f"recall@{K} reranked": np.mean(o.after >= 1 / K),
                                                 f"MRR@{K} search": np.mean(np.where(o.before >= 1 / K, o.before, 0)),
                                                 f"MRR@{K} reranked": np.mean(np.where(o.after >= 1 / K, o.after, 0)),
                                                 "rerank ms per query": 1000 * o.seconds / len(o.before)}
    return pd.DataFrame(rows).T.rename_axis("retrieve, then rerank")


def rerank_report(lesson: Lesson08, run: RerankRun) -> Report:
    """§6: recall and MRR before and after reranking each k, the cross-encoder's cost, and each MRR change drawn."""
    from sbert_workbook.evaluation.uncertainty import paired_mean_interval

    table = rerank_table(lesson, run)
    changes = {f"MRR@{K} reranked − search, top {o.k}": paired_mean_interval(
        100 * np.where(o.after >= 1 / K, o.after, 0), 100 * np.where(o.before >= 1 / K, o.before, 0), seed=lesson.seed)
        for o in run.outcomes}
    said = [f"{name}: {interval.described()}" for name, interval in changes.items()]
    return Report(f"Cross-encoder: {run.trained}; {run.queries} queries.",
                  _captioned(table.round(4), lesson, "reciprocal rank 0 beyond the top 10; rerank ms: the cross-encoder's passes"),
                  *said, interval_forest_figure(changes, f"{lesson.encoder.name}: reranking's change of MRR@{K}",
                                                unit="MRR × 100"))


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
    cheapest = stored[stored["STS avg"] >= stored["STS avg"].iloc[0] - 1]["bytes per vector"].idxmin()
    said = (f"The fewest bytes within one STS point of float32: {cheapest} "
            f"({int(table.loc[cheapest, 'bytes per vector'])} bytes against {int(table['bytes per vector'].iloc[0])}).")
    return Report(figure, said, verdicts=verdict(NOTEBOOK, "fewest bytes within one STS point of float32", cheapest))


def predict_binary(lesson: Lesson08, run: Frontier):
    """§2's predict question: binary keeps one bit of every 32: will STS surely fall a point or more?"""
    from sbert_workbook.app.predict import predict_question

    options = ["Yes: surely a point or more below float32", "No sure loss of a point"]
    hurts = effect(run.intervals["binary"]) == "hurts"
    return predict_question(
        f"Binary vectors keep one bit of each of {lesson.encoder.name}'s 32-bit numbers, its sign. Will STS (a float "
        "query against each stored partner's bits) fall a point or more below float32's, beyond its interval?",
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
