"""The comparison table takes any method that turns sentences into vectors as a row, scored against scipy."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from sbert_workbook.data.records import StsData
from sbert_workbook.encoding.contract import SentenceEncoder, as_embed_function
from sbert_workbook.encoding.pooled_views import PooledViews
from sbert_workbook.evaluation.comparison import comparison_table

RNG = np.random.default_rng(0)
SENTENCES = [f"sentence {i}" for i in range(120)]
VECTORS = torch.tensor(RNG.normal(size=(120, 6)))
SETS = {name: StsData(name, "test", SENTENCES[lo:lo + 30], SENTENCES[lo + 30:lo + 60], RNG.uniform(0, 5, 30), ["a"] * 30)
        for name, lo in (("one", 0), ("two", 60))}


def cosine_spearman(u, v, gold) -> float:
    cosines = (u * v).sum(1) / (u.norm(dim=1) * v.norm(dim=1))
    return 100 * spearmanr(cosines.numpy(), gold).statistic


def test_a_row_may_be_an_embed_function_an_encoder_or_one_method_per_set():
    views = PooledViews.from_vectors(SENTENCES, {"mean": VECTORS})
    lookup = lambda sentences: VECTORS[[SENTENCES.index(s) for s in sentences]]  # noqa: E731
    flipped = lambda sentences: -lookup(sentences)  # noqa: E731  (cosine is unchanged by a common sign flip)
    squashed = lambda sentences: lookup(sentences)[:, :3]  # noqa: E731
    table = comparison_table({"function": lookup, "encoder": views, "per set": {"one": flipped, "two": squashed}}, SETS,
                             aggregation="all")
    for name, data in SETS.items():
        u, v = lookup(data.sentences1), lookup(data.sentences2)
        expected = cosine_spearman(u, v, data.scores)
        assert table.loc["function", name] == pytest.approx(expected, abs=1e-9)
        assert table.loc["encoder", name] == pytest.approx(expected, abs=1e-9)
    assert table.loc["per set", "two"] == pytest.approx(
        cosine_spearman(squashed(SETS["two"].sentences1), squashed(SETS["two"].sentences2), SETS["two"].scores), abs=1e-9)
    assert table.loc["function", "avg"] == pytest.approx(table.loc["function", ["one", "two"]].mean())
    assert table.attrs["provenance"]["split"] == "test (one 30 pairs, two 30 pairs)"


def test_a_row_without_a_method_for_a_set_says_so():
    with pytest.raises(KeyError, match="not for the test set 'two'"):
        comparison_table({"only one": {"one": lambda s: VECTORS[:len(s)]}}, SETS)


def test_the_encoder_contract_is_what_decides_how_a_row_is_called():
    views = PooledViews.from_vectors(SENTENCES, {"mean": VECTORS})
    assert isinstance(views, SentenceEncoder) and not isinstance(lambda s: s, SentenceEncoder)
    torch.testing.assert_close(as_embed_function(views)(SENTENCES[:2]), VECTORS[:2])
    with pytest.raises(TypeError, match="function mapping a list of sentences"):
        as_embed_function(42)
