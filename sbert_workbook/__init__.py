"""sbert-workbook: the helper package behind the sentence-embedding notebooks.

The notebooks (``notebooks/NN_topic.ipynb``) are the lessons; this package is the tool
they teach with. Each function's docstring names the notebook that introduces it; ``00_start_here.ipynb`` is the way in.
"""
from sbert_workbook import about
from sbert_workbook.data import REGISTRY, SEVEN_STS_SETS, DataFormatError, DataNotFoundError, NliData, StsData, load_nli, load_sts
from sbert_workbook.devices import half_precision_dtype, pick_device, precision_name
from sbert_workbook.encoding.encoder import Encoder, load_encoder
from sbert_workbook.evaluation.sts import evaluate_sts, evaluate_sts_data
from sbert_workbook.encoding.resolve import ModelNotFoundError, resolve_model
from sbert_workbook.encoding.pooling import POOLINGS
from sbert_workbook.evaluation.provenance import (PROVENANCE_FIELDS, describe_model, describe_split, show_provenance_captions, table_caption,
                         with_provenance)
from sbert_workbook.settings import quick_mode, set_seed, torch_threads
from sbert_workbook.environment.memory import NotEnoughMemoryError, check_memory
from sbert_workbook.training.siamese import SiameseModel
from sbert_workbook.training.fitting import TrainingConfig, fit

__version__ = about.version()  # pyproject.toml's, once (sbert_workbook/about.py)

__all__ = [
    "DataFormatError", "DataNotFoundError", "Encoder", "ModelNotFoundError", "NliData", "POOLINGS", "REGISTRY",
    "SEVEN_STS_SETS", "StsData", "evaluate_sts", "evaluate_sts_data", "half_precision_dtype", "load_encoder",
    "load_nli", "load_sts", "pick_device", "precision_name", "quick_mode", "resolve_model", "set_seed", "table_caption",
    "SiameseModel", "TrainingConfig", "fit", "torch_threads", "PROVENANCE_FIELDS", "describe_model", "describe_split",
    "show_provenance_captions", "with_provenance", "check_memory", "NotEnoughMemoryError",
]
