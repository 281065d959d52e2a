"""The toy language's exact statistics, checked by hand, by brute-force enumeration and by sampling."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sbert_workbook.mlm.toy_language import HIDDEN, MarkovLanguage, toy_language

# Two words a, b with T = [[0.9, 0.1], [0.5, 0.5]]: the tiny case worked out by hand below.
TINY = MarkovLanguage(("a", "b"), ("X", "X"), np.array([[0.9, 0.1], [0.5, 0.5]]))


def test_tiny_case_matches_hand_computation():
    # Stationary: pi_b = T_ab / (T_ab + T_ba) = 0.1 / 0.6 = 1/6, so p(a) = 5/6.
    assert TINY.unigram() == pytest.approx([5 / 6, 1 / 6])
    a, b = 0, 1
    conditional = TINY.conditional([[a, HIDDEN, b]])[0]
    # Middle: p(x2 = a | a, _, b) = T_aa T_ab / (T_aa T_ab + T_ab T_bb) = 0.09 / (0.09 + 0.05) = 9/14.
    assert conditional[1] == pytest.approx([9 / 14, 5 / 14])
    # PMI(a, c) = log((9/14) / (5/6)) = log(27/35); PMI(b, c) = log((5/14) / (1/6)) = log(15/7).
    assert TINY.pmi([[a, HIDDEN, b]])[0, 1] == pytest.approx([math.log(27 / 35), math.log(15 / 7)])
    # First: p(x1 = a | _, b) = pi_a T_ab / (pi_a T_ab + pi_b T_bb) = (1/12) / (1/12 + 1/12) = 1/2.
    assert TINY.conditional([[HIDDEN, b]])[0, 0] == pytest.approx([0.5, 0.5])
    # Last: p(x3 | a, b, _) = T[b, :].
    assert TINY.conditional([[a, b, HIDDEN]])[0, 2] == pytest.approx([0.5, 0.5])


def test_visible_positions_are_certain():
    conditional = TINY.conditional([[0, HIDDEN, 1]])[0]
    assert conditional[0] == pytest.approx([1, 0]) and conditional[2] == pytest.approx([0, 1])


def _brute_force_conditional(language: MarkovLanguage, words: list[int], position: int) -> np.ndarray:
    """p(x_position | visible) by summing the joint probability over every filling of the hidden slots."""
    hidden = [t for t, w in enumerate(words) if w == HIDDEN]
    pi, transition = language.unigram(), language.transition
    totals = np.zeros(language.vocab_size)
    for filling in itertools.product(range(language.vocab_size), repeat=len(hidden)):
        full = list(words)
        for t, w in zip(hidden, filling):
            full[t] = w
        joint = pi[full[0]] * np.prod([transition[full[t], full[t + 1]] for t in range(len(full) - 1)])
        totals[full[position]] += joint
    return totals / totals.sum()


@pytest.mark.parametrize("words", [[3, HIDDEN, HIDDEN, 7, 2], [HIDDEN, 5, 0, HIDDEN, HIDDEN], [9, 9, 9, 9, HIDDEN]])
def test_forward_backward_equals_enumeration(words):
    language = toy_language()
    conditional = language.conditional([words])[0]
    for position in (t for t, w in enumerate(words) if w == HIDDEN):
        np.testing.assert_allclose(conditional[position], _brute_force_conditional(language, words, position), atol=1e-12)


def test_unigram_is_stationary_and_positive():
    language = toy_language()
    pi = language.unigram()
    np.testing.assert_allclose(pi @ language.transition, pi, atol=1e-12)
    assert (pi > 0).all() and pi.sum() == pytest.approx(1.0)


def test_samples_follow_the_exact_statistics():
    language = toy_language()
    words = language.sample(40_000, 6, np.random.default_rng(0))
    n, v = words.size, language.vocab_size
    frequencies = np.bincount(words.ravel(), minlength=v) / n
    tolerance = 5 * np.sqrt(language.unigram() * (1 - language.unigram()) / words.shape[0])  # loose: positions correlate
    assert (np.abs(frequencies - language.unigram()) < tolerance).all()
    pairs = np.zeros((v, v))
    np.add.at(pairs, (words[:, :-1].ravel(), words[:, 1:].ravel()), 1)
    common = language.unigram() > 0.05  # rows with enough counts to compare
    empirical = pairs[common] / pairs[common].sum(axis=1, keepdims=True)
    assert np.abs(empirical - language.transition[common]).max() < 0.02


def test_language_classes_and_zipf_frequencies():
    language = toy_language()
    assert len(language.words) == len(set(language.words)) == language.vocab_size
    pi = dict(zip(language.words, language.unigram()))
    assert pi["."] == max(pi.values())  # every sentence ends in "."


def test_encode_decode_round_trip_and_errors():
    language = toy_language()
    indices = language.encode("the cat [MASK] fish")
    assert indices[2] == HIDDEN and language.decode(indices) == "the cat [MASK] fish"
    with pytest.raises(ValueError, match="not a word of the toy language.*the a this"):
        language.encode("the unicorn eats")
    with pytest.raises(ValueError, match="indices"):
        language.conditional([[0, 99]])


def test_invalid_transition_matrices_are_refused():
    with pytest.raises(ValueError, match="> 0"):
        MarkovLanguage(("a", "b"), ("X", "X"), np.array([[1.0, 0.0], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="2x2"):
        MarkovLanguage(("a", "b"), ("X", "X"), np.ones((3, 3)) / 3)
