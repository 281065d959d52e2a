"""The classroom model answers (``sbert_workbook/solutions/classroom.py``) describe what the offline apps show.

Each test measures one claim of a ``DISCUSSION`` answer on the embedded all-MiniLM-L6-v2 with the apps' own
functions and sentences (``classroom/*.ipynb``: the STS-B dev sample of the same size and seed, the pair explorer's
first pair, the figures the room sees), in quick and full size, and fails with the name of the answer to update.
"""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest

import sbert_workbook as sbw
from sbert_workbook.classroom.explorers import (embedding_figure, layer_sentence_vectors, pair_explorer, pair_figure, token_vectors,
                                          uncentred_2d)
from sbert_workbook.evaluation.similarity import cosine_matrix, mean_cosine
from sbert_workbook.solutions.classroom import DISCUSSION

CLASSROOM = Path(__file__).resolve().parents[1] / "classroom"
NEGATIONS = [("I like this restaurant", "I don't like this restaurant"),
             ("I like this restaurant.", "I don't like this restaurant.")]


def update(key: str) -> str:
    assert key in DISCUSSION, f"{key} is not a key of solutions/classroom.py's DISCUSSION"
    return f": the offline app no longer shows this; update DISCUSSION[{key!r}] in sbert_workbook/solutions/classroom.py"


def app_sizes(notebook: str, parameter: str) -> tuple[int, int]:
    """(quick, full) sample sizes, read from the app's parameters cell and its ``limit=Q if QUICK else NAME`` call."""
    source = "\n".join("".join(c["source"]) for c in json.loads((CLASSROOM / notebook).read_text(encoding="utf-8"))["cells"])
    full = int(re.search(rf"^{parameter} = (\d+)", source, re.M)[1])
    quick = int(re.search(rf"limit=(\d+) if QUICK else {parameter}\b", source)[1])
    return quick, full


@pytest.fixture(scope="module", params=["quick", "full"])
def layers(request, encoder, shared_data):
    """What the embedding explorer shows at every layer, raw and with the mean removed."""
    n = app_sizes("embedding_explorer.ipynb", "SENTENCES")[request.param == "full"]
    sentences = list(dict.fromkeys(sbw.load_sts("stsb", "dev", data_dir=shared_data, limit=n).sentences1))
    vectors = layer_sentence_vectors(encoder, sentences)
    centred = vectors - vectors.mean(axis=1, keepdims=True)  # what embedding_figure(centre=True) draws
    shown = {centre: {"means": np.array([mean_cosine(v) for v in views]),
                      "cloud": np.array([np.linalg.norm(uncentred_2d(v).mean(0)) for v in views]),
                      "norm_spread": np.array([np.std(n) / np.mean(n) for n in np.linalg.norm(views, axis=2)])}
             for centre, views in ((False, vectors), (True, centred))}
    for centre in (False, True):  # the figure shows these numbers (one layer checked: figures are slow to build)
        figure = embedding_figure(vectors, len(vectors) - 1, centre)
        drawn = np.hypot(np.mean(figure.data[1].x), np.mean(figure.data[1].y))
        assert np.allclose(figure.data[2].y, shown[centre]["means"], atol=1e-6) and np.isclose(drawn, shown[centre]["cloud"][-1]), \
            "embedding_figure no longer draws mean_cosine per layer and uncentred_2d's points: update this test's fixture"
    shares = [np.cumsum(s) / s.sum() for s in (np.linalg.svd(c, compute_uv=False) ** 2 for c in centred)]
    return {"n": len(sentences), "raw": shown[False]["means"], "shown": shown,
            "directions_50": np.array([int(np.searchsorted(s, 0.5)) + 1 for s in shares])}


def shown_pair(encoder, a: str, b: str, layer: int, figure: bool = False):
    """(tokens a, tokens b, heatmap at ``layer``, sentence cosine per layer) as the pair explorer draws them.

    With ``figure`` they are read from :func:`pair_figure` itself (slow), otherwise computed as it computes them.
    """
    (tokens_a, vectors_a), (tokens_b, vectors_b) = token_vectors(encoder, a), token_vectors(encoder, b)
    if figure:
        drawn = pair_figure(tokens_a, vectors_a, tokens_b, vectors_b, layer % len(vectors_a))
        return tokens_a, tokens_b, np.array(drawn.data[0].z), np.array(drawn.data[1].y)
    line = np.array([cosine_matrix(va.mean(0, keepdims=True), vb.mean(0, keepdims=True))[0, 0]
                     for va, vb in zip(vectors_a, vectors_b)])
    return tokens_a, tokens_b, np.asarray(cosine_matrix(vectors_a[layer], vectors_b[layer])), line


def paraphrase() -> tuple[str, str]:
    return inspect.signature(pair_explorer).parameters["first"].default


# ----------------------------------------------------------------------------- embedding explorer
def test_the_mean_cosine_peaks_in_the_early_layers_and_only_the_last_is_near_0(layers):
    raw, key = layers["raw"], "embedding_explorer_1"
    assert int(np.argmax(raw)) in (1, 2), f"highest mean cosine at layer {int(np.argmax(raw))}, {np.round(raw, 3)}" + update(key)
    assert raw.max() > raw[0] + 0.1 and raw.max() > raw[-1] + 0.4, f"{np.round(raw, 3)}" + update(key)
    assert raw[1:-1].min() > raw[0] + 0.05, f"a middle layer is not above layer 0: {np.round(raw, 3)}" + update(key)
    assert raw[-1] < 0.05, f"last layer's mean cosine {raw[-1]:.3f} is not near 0" + update(key)


def test_removing_the_mean_moves_the_cloud_to_the_origin_and_the_mean_cosine_just_below_0(layers):
    raw, centred, key = layers["shown"][False], layers["shown"][True], "embedding_explorer_2"
    assert raw["cloud"][:-1].min() > 0.5, f"2-D cloud centre's distance from the origin {np.round(raw['cloud'], 2)}" + update(key)
    assert centred["cloud"].max() < 0.1, f"centred cloud centre {np.round(centred['cloud'], 2)}" + update(key)
    means, floor = centred["means"], -1 / (layers["n"] - 1)
    assert np.all(means < 0) and np.all(means > -0.03), f"centred mean cosines {np.round(means, 4)}" + update(key)
    assert np.abs(means - floor).max() < 0.01, f"centred {np.round(means, 4)} vs -1/(n-1) = {floor:.4f}" + update(key)
    spread = centred["norm_spread"]  # "when the norms are similar, as they are here"
    assert spread.max() < 0.5, f"centred norms' coefficient of variation per layer {np.round(spread, 2)}" + update(key)


def test_centring_zeroes_the_sum_but_only_unit_vectors_summing_to_zero_have_mean_cosine_minus_one_over_n_minus_1():
    from sbert_workbook.solutions.nb02 import DISCUSSION as NB02

    pentagon = np.array([[np.cos(a), np.sin(a)] for a in 2 * np.pi * np.arange(5) / 5])  # unit vectors, sum 0
    assert np.allclose(pentagon.sum(0), 0) and np.isclose(mean_cosine(pentagon), -1 / 4)
    lopsided = np.array([[10.0, 0.0]] + [[-1.0, 0.0]] * 10)  # sums to zero, norms 10 and 1
    unit = lopsided / np.linalg.norm(lopsided, axis=1, keepdims=True)
    gram = unit @ unit.T
    by_hand = (90 * 1 + 20 * -1) / (11 * 10)  # 10·9 pairs of copies at +1, 2·10 pairs with (10, 0) at -1
    assert np.allclose(lopsided.sum(0), 0) and np.isclose((gram.sum() - 11) / 110, by_hand)
    assert np.isclose(mean_cosine(lopsided), by_hand) and by_hand > 0
    for text in (DISCUSSION["embedding_explorer_2"], NB02["ex02_8"]):
        assert f"+{by_hand:.2f}" in text, "the counter-example's mean cosine is quoted wrongly" + update("embedding_explorer_2")


def test_the_last_layer_has_no_cone_but_its_variance_is_not_spread_evenly(layers):
    shown, directions, n, key = layers["shown"][False], layers["directions_50"], layers["n"], "embedding_explorer_3"
    assert shown["means"][-1] < 0.05 and shown["cloud"][-1] < 0.15, \
        f"last layer: mean cosine {shown['means'][-1]:.3f}, cloud centre {shown['cloud'][-1]:.2f}" + update(key)
    assert directions[-1] > directions[:-1].max(), f"directions holding half the variance per layer {directions}" + update(key)
    assert directions[-1] < 0.6 * (n - 1) / 2, f"{directions[-1]} directions hold half the variance of {n}" + update(key)
    assert layers["raw"][1:-1].min() > 0.4, f"layers 1-5 no longer a cone: {np.round(layers['raw'], 3)}" + update(key)


# ----------------------------------------------------------------------------- pair explorer
def test_a_negation_scores_high_just_below_the_paraphrase_and_matches_word_for_word(encoder, layers):
    key = "pair_explorer_1"
    paraphrase_cos = shown_pair(encoder, *paraphrase(), -1)[3][-1]
    for a, b in NEGATIONS:
        for layer in (0, -1):
            tokens_a, tokens_b, heat, line = shown_pair(encoder, a, b, layer)
            best = [tokens_b[j] for j in heat.argmax(1)]
            assert best == tokens_a, f"{a!r} / {b!r} layer {layer}: best matches {best}" + update(key)
        assert line[-1] > layers["raw"][-1] + 0.5, f"negation {line[-1]:.3f} vs unrelated {layers['raw'][-1]:.3f}" + update(key)
        assert 0.02 < paraphrase_cos - line[-1] < 0.15, f"negation {line[-1]:.3f}, paraphrase {paraphrase_cos:.3f}" + update(key)


@pytest.mark.parametrize("size", ["quick", "full"])
def test_low_gold_pairs_fall_from_layer_0_to_below_the_high_gold_pairs(encoder, shared_data, size):
    key = "pair_explorer_2"
    pairs = sbw.load_sts("stsb", "dev", data_dir=shared_data, limit=app_sizes("pair_explorer.ipynb", "PAIRS")[size == "full"])
    lines = {i: shown_pair(encoder, pairs.sentences1[i], pairs.sentences2[i], -1)[3] for i in range(len(pairs))
             if pairs.scores[i] < 1 or pairs.scores[i] >= 4}
    low = np.array([lines[i][[0, -1]] for i in lines if pairs.scores[i] < 1])
    high = np.array([lines[i][-1] for i in lines if pairs.scores[i] >= 4])
    assert len(low) >= 3 and len(high) >= 1, f"{len(low)} pairs below gold 1, {len(high)} at 4 or more"
    drop = low[:, 0] - low[:, 1]
    assert drop.min() > 0.005 and (drop > 0.1).mean() > 0.5, f"layer 0 minus last layer: {np.round(drop, 3)}" + update(key)
    assert low[:, 0].mean() > 0.3, f"layer-0 cosines of gold < 1 pairs {np.round(low[:, 0], 3)}" + update(key)
    assert low[:, 1].max() < high.min() and low[:, 1].mean() < high.mean() - 0.3, \
        f"last layer: gold < 1 {np.round(low[:, 1], 3)}, gold >= 4 {np.round(high, 3)}" + update(key)


def test_layer_0_matches_the_same_word_and_the_last_layer_mixes_in_context(encoder):
    key = "pair_explorer_3"
    a, b = paraphrase()
    (tokens_a, tokens_b, heat_0, _), (_, _, heat_last, _) = (shown_pair(encoder, a, b, layer, figure=True) for layer in (0, -1))
    twins = [(i, tokens_b.index(t)) for i, t in enumerate(tokens_a) if t in tokens_b]
    best_0 = {tokens_a[i]: tokens_b[j] for i, j in enumerate(heat_0.argmax(1))}
    assert all(tokens_b[heat_0[i].argmax()] == tokens_a[i] for i, _ in twins), f"layer 0 best matches {best_0}" + update(key)
    assert best_0["man"] == "person" and best_0["playing"] == "plays", f"layer 0 best matches {best_0}" + update(key)
    same = np.zeros_like(heat_0, dtype=bool)
    for i, t in enumerate(tokens_a):
        same[i] = [t == u for u in tokens_b]
    assert heat_0[~same].mean() < 0.3, f"layer 0: other cells average {heat_0[~same].mean():.3f}" + update(key)
    assert heat_last[same].mean() < heat_0[same].mean() - 0.03, "identical words do not light up less at the last layer" + update(key)
    assert heat_last.mean() > heat_0.mean() + 0.1, f"map mean {heat_0.mean():.3f} → {heat_last.mean():.3f}" + update(key)
    man, person = tokens_a.index("man"), tokens_b.index("person")
    assert heat_last[man, person] > heat_0[man, person], "man/person do not move closer" + update(key)
    best_last = [tokens_b[j] for j in heat_last.argmax(1)]
    assert any(tokens_a[i] in tokens_b and best_last[i] != tokens_a[i] for i in range(len(tokens_a))), \
        f"at the last layer every repeated word still finds itself: {best_last}" + update(key)
