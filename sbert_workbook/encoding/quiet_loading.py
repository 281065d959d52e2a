"""Loading a checkpoint quietly, with one honest line about the weights it did not fit.

Introduced in ``00_start_here.ipynb`` (the first model load). ``bert-base-uncased`` is a
pre-training checkpoint: loading it as an encoder leaves its MLM (and next-sentence) head
unused, and a checkpoint saved without a pooler leaves the pooler freshly initialised.
transformers says so in a multi-line LOAD REPORT; the workbook silences that and prints one
line that says which weights were not used and why that is expected.

Every loader in the package finds a model's transformer through :func:`transformer_folder`, so a hub id, a
transformers folder and a sentence-transformers folder (whose ``modules.json`` may keep the transformer in a
sub-folder such as ``0_Transformer/``) load the same way, whatever reads them.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

#: Checkpoint weights an encoder does not need: prefix → (what they are, why that is fine).
UNUSED_HEADS = {
    "cls.predictions.": ("MLM-head", "an encoder needs only the transformer"),
    "cls.seq_relationship.": ("next-sentence-head", "an encoder needs only the transformer"),
}
#: Encoder weights a checkpoint may lack: prefix → (what they are, why that is fine).
UNUSED_MISSING = {"pooler.": ("pooler", "no pooling in the workbook reads the pooler")}


@contextlib.contextmanager
def quiet_transformers():
    """Silence transformers' load report and progress bars inside the block (restored afterwards)."""
    from transformers.utils import logging

    previous, bar = logging.get_verbosity(), logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(previous)
        if bar:
            logging.enable_progress_bar()


def transformer_folder(source) -> Path:
    """The folder holding a model's transformer (config.json, tokenizer, weights): a sentence-transformers folder's
    ``modules.json`` names it (``0_Transformer/`` in older ones, the folder itself in newer); any other folder is its
    own. ``source`` is a :class:`~sbert_workbook.encoding.resolve.ResolvedModel` or a folder."""
    from sbert_workbook.encoding.st_folder import read_model_modules

    folder = Path(getattr(source, "path", source))
    return folder / read_model_modules(folder).transformer_path


def load_tokenizer(source):
    """The tokenizer of the transformer in ``source`` (see :func:`transformer_folder`), without transformers' notes."""
    from transformers import AutoTokenizer

    with quiet_transformers():
        return AutoTokenizer.from_pretrained(transformer_folder(source))


def load_transformer_quietly(source, model_id: str):
    """``AutoModel.from_pretrained`` on ``source``'s :func:`transformer_folder` without the LOAD REPORT; prints
    :func:`unused_weights_note` instead."""
    from transformers import AutoModel

    with quiet_transformers():
        model, info = AutoModel.from_pretrained(transformer_folder(source), output_loading_info=True)
    note = unused_weights_note(model_id, info)
    if note:
        print(note)
    return model


def unused_weights_note(model_id: str, info: dict) -> str | None:
    """One line naming the checkpoint weights not used and the model weights not loaded, or None when all fit.

    ``info`` is transformers' ``output_loading_info`` dict (missing, unexpected and
    mismatched keys). Expected gaps (an MLM head, a pooler) say why they do not matter;
    anything else is named as what it is, weights left at random initialisation.
    """
    parts = []
    unexpected, missing = set(info.get("unexpected_keys", ())), set(info.get("missing_keys", ()))
    for prefix, (what, why) in UNUSED_HEADS.items():
        keys = {key for key in unexpected if key.startswith(prefix)}
        unexpected -= keys
        if keys:
            parts.append(f"{len(keys)} {what} weights ({prefix}*) not used: {why}")
    for prefix, (what, why) in UNUSED_MISSING.items():
        keys = {key for key in missing if key.startswith(prefix)}
        missing -= keys
        if keys:
            parts.append(f"{len(keys)} {what} weights ({prefix}*) not in the checkpoint, left at random: {why}")
    if unexpected:
        parts.append(f"{len(unexpected)} other checkpoint weights not used ({_some(unexpected)})")
    missing |= {key for key, *_shapes in info.get("mismatched_keys", ())}
    if missing:
        parts.append(f"{len(missing)} weights missing or of the wrong shape, left at random ({_some(missing)}): "
                     "vectors from this model are not the trained checkpoint's")
    return f"{model_id}: " + "; ".join(parts) if parts else None


def _some(keys: set[str], shown: int = 3) -> str:
    names = sorted(keys)
    return ", ".join(names[:shown]) + (", …" if len(names) > shown else "")
