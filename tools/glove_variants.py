"""Averaged GloVe 6B 50-d on the seven STS test sets, both ways (issue 23 A), beside SBERT Table 1.

Row 1 averages every GloVe token of a sentence (``GloveEncoder(glove)``, what ``03``'s GloVe row ran
until now); row 2 picks the words as sentence-transformers' ``WhitespaceTokenizer`` does for its
``average_word_embeddings_glove.*`` models: stop words and punctuation dropped
(``GloveEncoder(glove, drop_stop_words=True)``). Full test sets, cosine, Spearman × 100, ``all``
aggregation (SBERT's protocol); the published Avg. GloVe and Avg. BERT rows are quoted beneath.

    python tools/glove_variants.py [--limit N] [--data-dir DIR] [--json PATH]
"""
from __future__ import annotations

import argparse
import json

import pandas as pd

from sbert_workbook import evaluate_sts
from sbert_workbook.encoding.glove import GloveEncoder, load_glove
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.published import SBERT_TABLE1


def glove_variants(limit: int | None = None, data_dir=None) -> pd.DataFrame:
    """Spearman × 100 per set and ``avg`` for both GloVe variants, then SBERT Table 1's two averaged rows."""
    glove = load_glove()
    rows = {}
    for drop in (False, True):
        encoder = GloveEncoder(glove, drop_stop_words=drop)
        table = evaluate_sts(encoder, SEVEN_STS_SETS, aggregation="all", data_dir=data_dir, limit=limit)
        rows[f"ran here: {encoder.__name__}"] = table["spearman"]
    out = pd.DataFrame(rows).T
    for row in ("Avg. GloVe embeddings", "Avg. BERT embeddings"):
        out.loc[f"published: {row} ({SBERT_TABLE1.table})"] = [SBERT_TABLE1.value(row, c) for c in out.columns]
    out.attrs["protocol"] = ("test splits, cosine, Spearman × 100, aggregation 'all'"
                             + (f", first {limit} pairs per set" if limit else ", full sets"))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="pairs per set (default: all)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--json", default=None, help="also write the table to this JSON file")
    args = parser.parse_args(argv)
    table = glove_variants(args.limit, args.data_dir)
    print(table.attrs["protocol"])
    print(table.round(2).to_string())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"protocol": table.attrs["protocol"], "rows": table.round(4).to_dict(orient="index")}, out, indent=1)


if __name__ == "__main__":
    main()
