"""The sentence lists built from the data sets, against the files themselves and the counts the README quotes."""
from __future__ import annotations

import json

from sbert_workbook.data.corpora import nli_sentences, search_corpus, target_sentences


def test_search_corpus_starts_with_sts_b_and_has_no_duplicates(shared_data):
    first_line = (shared_data / "sts" / "STSBenchmark" / "sts-test.csv").read_text(encoding="utf-8").splitlines()[0]
    corpus = search_corpus(300, data_dir=shared_data)
    assert corpus[0] == first_line.split("\t")[5]
    assert len(corpus) == 300 == len(set(corpus))


def test_sts_b_target_sentences_are_the_distinct_sentences_of_all_three_splits(shared_data):
    sentences = target_sentences("stsb", data_dir=shared_data)
    assert len(sentences) == len(set(sentences)) == 15487  # of 8,628 pairs' 17,256 sentences (flow_fit_time.py)
    first_train = (shared_data / "sts" / "STSBenchmark" / "sts-train.csv").read_text(encoding="utf-8").splitlines()[0]
    assert sentences[0] == first_train.split("\t")[5]


def test_a_sample_of_target_sentences_keeps_the_test_pairs_it_is_given(shared_data):
    from sbert_workbook.data.loaders import load_sts

    test = load_sts("sts16", "test", data_dir=shared_data, limit=50)
    sampled = target_sentences("sts16", data_dir=shared_data, limit=100)
    assert not set(test.sentences1) <= set(sampled), "two samples of one set need not overlap: why `including` exists"
    kept = target_sentences("sts16", data_dir=shared_data, limit=100, including=test)
    assert set(test.sentences1 + test.sentences2) <= set(kept) and len(kept) == len(set(kept))


def test_nli_sentences_are_every_premise_and_hypothesis_once(shared_data):
    rows = [json.loads(line) for name in ("snli", "mnli")
            for line in (shared_data / "nli" / f"{name}_dev.jsonl").read_text(encoding="utf-8").splitlines()]
    sentences = nli_sentences(data_dir=shared_data)
    assert len(sentences) == len(set(sentences))
    assert set(sentences) == {row[field] for row in rows for field in ("premise", "hypothesis")}
    assert sentences[0] == rows[0]["premise"]
