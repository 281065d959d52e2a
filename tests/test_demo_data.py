"""The workbook's own demo pairs (sbert_workbook/data/shipped/demo_sts_pairs.tsv): format, balance, and that each category is what it says."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import sbert_workbook as sbw

DEMO = Path(__file__).resolve().parents[1] / "sbert_workbook" / "data" / "shipped" / "demo_sts_pairs.tsv"
NEGATION_WORDS = {"not", "no", "never", "nobody", "n't"}


def _words(sentence: str) -> list[str]:
    return re.findall(r"n't|[a-z]+", sentence.lower().replace("n't", " n't"))


@pytest.fixture(scope="module")
def demo():
    return sbw.load_sts("demo", "all")


def test_header_and_columns_are_exactly_as_documented():
    lines = DEMO.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "sentence1\tsentence2\tscore\tcategory"
    assert all(len(line.split("\t")) == 4 for line in lines[1:]), "every row has exactly four tab-separated columns"


def test_size_categories_and_score_range(demo):
    assert 120 <= len(demo) <= 200
    counts = Counter(demo.subsets)
    assert set(counts) == {"paraphrase", "negation", "word_order", "related", "unrelated"}
    assert min(counts.values()) >= 20, f"every category needs at least 20 pairs: {counts}"
    assert demo.scores.min() >= 0 and demo.scores.max() <= 5
    assert "not a benchmark" in demo.origin


def test_no_pair_appears_twice(demo):
    pairs = [tuple(sorted(p)) for p in zip(demo.sentences1, demo.sentences2)]
    assert len(pairs) == len(set(pairs))
    assert all(a != b for a, b in zip(demo.sentences1, demo.sentences2))


def test_the_example_from_the_issue_is_there(demo):
    assert ("I like this restaurant.", "I don't like this restaurant.") in zip(demo.sentences1, demo.sentences2)


def test_negation_pairs_negate_exactly_one_side(demo):
    for s1, s2, category in zip(demo.sentences1, demo.sentences2, demo.subsets):
        if category == "negation":
            negated = [bool(NEGATION_WORDS & set(_words(s))) for s in (s1, s2)]
            assert sum(negated) == 1, f"{s1!r} / {s2!r}: exactly one side should carry a negation"


def test_word_order_pairs_use_the_same_words(demo):
    for s1, s2, category in zip(demo.sentences1, demo.sentences2, demo.subsets):
        if category == "word_order":
            assert Counter(_words(s1)) == Counter(_words(s2)), f"{s1!r} / {s2!r} are not the same bag of words"


def test_scores_follow_the_categories(demo):
    scores = {c: demo.scores[np.array(demo.subsets) == c] for c in set(demo.subsets)}
    assert scores["paraphrase"].min() >= 4.0
    assert scores["unrelated"].max() <= 0.5
    assert scores["negation"].max() < scores["paraphrase"].min()
    assert scores["word_order"].max() < scores["paraphrase"].min()
    assert scores["unrelated"].max() < scores["related"].min()
