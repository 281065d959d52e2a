"""The workbook's data: the one registry of benchmarks, finding their files, reading them, the hub copies.

``00_start_here.ipynb`` shows the registry and where each set was found;
``03_pooling_and_sts.ipynb`` loads STS and NLI pairs with :func:`load_sts` and :func:`load_nli`.
Data flows one way: ``registry`` → ``finding`` / ``readers`` / ``hub`` → ``loaders`` → ``corpora``
(plain sentence lists: a search corpus, BERT-flow's unlabeled fitting sentences in ``05``); ``records``
holds the typed results and the two errors.
Imported by: evaluation, calibration, training, diagnosis, environment, runner, book, classroom, cli, installs, lessons
and the package's __init__.
"""
from sbert_workbook.data.finding import find_local
from sbert_workbook.data.loaders import load_nli, load_sts
from sbert_workbook.data.records import DataFormatError, DataNotFoundError, NliData, StsData
from sbert_workbook.data.registry import REGISTRY, SEVEN_STS_SETS

__all__ = ["DataFormatError", "DataNotFoundError", "NliData", "REGISTRY", "SEVEN_STS_SETS", "StsData", "find_local",
           "load_nli", "load_sts"]
