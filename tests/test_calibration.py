"""Calibrators (SN, NATSV, whitening, flow), lexical similarity and the calibration figures."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler

from sbert_workbook.calibration.all_but_the_top import AllButTheTop, PerClusterAllButTheTop
from sbert_workbook.calibration.calibrators import (Chain, FlowCalibrator, NullTopDirections, StandardNormalization, Whitening,
                                        choose_natsv_k, load_calibrator, save_calibrator)
from sbert_workbook.calibration.dimensions import CentredFirstDimensions, PrincipalComponents
from sbert_workbook.calibration.plots import (edit_distance_figure, k_selection_figure, log_likelihood_figure,
                                              projection_figure, similarity_histogram_figure)
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.calibration.lexical import close_pairs, edit_distance, edit_distances, lexical_correlations


@pytest.fixture(scope="module")
def anisotropic():
    """Embeddings that share a large common direction and have very unequal variances, like raw BERT's."""
    generator = np.random.default_rng(0)
    x = generator.normal(size=(600, 12)) * np.linspace(4, 0.1, 12) @ generator.normal(size=(12, 12))
    return x + 5 * generator.normal(size=12)


def fitted_calibrators():
    return [StandardNormalization(), NullTopDirections(3), Whitening(), Whitening(k=5),
            FlowCalibrator(levels=2, depth=2, progress=False), AllButTheTop(2), PrincipalComponents(4),
            CentredFirstDimensions(5)]


def test_standard_normalization_matches_sklearn(anisotropic):
    np.testing.assert_allclose(StandardNormalization().fit_transform(anisotropic).numpy(),
                               StandardScaler().fit_transform(anisotropic), atol=1e-5)


@pytest.mark.parametrize("k", [None, 5])
def test_whitening_gives_identity_covariance(anisotropic, k):
    white = Whitening(k=k).fit_transform(anisotropic).double().numpy()
    dims = k or anisotropic.shape[1]
    assert white.shape == (len(anisotropic), dims)
    np.testing.assert_allclose(white.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(np.cov(white.T, bias=True), np.eye(dims), atol=1e-5)


def test_whitening_to_k_dims_keeps_the_top_principal_directions(anisotropic):
    white = Whitening(k=3).fit_transform(anisotropic).double().numpy()
    pca = PCA(n_components=3, whiten=True).fit_transform(anisotropic) * np.sqrt((len(anisotropic) - 1) / len(anisotropic))
    for column in range(3):  # equal up to the sign of each direction
        assert abs(np.corrcoef(white[:, column], pca[:, column])[0, 1]) == pytest.approx(1, abs=1e-6)


@pytest.mark.parametrize("k", [1, 4])
def test_natsv_removes_exactly_the_top_k_singular_directions(anisotropic, k):
    _, _, vh = np.linalg.svd(anisotropic, full_matrices=False)
    nulled = NullTopDirections(k).fit_transform(anisotropic).double().numpy()
    np.testing.assert_allclose(nulled @ vh[:k].T, 0, atol=1e-3)
    np.testing.assert_allclose(nulled @ vh[k:].T, anisotropic @ vh[k:].T, rtol=1e-5, atol=1e-3)
    assert np.linalg.matrix_rank(nulled, tol=1e-3) == anisotropic.shape[1] - k


@pytest.mark.parametrize("calibrator", fitted_calibrators(), ids=repr)
def test_transform_is_deterministic_and_save_load_round_trips(anisotropic, calibrator, tmp_path):
    calibrator.fit(anisotropic)
    first, second = calibrator.transform(anisotropic), calibrator.transform(anisotropic)
    torch.testing.assert_close(first, second, atol=0, rtol=0)
    loaded = load_calibrator(save_calibrator(calibrator, tmp_path / "saved"))
    assert type(loaded) is type(calibrator) and loaded.settings() == calibrator.settings()
    torch.testing.assert_close(loaded.transform(anisotropic), first, atol=1e-6, rtol=1e-6)


def test_a_calibrator_defined_outside_calibrators_loads_in_a_fresh_process(anisotropic, tmp_path):
    """load_calibrator knows every saved class without the caller importing the module that defines it."""
    folder = save_calibrator(PrincipalComponents(3).fit(anisotropic), tmp_path / "pca")
    np.save(tmp_path / "x.npy", anisotropic)
    script = ("import numpy as np, sys; from sbert_workbook.calibration.calibrators import load_calibrator; "
              f"c = load_calibrator({str(folder)!r}); print(type(c).__name__); "
              f"np.save({str(tmp_path / 'out.npy')!r}, c.transform(np.load({str(tmp_path / 'x.npy')!r})).numpy())")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "PrincipalComponents", done.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), PrincipalComponents(3).fit_transform(anisotropic).numpy())


def test_calibrators_without_a_saved_form_say_so(anisotropic, tmp_path):
    with pytest.raises(TypeError, match="steps of a Chain one by one"):
        save_calibrator(Chain([StandardNormalization()]).fit(anisotropic), tmp_path / "chain")
    with pytest.raises(TypeError, match="no saved form"):
        save_calibrator(PerClusterAllButTheTop(2, 1).fit(anisotropic), tmp_path / "clusters")


def test_flow_calibrator_refit_with_the_same_seed_is_identical(anisotropic):
    outputs = [FlowCalibrator(levels=2, depth=2, seed=3, progress=False).fit_transform(anisotropic) for _ in range(2)]
    torch.testing.assert_close(outputs[0], outputs[1], atol=0, rtol=0)


def test_wrong_embedding_size_and_unfitted_use_get_clear_errors(anisotropic):
    whitening = Whitening().fit(anisotropic)
    with pytest.raises(ValueError, match="fitted on 12-dimensional embeddings but got 7-dimensional"):
        whitening.transform(anisotropic[:, :7])
    with pytest.raises(RuntimeError, match="not fitted yet"):
        NullTopDirections(2).transform(anisotropic)
    with pytest.raises(ValueError, match="NaN"):
        StandardNormalization().fit(np.full((3, 2), np.nan))


def test_chain_applies_steps_in_order(anisotropic):
    chained = Chain([StandardNormalization(), NullTopDirections(2)]).fit_transform(anisotropic)
    by_hand = NullTopDirections(2).fit_transform(StandardNormalization().fit_transform(anisotropic))
    torch.testing.assert_close(chained, by_hand, atol=1e-5, rtol=1e-5)


def test_choose_natsv_k_returns_the_best_dev_score(anisotropic):
    generator = np.random.default_rng(1)
    u, v = anisotropic[:100], anisotropic[100:200]
    gold = cosine_similarity(u - anisotropic.mean(0), v - anisotropic.mean(0)) + 0.1 * generator.normal(size=100)
    best, scores = choose_natsv_k(anisotropic, u, v, gold, ks=range(0, 5))
    assert set(scores) == set(range(5)) and scores[best] == max(scores.values())
    expected_k2 = spearmanr(cosine_similarity(*(NullTopDirections(2).fit(anisotropic).transform(x) for x in (u, v))), gold)
    assert scores[2] == pytest.approx(100 * expected_k2.statistic)


# ----------------------------------------------------------------------------- lexical similarity
@pytest.mark.parametrize("a,b,unit,expected", [
    ("kitten", "sitting", "char", 3),
    ("I like this restaurant", "I don't like this restaurant", "word", 1),
    ("The movie was good", "the movie was NOT good.", "word", 1),
    ("a b c", "c b a", "word", 2),
    ("", "two words", "word", 2),
])
def test_edit_distance_by_hand(a, b, unit, expected):
    assert edit_distance(a, b, unit) == expected
    assert edit_distance(b, a, unit) == expected


def test_lexical_correlations_are_scipy_spearman():
    s1 = ["a b c d", "a b", "x y z", "the cat sat"]
    s2 = ["a b c e", "c d e f", "x y z", "a dog stood up"]
    distances = edit_distances(s1, s2)
    assert list(distances) == [1, 4, 0, 4]
    gold, model = [4.0, 1.0, 5.0, 0.5], [0.9, 0.2, 1.0, 0.4]
    table = lexical_correlations(distances, gold, {"model": model})
    assert table.loc["gold", "spearman_with_edit_distance"] == pytest.approx(100 * spearmanr(distances, gold).statistic)
    assert table.loc["model", "spearman_with_edit_distance"] == pytest.approx(100 * spearmanr(distances, model).statistic)
    assert table.loc["gold", "spearman_with_gold"] == 100.0
    assert table.loc["model", "spearman_with_gold"] == pytest.approx(100 * spearmanr(gold, model).statistic)
    with pytest.raises(ValueError, match="as many first as second"):
        edit_distances(["a"], [])


def test_edit_distance_figure_highlights_the_close_pairs():
    distances = np.array([0, 2, 4, 5, 9])
    similarities = {"gold": [5.0, 4.0, 3.0, 2.0, 1.0], "raw": [0.9, 0.8, 0.7, 0.6, 0.5]}
    assert list(close_pairs(distances)) == [True, True, True, False, False]  # Figure 2: ≤ 4 edits
    figure = edit_distance_figure(distances, similarities)
    close = [trace for trace in figure.data if "≤ 4" in trace.name]
    assert len(close) == 2 and list(close[1].x) == [0.9, 0.8, 0.7] and list(close[1].y) == [0, 2, 4]
    far = [trace for trace in figure.data if "> 4" in trace.name]
    assert list(far[0].x) == [2.0, 1.0] and list(far[0].y) == [5, 9]
    with pytest.raises(ValueError, match="2 similarities for 5 pairs"):
        edit_distance_figure(distances, {"short": [0.1, 0.2]})


# ----------------------------------------------------------------------------- figures
def test_similarity_histograms_carry_the_values():
    figure = similarity_histogram_figure({"before": [0.9, 0.8], "after": [0.1, -0.2, 0.3]})
    assert [trace.name.split(" ")[0] for trace in figure.data] == ["before", "after"]
    np.testing.assert_allclose(figure.data[1].x, [0.1, -0.2, 0.3])


@pytest.mark.parametrize("dims", [2, 3])
def test_projection_figure_has_one_panel_per_view_and_keeps_the_offset(anisotropic, dims):
    figure = projection_figure({"raw": anisotropic, "whitened": Whitening().fit_transform(anisotropic)}, dims=dims)
    clouds = [trace for trace in figure.data if trace.name != "origin"]
    assert len(clouds) == 2
    raw_centre = np.hypot(np.mean(clouds[0].x), np.mean(clouds[0].y))
    white_centre = np.hypot(np.mean(clouds[1].x), np.mean(clouds[1].y))
    assert raw_centre > 1 and white_centre < 1e-3  # raw sits off the origin, whitened is centred


def test_log_likelihood_curve_running_mean_and_k_curve():
    figure = log_likelihood_figure({"flow": [1.0, 2.0, 3.0, 4.0]}, smooth=2)
    np.testing.assert_allclose(figure.data[1].y, [1.5, 2.5, 3.5])
    k_figure = k_selection_figure({0: 50.0, 1: 60.0, 2: 55.0}, chosen=1)
    assert list(k_figure.data[1].x) == [1] and list(k_figure.data[1].y) == [60.0]


# ----------------------------------------------------------------------------- frozen embeddings
def test_pooled_views_look_up_by_sentence_and_encode_new_ones_lazily(encoder):  # the views themselves: tests/test_views.py
    from sbert_workbook.encoding.pooled_views import PooledViews

    sentences = ["A man is playing a guitar.", "Short one.", "A much longer sentence about the weather in spring."]
    views = PooledViews.of(encoder, sentences + sentences[:1], ["mean", "cls"], batch_size=2, progress=False)
    assert len(views) == 3  # the repeated sentence is encoded once
    for pooling in ("mean", "cls"):
        asked = [sentences[2], sentences[0]]
        torch.testing.assert_close(views.get(pooling, asked), encoder.encode(asked, pooling=pooling), atol=1e-5, rtol=0)
    torch.testing.assert_close(views.get("mean", ["Not encoded yet."]), encoder.encode(["Not encoded yet."], pooling="mean"), atol=1e-5, rtol=0)
    assert len(views) == 4
    with pytest.raises(KeyError, match="never encoded"):
        PooledViews.from_vectors(sentences, {"view": torch.zeros(3, 2)}).get("view", ["Not among them."])
    frozen = views.frozen()  # 05 §1: the vectors kept, the encoder let go
    assert frozen.encoder is None and frozen.resolved is encoder.resolved and frozen.poolings == views.poolings
    asked = [sentences[1], "Not encoded yet.", sentences[2]]
    assert torch.equal(frozen.get("cls", asked), views.get("cls", asked))
    with pytest.raises(KeyError, match="never encoded"):
        frozen.get("mean", ["Never seen before."])



def test_compare_calibrators_fits_per_target_set_and_shares_the_nli_fit(anisotropic):
    from sbert_workbook.calibration.compare import compare_calibrators
    from sbert_workbook.data.loaders import StsData
    from sbert_workbook.encoding.pooled_views import PooledViews

    sentences = [f"sentence {i}" for i in range(len(anisotropic))]
    bank = PooledViews.from_vectors(sentences, {"view": torch.tensor(anisotropic, dtype=torch.float32)})
    generator = np.random.default_rng(2)
    sets = {name: StsData(name, "test", sentences[lo:lo + 50], sentences[lo + 50:lo + 100], generator.uniform(0, 5, 50),
                          ["a"] * 25 + ["b"] * 25) for name, lo in (("one", 0), ("two", 100))}
    fit_sentences = {"one": sentences[:100], "two": sentences[100:200], "nli": sentences[200:]}
    methods = {"raw": (None, None), "+SN": (StandardNormalization, "target"), "+SN nli": (StandardNormalization, "nli")}
    table, fitted = compare_calibrators(bank, "view", sets, fit_sentences, methods, aggregation="all")
    assert set(fitted) == {("+SN", "one"), ("+SN", "two"), ("+SN nli", "nli")}
    u, v = anisotropic[100:150], anisotropic[150:200]
    sn = StandardNormalization().fit(anisotropic[100:200])
    expected = spearmanr(cosine_similarity(sn.transform(u), sn.transform(v)), sets["two"].scores).statistic
    assert table.loc["+SN", "two"] == pytest.approx(100 * expected, abs=1e-6)
    assert table.loc["raw", "one"] == pytest.approx(100 * spearmanr(cosine_similarity(anisotropic[:50], anisotropic[50:100]),
                                                                    sets["one"].scores).statistic, abs=1e-6)
    assert table.loc["raw", "avg"] == pytest.approx(table.loc["raw", ["one", "two"]].mean())
    assert "aggregation: all" in " ".join(f"{k}: {v}" for k, v in table.attrs["provenance"].items())
