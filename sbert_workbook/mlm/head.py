"""Top-k [MASK] predictions from a real model's MLM head, e.g. ``bert-base-uncased``.

Introduced in ``01_mlm_to_similarity.ipynb``. A checkpoint without trained MLM-head
weights (the embedded all-MiniLM-L6-v2 is one) is refused: transformers would fill the
missing head with random numbers and the "predictions" would be noise. Never fake a head.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from sbert_workbook.devices import pick_device
from sbert_workbook.encoding.quiet_loading import load_tokenizer, quiet_transformers, transformer_folder
from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model


class MissingMlmHeadError(RuntimeError):
    """The checkpoint has no trained MLM head; the message names the missing weights."""


@dataclass
class MlmHead:
    """A masked-language model with its trained head and its tokenizer."""

    model: torch.nn.Module
    tokenizer: object
    resolved: ResolvedModel
    device: torch.device

    def describe(self) -> str:
        return f"{self.resolved.describe()}; MLM head loaded from the checkpoint; device {self.device}"


def load_mlm_head(name: str = "bert-base-uncased", device: str | torch.device | None = None) -> MlmHead:
    """Load ``AutoModelForMaskedLM`` by name and check that every head weight came from the checkpoint.

    Raises :class:`MissingMlmHeadError` when transformers reports parameters missing from the
    checkpoint (they would be randomly initialised), and ``ModelNotFoundError`` when the
    model cannot be found at all.
    """
    from transformers import AutoModelForMaskedLM

    resolved = resolve_model(name)
    with quiet_transformers():  # the check below says what matters
        try:
            model, info = AutoModelForMaskedLM.from_pretrained(transformer_folder(resolved),
                                                               output_loading_info=True)
        except ValueError as error:  # an architecture without a masked-LM class
            raise MissingMlmHeadError(f"{resolved.model_id} has no masked-language-model class in transformers ({error}). "
                                      "Use a BERT-style MLM such as 'bert-base-uncased'.") from error
    buffers = {buffer_name for buffer_name, _ in model.named_buffers()}
    missing = sorted(set(info.get("missing_keys", [])) - buffers)
    if missing:
        raise MissingMlmHeadError(
            f"{resolved.model_id} ({resolved.source}) has no trained MLM head: {len(missing)} weights are missing "
            f"from its checkpoint ({', '.join(missing[:4])}{', …' if len(missing) > 4 else ''}) and would be random. "
            "Sentence-embedding checkpoints such as all-MiniLM-L6-v2 drop the head. Use a pre-trained MLM, "
            "e.g. 'bert-base-uncased' (python -m sbert_workbook predownload --models bert-base-uncased)."
        )
    device = pick_device(device)
    return MlmHead(model.to(device).eval(), load_tokenizer(resolved), resolved, device)


def top_predictions(head: MlmHead, sentence: str, k: int = 10) -> pd.DataFrame:
    """The ``k`` most probable tokens at each ``[MASK]`` of ``sentence``, with probability and logit."""
    tokenizer = head.tokenizer
    text = sentence.replace("[MASK]", tokenizer.mask_token)
    batch = tokenizer(text, return_tensors="pt", truncation=True).to(head.device)
    mask_positions = (batch["input_ids"][0] == tokenizer.mask_token_id).nonzero().flatten()
    if len(mask_positions) == 0:
        raise ValueError(f"{sentence!r} has no [MASK]: type [MASK] where a word is missing, "
                         "e.g. 'The capital of France is [MASK].'")
    with torch.inference_mode():
        logits = head.model(**batch).logits[0, mask_positions].float().cpu().numpy()
    tokens = tokenizer.convert_ids_to_tokens(list(range(logits.shape[1])))
    return top_k_table(logits, tokens, k, mask_positions.cpu().numpy())


def top_k_table(logits: np.ndarray, tokens: Sequence[str], k: int, mask_positions: Sequence[int],
                exact: np.ndarray | None = None) -> pd.DataFrame:
    """Rows (mask, position, rank, token, probability, logit[, exact_probability]) for the top ``k``.

    ``logits`` has one row per [MASK]; probability = softmax over that row. ``exact``, when
    given (the toy language), holds the true p(x | c) per row.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}.")
    logits = np.asarray(logits, dtype=np.float64)
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    rows = []
    for mask, position in enumerate(mask_positions):
        for rank, index in enumerate(np.argsort(-logits[mask])[:k], start=1):
            row = {"mask": mask + 1, "position": int(position), "rank": rank, "token": tokens[index],
                   "probability": probabilities[mask, index], "logit": logits[mask, index]}
            if exact is not None:
                row["exact_probability"] = exact[mask, index]
            rows.append(row)
    return pd.DataFrame(rows)
