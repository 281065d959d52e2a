"""The one data registry: each benchmark's name, where its files live, where a user gets it.

Introduced in ``03_pooling_and_sts.ipynb``. Local files are looked for, in order, in an
explicit path, ``$SBERT_WORKBOOK_DATA``, the repository's ``data/`` and ``../shared/data``
beside the repository, and the package's own files (the demo pairs); then the Hugging Face hub
(cached by ``datasets``).
"""
from __future__ import annotations

from dataclasses import dataclass

SEVEN_STS_SETS = ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb", "sickr")


@dataclass(frozen=True)
class DataSource:
    """One data set: its local layout and its public copy on the hub."""

    name: str
    kind: str  # "sts" or "nli"
    local_path: str  # relative to a data root
    layout: str  # "stsb", "senteval", "sick", "nli_jsonl" or "demo"
    hub_id: str | None
    hub_config: str | None
    description: str
    splits: tuple[str, ...] = ("test",)
    essential: bool = True  # the notebooks' quick modes need it; doctor fails without it


REGISTRY: dict[str, DataSource] = {
    "stsb": DataSource("stsb", "sts", "sts/STSBenchmark", "stsb", "sentence-transformers/stsb", None,
                       "STS Benchmark (Cer et al., 2017), scores 0-5", ("train", "dev", "test")),
    **{
        f"sts{year}": DataSource(f"sts{year}", "sts", f"sts/STS{year}-en-test", "senteval", f"mteb/sts{year}-sts", None,
                                 f"SemEval STS 20{year} test sets, SentEval layout, scores 0-5")
        for year in (12, 13, 14, 15, 16)
    },
    "sickr": DataSource("sickr", "sts", "sick/SICK.txt", "sick", "mteb/sickr-sts", None,
                        "SICK relatedness (Marelli et al., 2014), scores 1-5", ("train", "trial", "test")),
    "sick_nli": DataSource("sick_nli", "nli", "sick/SICK.txt", "sick", None, None,
                           "SICK entailment labels", ("train", "trial", "test")),
    "snli": DataSource("snli", "nli", "nli/snli_dev.jsonl", "nli_jsonl", "sentence-transformers/all-nli", "pair-class",
                       "SNLI 1.0 (Bowman et al., 2015)", ("dev",)),
    "mnli": DataSource("mnli", "nli", "nli/mnli_dev.jsonl", "nli_jsonl", "sentence-transformers/all-nli", "pair-class",
                       "MultiNLI 1.0 matched (Williams et al., 2018)", ("dev",)),
    "allnli": DataSource("allnli", "nli", "nli/allnli_train.jsonl", "nli_jsonl", "sentence-transformers/all-nli",
                         "pair-class", "AllNLI train = SNLI + MultiNLI train (942k pairs), for full-size NLI training",
                         ("train",), essential=False),
    "demo": DataSource("demo", "sts", "demo_sts_pairs.tsv", "demo", None, None,
                       "workbook demo pairs written by this project (NOT a benchmark)", ("all",)),
}

#: Score range each STS layout uses; loaders reject scores outside it.
SCORE_RANGES = {"stsb": (0.0, 5.0), "senteval": (0.0, 5.0), "sick": (1.0, 5.0), "demo": (0.0, 5.0)}
NLI_LABELS = ("entailment", "neutral", "contradiction")


def source(name: str) -> DataSource:
    """The registry entry for ``name``, or an error listing the names that exist."""
    try:
        return REGISTRY[name.lower()]
    except KeyError:
        raise KeyError(f"Unknown data set {name!r}. Known: {', '.join(REGISTRY)}.") from None
