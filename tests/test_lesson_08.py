"""Lesson 08's set-up and reports on small, hand-made cases: the retrieval set, the calibration sentences, the timing,
the reranking table and the plane's verdict."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sbert_workbook.cost.frontier import Frontier
from sbert_workbook.evaluation.rerank import RerankOutcome
from sbert_workbook.lessons.nb08 import lesson as set_up
from sbert_workbook.lessons.nb08.rerank import rerank_table


def test_every_query_finds_its_own_pairs_second_sentence_among_distractors_it_does_not_contain():
    from sbert_workbook.data.loaders import load_sts

    found = set_up.retrieval_set(corpus_size=300, queries=10, seed=0)
    stsb = load_sts("stsb", "test")
    matching = {(a, b) for a, b, score in zip(stsb.sentences1, stsb.sentences2, stsb.scores) if score >= set_up.MATCH_SCORE}
    assert len(found) == 10 and len(found.corpus) == 300 == len(set(found.corpus))
    assert all((q, found.corpus[m]) in matching for q, m in zip(found.queries, found.match))
    assert not set(found.queries) & set(found.corpus[-100:])  # the NLI distractors are none of the queries


def test_calibration_sentences_are_in_none_of_the_sentences_excluded():
    excluded = set(set_up.calibration_sentences(50, set()))
    fresh = set_up.calibration_sentences(50, excluded)
    assert len(fresh) == 50 and not set(fresh) & excluded


def test_a_querys_encoding_time_is_the_fastest_single_sentence_call(monkeypatch):
    calls = []
    clock = iter([0.0, 0.004, 1.0, 1.002, 2.0, 2.010])  # three timed calls: 4 ms, 2 ms, 10 ms
    monkeypatch.setattr(set_up.time, "perf_counter", lambda: next(clock))
    ms = set_up.timed_encoding_ms(lambda sentences: calls.append(list(sentences)), ["a", "b", "c"], repeats=1)
    assert ms == pytest.approx(2.0)
    assert calls == [["a"], ["a"], ["b"], ["c"]]  # a warm-up, then one sentence a call


def test_reranking_is_read_at_ten_within_each_k_by_hand():
    before = np.array([1.0, 1 / 12, 0.0])  # ranks 1, 12 (beyond 10), missing
    after = np.array([1 / 2, 1 / 3, 0.0])
    outcome = RerankOutcome(50, before, after, np.array([True, True, False]), seconds=0.3)
    row = rerank_table(None, type("Run", (), {"outcomes": [outcome]})()).loc["float32, top 50 reranked"]
    assert row["recall@10 search"] == pytest.approx(1 / 3) and row["recall@10 reranked"] == pytest.approx(2 / 3)
    assert row["MRR@10 search"] == pytest.approx(1 / 3) and row["MRR@10 reranked"] == pytest.approx((1 / 2 + 1 / 3) / 3)
    assert row["rerank ms per query"] == pytest.approx(100.0)


def test_the_exercise_checks_compute_their_truth_from_the_run():
    from sbert_workbook.checks import nb08 as checks

    assert checks.ex08_1(type("L", (), {"dimensions": 384})()) == 48
    assert checks.ex08_1(type("L", (), {"dimensions": 13})()) == 2
    table = pd.DataFrame({"bytes per vector": [1536, 1024, 512, 128], "STS avg": [80.0, 79.0, 77.0, 70.0]},
                         index=["float32", "PCA-k (k = 256)", "PCA-k (k = 128)", "PCA-k (k = 32)"])
    slopes = checks.ex08_2(Frontier(table, table, {}))
    assert slopes == pytest.approx([1 / np.log2(1.5), 2.0, 7 / 2])


def test_the_first_k_dimensions_are_scored_as_scipy_scores_their_cosines():
    from scipy.stats import spearmanr

    from sbert_workbook.data import StsData
    from sbert_workbook.diagnosis.ladder import PairVectors
    from sbert_workbook.lessons.nb08.dimensions import first_k_sts

    rng = np.random.default_rng(0)
    left, right = [f"l{i}" for i in range(30)], [f"r{i}" for i in range(30)]
    vectors = rng.normal(size=(60, 8))
    gold = rng.uniform(0, 5, size=30)
    sets = {name: StsData(name, "test", left[part], right[part], gold[part], ["x"] * 15)
            for name, part in (("a", slice(0, 15)), ("b", slice(15, 30)))}
    scored = first_k_sts(PairVectors(sets, left + right, vectors), (8, 3))

    def by_hand(k, rows):
        u, v = vectors[rows, :k], vectors[[30 + i for i in rows], :k]
        cosines = (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
        return 100 * spearmanr(cosines, gold[rows]).statistic

    for k in (8, 3):
        assert scored[k] == pytest.approx((by_hand(k, list(range(15))) + by_hand(k, list(range(15, 30)))) / 2)
    assert scored[8] != pytest.approx(scored[3])  # the cut does change the cosines: the comparison is not trivial


def test_the_offered_cpu_run_is_told_from_its_measurement(tmp_path):
    import json

    from sbert_workbook.lessons.nb08.dimensions import CPU_RUN_FILE, CPU_RUN_STEPS, measured_cpu_run

    record = {"steps": 200, "seeds": 3, "model_name": "m", "seconds": 790, "nproc": 2, "peak_rss_gb": 2.34,
              "first_k": {"64": {"Matryoshka − plain": "+0.50 [+0.10, +0.90]: apart", "start model": 75.0},
                          "32": {"Matryoshka − plain": "+0.02 [-0.76, +0.79]: tie", "start model": 73.04}}}
    (tmp_path / "run.json").write_text(json.dumps(record), encoding="utf-8")
    assert measured_cpu_run(1000, tmp_path / "run.json") == (
        "Measured: 200 steps × 3 seeds × two objectives with m took 13 min on 2 CPU cores and peaked at 2.3 GB. "
        "Matryoshka − plain, STS avg of the first k dimensions: k = 64: +0.50 [+0.10, +0.90]: apart; k = 32: +0.02 "
        "[-0.76, +0.79]: tie. The start model, not trained for it, already kept 73.0 of its 75.0 in its first 32 "
        "dimensions. Full mode's 1000 steps per run would take about 1.1 h at that pace: a GPU's run.")  # 790 s × 1000 / 200
    assert measured_cpu_run(1000, tmp_path / "never.json") == ""
    if CPU_RUN_FILE.is_file():  # tools/matryoshka_run.py's record, shipped in the wheel: of the run the cell offers
        shipped = json.loads(CPU_RUN_FILE.read_text(encoding="utf-8"))
        assert shipped["steps"] == CPU_RUN_STEPS and shipped["first_k"] and shipped["seconds"] > 0
        assert all(f"k = {k}: " in measured_cpu_run(1000) for k in shipped["first_k"])  # every k, not one


def test_within_one_point_needs_the_whole_interval_above_minus_one_and_skips_rescored_rows():
    from sbert_workbook.evaluation.uncertainty import Interval
    from sbert_workbook.lessons.nb08.plane import within_one_point

    table = pd.DataFrame({"bytes per vector": [1536, 384, 48, 48, 432]},
                         index=["float32", "int8", "binary", "binary, rescored ×4", "binary, rescored ×4 with int8"])
    intervals = {"int8": Interval(-0.1, -0.5, 0.3, "x"), "binary": Interval(-0.6, -1.4, 0.2, "x"),  # a point estimate
                 "binary, rescored ×4": Interval(0.0, -0.2, 0.2, "x"),                             # within, its interval not
                 "binary, rescored ×4 with int8": Interval(0.0, -0.2, 0.2, "x")}
    assert within_one_point(Frontier(table, None, intervals))[0] == "int8"
    none = {"int8": Interval(-2.0, -3.0, -1.5, "x")}
    assert within_one_point(Frontier(table, None, none)) == ("none", "no storage's interval lies wholly above −1")


def test_the_sweep_takes_distinct_shipped_sentences_it_was_not_told_to_exclude():
    from sbert_workbook.lessons.nb08.search import sweep_sentences

    first = sweep_sentences(300, set())
    assert len(first) == 300 == len(set(first))
    later = sweep_sentences(300, set(first[:100]))
    assert not set(later) & set(first[:100]) and later[:200] == first[100:]
    assert len(sweep_sentences(40_000, set())) > 26_125  # beyond SNLI and MultiNLI dev: the STS and SICK sentences too


def test_the_reductions_rows_are_matched_exactly():
    from sbert_workbook.lessons.nb08.dimensions import reduction_rows

    index = ["float32", "first k dimensions (k = 32)", "first k dimensions, centred (k = 32)", "PCA-k (k = 32)"]
    table = pd.DataFrame({"dimensions": [384, 32, 32, 32]}, index=index)
    assert reduction_rows(table, "first k dimensions") == ["first k dimensions (k = 32)"]
    assert reduction_rows(table, "first k dimensions, centred") == ["first k dimensions, centred (k = 32)"]


def test_full_mode_leaves_calibration_sentences_and_a_corpus_too_large_says_what_to_lower():
    """08's full sizes must start: the corpus may not take every NLI sentence the calibration fits on."""
    from sbert_workbook.lessons.manifest import manifest
    from sbert_workbook.lessons.nb08.lesson import calibration_sentences, retrieval_set

    full = manifest("08").sizes_for("full")
    found = retrieval_set(full["CORPUS_SIZE"], full["QUERIES"], 0)
    assert len(calibration_sentences(full["CALIBRATION_SENTENCES"], set(found.corpus) | set(found.queries))) > 1000
    everything = retrieval_set(60_000, None, 0)
    with pytest.raises(ValueError, match="lower CORPUS_SIZE"):
        calibration_sentences(5000, set(everything.corpus) | set(everything.queries))
