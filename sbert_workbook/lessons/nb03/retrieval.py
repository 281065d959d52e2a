"""Lesson 03 §6: semantic search with a bi-encoder, what one query would cost a cross-encoder, and retrieve-and-rerank
with every gain's interval drawn (``03_pooling_and_sts.ipynb``).

The model trained for similarity searches (MODEL itself, or TRAINED_MODEL beside a raw MODEL). The cross-encoder is
built over the same weights with a new regression head (the architecture ``04`` §1 trains) and fitted on STS-B *train*
for ``RERANK_STEPS`` steps; it is freed when §6 is done with it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from sbert_workbook.data.corpora import search_corpus
from sbert_workbook.data.loaders import load_sts
from sbert_workbook.evaluation import rerank, search, uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.sts import score_pairs
from sbert_workbook.lessons.nb03.lesson import Lesson03
from sbert_workbook.lessons.report import Report
from sbert_workbook.published.sbert_recipe import SBERT_STSB_RECIPE
from sbert_workbook.training.cross_encoder import CrossEncoder
from sbert_workbook.training.examples import sts_pairs
from sbert_workbook.training.fitting import TrainingConfig, fit

QUERY = "A man is playing a guitar."


def search_index(lesson: Lesson03) -> search.SearchIndex:
    """§6's experiment: every corpus sentence embedded once by the model trained for similarity: SEARCH_SIZE sentences
    of STS-B and SNLI, or (SEARCH_SIZE None, quick mode) the STS-B sample and the demo pairs, already embedded."""
    model, pooling = lesson.trained()
    if lesson.sizes.SEARCH_SIZE is None:
        stsb, demo = lesson.stsb(), load_sts("demo", "all")
        corpus = list(dict.fromkeys(stsb.sentences1 + stsb.sentences2 + demo.sentences1 + demo.sentences2))
    else:
        corpus = search_corpus(lesson.sizes.SEARCH_SIZE)
    encoder = lesson.views if model is lesson.encoder else model  # the views reuse the vectors §3 computed
    index = search.SearchIndex(encoder, corpus, pooling=pooling)
    print(f"{len(index)} sentences indexed with {model.name} ({pooling} pooling)")
    return index


def search_box(index: search.SearchIndex):
    """A query box and the top k of the index, redrawn on every change."""
    import ipywidgets as widgets

    from sbert_workbook.teaching.widgets import interactive_figure

    return interactive_figure(
        lambda query, k: index.search(query, k).round(3),
        query=widgets.Text(value=QUERY, continuous_update=False, layout=widgets.Layout(width="60%")),
        k=widgets.IntSlider(value=5, min=1, max=20, description="top k"))


def cross_encoder(lesson: Lesson03) -> CrossEncoder:
    model, _ = lesson.trained()
    return CrossEncoder.from_pretrained(model.resolved, device=lesson.device, seed=lesson.seed)


def cross_encoder_cost(lesson: Lesson03, index: search.SearchIndex) -> str:
    """§6: the pair passes one query would take against the whole index, timed on 16 pairs (untrained head: a pass
    costs the same either way)."""
    pair_model, sample = cross_encoder(lesson), index.sentences[:16]
    per_pair_s = search.time_pair_passes(pair_model.predict, [(QUERY, candidate) for candidate in sample]) / len(sample)
    return (f"A cross-encoder would need {len(index):,} pair passes per query: about {per_pair_s * len(index):.1f} s at the "
            f"{per_pair_s * 1000:.1f} ms per pair measured on {len(sample)} pairs ({pair_model.name} on {lesson.device}, this "
            "machine now); the index answers it with one forward pass.")


@dataclass
class Reranking:
    """What §6's retrieve-and-rerank measured: the two judges of STS-B pairs, and each k's per-query outcomes."""

    judges: dict[str, np.ndarray]  # judge → its score of every STS-B test pair of §3
    gold: np.ndarray
    outcomes: list[rerank.RerankOutcome]
    bi_ms_per_query: float
    retrieval: rerank.RetrievalSet
    trained: str  # what the cross-encoder is: its weights and training
    retriever: str


def train_reranker(lesson: Lesson03) -> tuple[CrossEncoder, str]:
    """The cross-encoder over the search model's weights, its head and layers fitted on STS-B train for RERANK_STEPS."""
    pair_model = cross_encoder(lesson)
    config = TrainingConfig(learning_rate=lesson.sizes.RERANK_LEARNING_RATE, max_steps=lesson.sizes.RERANK_STEPS,
                            seed=lesson.seed, device=str(lesson.device), save_checkpoints=False, progress=not lesson.quick)
    run = fit(pair_model, sts_pairs(load_sts("stsb", "train")), "cross_regression", config)
    return pair_model, (f"{pair_model.name}, trained {run.steps} steps on STS-B train (batch {config.batch_size}, "
                        f"learning rate {config.learning_rate:g}, {run.seconds:.1f} s)")


def retrieve_and_rerank(lesson: Lesson03) -> Reranking:
    """§6's experiment: train the reranker briefly, score §3's STS-B pairs with both judges, then retrieve the top k with
    the bi-encoder and rerank it with the cross-encoder, per k. The cross-encoder is freed at the end."""
    model, pooling = lesson.trained()
    pair_model, trained = train_reranker(lesson)
    stsb = lesson.stsb()
    judges = {"bi-encoder: cosine": np.asarray(score_pairs(lambda s: model.encode(s, pooling=pooling), stsb)),
              "cross-encoder: one pass per pair": pair_model.predict(list(zip(stsb.sentences1, stsb.sentences2)))}
    every_pair = load_sts("stsb", "test")
    pairs = lesson.sizes.RERANK_PAIRS
    retrieval = rerank.paraphrase_retrieval_set(every_pair.sample(pairs, seed=lesson.seed) if pairs else every_pair,
                                                max_queries=lesson.sizes.RERANK_QUERIES, seed=lesson.seed)
    ks = lesson.sizes.RERANK_KS
    corpus_vectors = model.encode(retrieval.corpus, pooling=pooling)  # the index: paid once
    started = time.perf_counter()
    query_vectors = model.encode(retrieval.queries, pooling=pooling)
    search.top_k(query_vectors, corpus_vectors, max(ks))
    bi_ms = 1000 * (time.perf_counter() - started) / len(retrieval)
    outcomes = rerank.rerank_outcomes(query_vectors, corpus_vectors, pair_model.predict, retrieval, ks)
    del pair_model  # the cross-encoder's weights and optimizer state: §6 is done with them
    return Reranking(judges, np.asarray(stsb.scores), outcomes, bi_ms, retrieval, trained, f"{model.name} ({pooling} pooling)")


def judges_report(lesson: Lesson03, run: Reranking) -> Report:
    """§6: which judge orders §3's STS-B pairs better, with the paired-bootstrap interval of the difference, drawn."""
    bi, cross = run.judges
    interval = uncertainty.paired_bootstrap(run.gold, run.judges[cross], run.judges[bi])
    scores = ", ".join(f"{name} {uncertainty.spearman_rows(values, run.gold).item():.2f}" for name, values in run.judges.items())
    reading = {"higher": "The cross-encoder is the better judge of these pairs: reranking can raise recall@1.",
               "tie": "The sample cannot tell the two judges apart: expect reranking to move hits both ways.",
               "lower": ("The cross-encoder is the worse judge of these pairs (a new head, trained as said above; SBERT's "
                         f"cross-encoders, Table 2's BERT rows, trained {SBERT_STSB_RECIPE.settings['epochs']} epochs: its "
                         "caption): expect reranking to move hits the retriever had right down.")}[interval.direction]
    return Report(f"Cross-encoder: {run.trained}. As judges of the {len(run.gold)} STS-B test pairs of §3 (Spearman x 100): "
                  f"{scores}.", f"Cross-encoder minus bi-encoder: {interval.described()}.", reading,
                  interval_forest_figure({"cross-encoder − bi-encoder": interval}, "Judges of §3's STS-B test pairs"))


def rerank_report(lesson: Lesson03, run: Reranking) -> Report:
    """§6: recall@1 and MRR@k before and after reranking per k, the cost, and each gain's interval, drawn."""
    table = rerank.outcomes_table(run.outcomes)
    gains = {}
    for o in run.outcomes:
        gains[f"recall@1 gain, k = {o.k}"] = uncertainty.paired_mean_interval(100.0 * (o.after == 1), 100.0 * (o.before == 1))
        gains[f"MRR@k gain, k = {o.k}"] = uncertainty.paired_mean_interval(100 * o.after, 100 * o.before)
    table["recall@1 gain"] = [str(gains[f"recall@1 gain, k = {k}"]) for k in table.index]
    table["MRR@k gain"] = [str(gains[f"MRR@k gain, k = {k}"]) for k in table.index]
    table = with_provenance(table.round(2), model=f"retriever: {run.retriever}; reranker: {run.trained}",
                            pooling="retriever: as named; reranker: none (one joint pass per pair)",
                            aggregation="recall@1, MRR@k, recall@k: mean over the queries x 100; gains: difference with its "
                                        "95 % paired bootstrap interval over the queries; ms per query: one timed run, this "
                                        "machine now", split=run.retrieval.description)
    return Report(table, f"The bi-encoder alone: {run.bi_ms_per_query:.1f} ms per query (encode it, score all "
                         f"{len(run.retrieval.corpus)} sentences, keep the top {max(o.k for o in run.outcomes)}). Reranking adds "
                         "the 'rerank ms per query' column: k pair passes each.",
                  interval_forest_figure(gains, f"What reranking bought, per k ({len(run.retrieval)} queries)",
                                         unit="points × 100"))
