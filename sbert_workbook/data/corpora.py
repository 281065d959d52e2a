"""Plain sentence lists built from the registered data sets: corpora to search, fit or embed.

``search_corpus`` is introduced in ``03_pooling_and_sts.ipynb`` (semantic search) and reused
in ``04_siamese_finetuning.ipynb``; ``target_sentences`` and ``nli_sentences`` in
``05_bert_flow.ipynb``, where BERT-flow's calibrators are fitted on unlabeled sentences.
Every list holds each sentence once, in first-seen order.
"""
from __future__ import annotations

from collections.abc import Sequence

from sbert_workbook.data.loaders import load_nli, load_sts

#: Splits whose sentences (labels unused) make up "target" training data, per data set; others use "test".
TARGET_SPLITS = {"stsb": ("train", "dev", "test"), "sickr": ("train", "trial", "test")}


def search_corpus(size: int, sts: Sequence[str] = ("stsb",), nli: Sequence[str] = ("snli",),
                  data_dir=None) -> list[str]:
    """Up to ``size`` distinct sentences: STS test sentences first, then NLI premises and hypotheses.

    Introduced in ``03_pooling_and_sts.ipynb``.
    """
    sentences: dict[str, None] = {}
    for name in sts:
        data = load_sts(name, "test", data_dir=data_dir)
        sentences.update(dict.fromkeys(data.sentences1 + data.sentences2))
    for name in nli:
        data = load_nli(name, data_dir=data_dir)
        sentences.update(dict.fromkeys(s for pair in zip(data.premises, data.hypotheses) for s in pair))
    return list(sentences)[:size]


def target_sentences(name: str, data_dir=None, limit: int | None = None, including=None) -> list[str]:
    """The unlabeled sentences of data set ``name`` ("target" training): all its splits for STS-B and SICK-R.

    Introduced in ``05_bert_flow.ipynb``. ``limit`` caps the pairs read from each split (a random sample);
    ``including``: test pairs (an ``StsData``) whose sentences come first, so that a sample still holds them.
    """
    sentences = [] if including is None else including.sentences1 + including.sentences2
    for split in TARGET_SPLITS.get(name, ("test",)):
        data = load_sts(name, split, data_dir=data_dir, limit=limit)
        sentences += data.sentences1 + data.sentences2
    return list(dict.fromkeys(sentences))


def nli_sentences(names: Sequence[str] = ("snli", "mnli"), data_dir=None, first: int | None = None) -> list[str]:
    """Premises and hypotheses of the NLI sets we hold (SNLI and MultiNLI dev), each sentence once.

    Introduced in ``05_bert_flow.ipynb``. ``first`` reads only the first that many pairs of each set
    (in file order, not the random sample a loader's ``limit`` draws).
    """
    sentences = []
    for name in names:
        data = load_nli(name, data_dir=data_dir).first(first)
        sentences += data.premises + data.hypotheses
    return list(dict.fromkeys(sentences))
