"""SBERT's Table 1 baselines: the published rows as data, and the student's recomputation.

Introduced in ``03_pooling_and_sts.ipynb``. One forward pass per sentence serves every
pooling (:class:`~sbert_workbook.encoding.pooled_views.PooledViews`), so the static / CLS /
mean / first_last_avg rows of the table cost about as much as one of them.
The averaged-GloVe row (:func:`glove_row`) needs no model: it averages GloVe 6B 50-d word vectors.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from sbert_workbook.data.records import StsData
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.evaluation.sts import evaluate_sts
from sbert_workbook.encoding.glove import GLOVE_NAME, GloveEncoder, GloveVectors, load_glove
from sbert_workbook.encoding.pooled_views import PooledViews
from sbert_workbook.encoding.st_folder import read_model_modules
from sbert_workbook.evaluation.provenance import inherit_provenance
from sbert_workbook.published import SBERT_TABLE1

TABLE1_SOURCE = SBERT_TABLE1.source()
TABLE1_COLUMNS = SBERT_TABLE1.columns
#: Rows of SBERT Table 1 as printed (the paper's own "avg" column is kept, not recomputed), from :mod:`sbert_workbook.published`.
TABLE1_ROWS: dict[str, tuple[float, ...]] = SBERT_TABLE1.rows
#: Which published row each recomputed pooling stands beside; None: the paper has no row of that pooling.
POOLING_TO_TABLE1_ROW = {
    "word_embeddings": None,  # BERT's input word vectors averaged: not GloVe, and not in the paper
    "static": None,  # the embedding layer (word + position + token type, LayerNorm): not a word-vector average
    "mean": "Avg. BERT embeddings",
    "cls": "BERT CLS-vector",
    "first_last_avg": None,  # not in SBERT's table; what BERT-flow's code runs as "last2avg"
    "last2_avg": None,  # not in SBERT's table; what BERT-flow's paper describes as "last2avg"
    "trained": "SBERT-NLI-base",
    "avg_glove": "Avg. GloVe embeddings",  # GloVe 6B 50d averaged (encoding/glove.py); the paper's is 840B 300d
}
#: Published rows shown alone ("published only") unless a recomputed row stands beside them (avg_glove, with GloVe installed).
PUBLISHED_ONLY_ROWS = ("Avg. GloVe embeddings",)
#: The name of the recomputed averaged-GloVe row in :func:`baseline_table`'s tables (every token averaged).
GLOVE_ROW = "avg_glove"
#: The averaged-GloVe row with stop words and punctuation dropped (sentence-transformers' WhitespaceTokenizer).
GLOVE_NO_STOP_ROW = "avg_glove_no_stop_words"
BASELINE_POOLINGS = ("word_embeddings", "static", "cls", "mean", "first_last_avg", "last2_avg")


def published_table1(rows: Sequence[str] | None = None) -> pd.DataFrame:
    """SBERT Table 1 (``rows`` of it, all by default) as a DataFrame; ``attrs['source']`` cites it."""
    chosen = list(rows) if rows is not None else list(TABLE1_ROWS)
    unknown = [row for row in chosen if row not in TABLE1_ROWS]
    if unknown:
        raise KeyError(f"Unknown Table 1 rows {unknown}; known: {', '.join(TABLE1_ROWS)}.")
    framed = SBERT_TABLE1.frame(chosen)
    table = framed.drop(columns="pooling")
    table.index.name = "published (SBERT Table 1)"
    table.attrs = dict(framed.attrs)
    return table


def sentence_transformers_pooling(encoder) -> str | None:
    """The pooling a sentence-transformers model was trained with (its ``1_Pooling/config.json``), or None.

    None means the folder is a plain transformer (e.g. ``bert-base-uncased``): not trained for similarity. The folder is
    read once, by :func:`~sbert_workbook.encoding.st_folder.read_model_modules` (the encoder's ``modules``).
    """
    modules = getattr(encoder, "modules", None) or read_model_modules(encoder.resolved.path)
    return modules.pooling_name if modules.from_model else None


def baseline_table(
    encoder,
    poolings: Sequence[str] = BASELINE_POOLINGS,
    datasets: Sequence[str] = SEVEN_STS_SETS,
    aggregation: str = "all",
    limit: int | None = None,
    data_dir=None,
) -> pd.DataFrame:
    """Spearman x 100 per data set (columns, plus ``avg``) for each pooling (rows) of one model.

    ``encoder`` may be an Encoder or a :class:`~sbert_workbook.encoding.pooled_views.PooledViews`
    (reused, so the vectors it holds serve later calls). ``attrs['provenance']`` says what produced the table.
    """
    multi = encoder if isinstance(encoder, PooledViews) else PooledViews(encoder, poolings)
    rows, provenance = {}, {}
    for name in poolings:
        table = evaluate_sts(multi, datasets, name, aggregation=aggregation, data_dir=data_dir, limit=limit)
        rows[name] = table["spearman"]
        provenance = dict(table.attrs["provenance"], pooling=", ".join(poolings))
        provenance["pairs"] = ", ".join(f"{d} {n}" for d, n in table["pairs"].items() if d != "avg")
    result = pd.DataFrame(rows).T
    result.index.name = "pooling"
    result.attrs["provenance"] = provenance
    return result


def glove_row(datasets: Sequence[str] = SEVEN_STS_SETS, limit: int | None = None, data_dir=None,
              glove: GloveVectors | None = None, drop_stop_words: bool = False) -> pd.Series:
    """Averaged GloVe's Spearman × 100 per data set plus ``avg``: SBERT Table 1's first row, recomputed (``03``).

    The vectors are GloVe 6B 50-d (:func:`~sbert_workbook.encoding.glove.load_glove`; ``glove``
    to pass others); SBERT names no GloVe release. Every token is averaged (:data:`GLOVE_ROW`), or with
    ``drop_stop_words`` only the words left after dropping stop words and punctuation
    (:data:`GLOVE_NO_STOP_ROW`). Same sets, sample and metric as :func:`baseline_table`.
    """
    encoder = GloveEncoder(glove if glove is not None else load_glove(), drop_stop_words=drop_stop_words)
    table = evaluate_sts(encoder, datasets, aggregation="all", data_dir=data_dir, limit=limit)
    return table["spearman"].rename(GLOVE_NO_STOP_ROW if drop_stop_words else GLOVE_ROW)


def beside_published(recomputed: pd.DataFrame, model_label: str, trained_pooling: str | None = None,
                     row_models: dict[str, str] | None = None,
                     published_only: Sequence[str] = PUBLISHED_ONLY_ROWS) -> pd.DataFrame:
    """Each recomputed row followed by the published Table 1 row it stands beside, then the ``published_only`` rows.

    Rows pair up as in :data:`POOLING_TO_TABLE1_ROW` (``avg_glove``, from :func:`glove_row`, beside
    Avg. GloVe); a pooling the paper has no row for (static, word_embeddings, first_last_avg, last2_avg)
    stands alone; a ``published_only`` row already shown beside a recomputed one is not repeated.
    When the model was itself trained for similarity with ``trained_pooling`` (see :func:`sentence_transformers_pooling`), that row
    is the trained model and stands beside SBERT-NLI-base instead. A ``source`` column says
    which rows ran here and which are quoted. ``row_models`` names another model for some
    rows (e.g. ``{"trained": "all-MiniLM-L6-v2"}`` when the trained row came from a second model).
    """
    published = published_table1()
    models = {GLOVE_ROW: f"{GLOVE_NAME}, not the paper's 840B 300d",
              GLOVE_NO_STOP_ROW: f"{GLOVE_NAME}, stop words and punctuation dropped", **(row_models or {})}
    lines = []
    for name, values in recomputed.iterrows():
        trained = name == trained_pooling
        label = f"{name} ({models.get(name, model_label)}{', trained for similarity' if trained else ''})"
        lines.append({"row": label, "source": "recomputed here", **values.to_dict()})
        partner = POOLING_TO_TABLE1_ROW["trained"] if trained else POOLING_TO_TABLE1_ROW.get(name)
        if partner is not None:
            lines.append({"row": partner, "source": "published, SBERT Table 1", **published.loc[partner].to_dict()})
    for row in [row for row in published_only if row not in {line["row"] for line in lines}]:
        lines.append({"row": row, "source": "published only, SBERT Table 1 (not run here)", **published.loc[row].to_dict()})
    table = pd.DataFrame(lines).set_index("row")
    table.attrs["source"] = TABLE1_SOURCE
    return inherit_provenance(table, recomputed, {"published rows": TABLE1_SOURCE})


def pair_cosine_per_encoder(encoders: dict[str, object], sentence1: str, sentence2: str) -> dict[str, float]:
    """cos(u, v) of one sentence pair under each labelled (encoder, pooling): ``{label: cosine}``.

    ``encoders`` maps a label to ``(encoder, pooling)``; a :class:`~sbert_workbook.encoding.pooled_views.PooledViews`
    makes every pooling of one model cost a single forward pass.
    """
    if not sentence1.strip() or not sentence2.strip():
        raise ValueError("Type a sentence in both boxes to compare them.")
    cosines = {}
    for label, (encoder, pooling) in encoders.items():
        u, v = encoder.encode([sentence1, sentence2], pooling=pooling)
        cosines[label] = float(cosine_similarity(u[None], v[None])[0])
    return cosines



def per_subset_sample(data: StsData, n: int | None, seed: int = 0) -> StsData:
    """At most ``n`` random pairs from *each* subset (file order kept), so every subset keeps its own correlation.

    A plain random sample of a few dozen pairs can leave a small subset (STS13's FNWN) with one
    pair, and ``wmean`` needs a correlation per subset. ``n=None`` returns ``data`` unchanged.
    """
    if n is None:
        return data
    if n < 2:
        raise ValueError(f"Each subset needs at least 2 pairs for a correlation; got n={n}.")
    rng, subsets = np.random.default_rng(seed), np.asarray(data.subsets)
    keep = np.sort(np.concatenate([
        rng.choice(np.flatnonzero(subsets == s), size=min(n, int((subsets == s).sum())), replace=False)
        for s in data.subset_names()]))
    return StsData(data.name, data.split, [data.sentences1[i] for i in keep], [data.sentences2[i] for i in keep],
                   data.scores[keep], [data.subsets[i] for i in keep],
                   f"{data.origin} (at most {n} pairs per subset, seed {seed})", data.score_range)
