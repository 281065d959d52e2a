"""Shared fixtures: the embedded model is loaded once per session; data comes from ../shared/data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # tests never reach for the hub
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"The reference data is missing: expected {SHARED_DATA} (see README, 'Data').")
    return SHARED_DATA


@pytest.fixture(scope="session")
def encoder():
    """The embedded all-MiniLM-L6-v2 on CPU; tests must not modify it (copy.deepcopy first)."""
    from sbert_workbook import load_encoder

    return load_encoder("embedded", device="cpu")


@pytest.fixture(scope="session")
def onnx_encoder(encoder):
    """A copy of the embedded model with the ONNX Runtime backend (same tokenizer and settings)."""
    import copy

    import torch

    from sbert_workbook.encoding.encoder import Encoder

    return Encoder(copy.deepcopy(encoder.model), encoder.tokenizer, encoder.resolved, torch.device("cpu"),
                   encoder.max_length, backend="onnx")


@pytest.fixture(scope="session")
def st_model(encoder):
    """sentence-transformers' own model over the same folder: the independent reference."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(encoder.resolved.path), device="cpu")
