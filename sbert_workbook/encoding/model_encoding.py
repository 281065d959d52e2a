"""Encoding as the model's authors meant: its prompt, its pooling, then its Dense and Normalize modules (``07_your_model``).

:meth:`~sbert_workbook.encoding.encoder.Encoder.encode` without a ``pooling`` runs this for a sentence-transformers
folder (:mod:`sbert_workbook.encoding.st_folder` says what the folder asks for); the batching, truncation and
out-of-memory back-off are the encoder's own. The vectors equal ``SentenceTransformer(folder).encode``'s (tests).
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from sbert_workbook.encoding.st_pooling import pool_modes
from sbert_workbook.encoding.text_input import checked_sentences


def prompt_length(tokenizer, prompt: str) -> int:
    """How many tokens the prompt takes at the start of a sentence: its tokens with [CLS], without a final special token
    ([SEP], EOS), as sentence-transformers counts them when a model excludes the prompt from pooling."""
    ids = tokenizer([prompt], add_special_tokens=True, verbose=False)["input_ids"][0]
    return len(ids) - (1 if ids and ids[-1] in tokenizer.all_special_ids else 0)


def texts_as_the_model_reads_them(modules, sentences: Sequence[str] | str, prompt_name: str | None = None) -> list[str]:
    """Each sentence with the model's prompt in front (``prompt_name``'s, else its default one), lower-cased if the model
    says ``do_lower_case``."""
    prompt = modules.prompt(prompt_name)
    texts = [prompt + sentence for sentence in checked_sentences(sentences)]
    return [text.lower() for text in texts] if modules.do_lower_case else texts


def encode_as_the_model(encoder, sentences, batch_size: int = 32, max_length: int | None = None,
                        progress: bool | None = None, sort_by_length: bool = True,
                        prompt_name: str | None = None) -> torch.Tensor:
    """Sentence vectors (n, dim) through ``encoder.modules``: prompt, (weighted layers,) pooling modes, then each step."""
    modules = encoder.modules
    prompt = modules.prompt(prompt_name)
    skip = 0 if modules.include_prompt or not prompt else prompt_length(encoder.tokenizer, prompt)
    texts = texts_as_the_model_reads_them(modules, sentences, prompt_name)
    pool_batch = lambda batch, rows: {"vectors": _pool_batch(encoder, batch, skip)}  # noqa: E731
    vectors = encoder._run_in_batches(texts, pool_batch, batch_size, max_length, progress, sort_by_length)["vectors"]
    with torch.inference_mode():
        return modules.finish(vectors)


def _pool_batch(encoder, batch, skip: int) -> torch.Tensor:
    layers = encoder.modules.layers
    if encoder._onnx is not None and layers is None:
        tokens = encoder._onnx(batch)
    else:
        with encoder._forward_context():
            output = encoder.model(**batch, output_hidden_states=layers is not None)
        tokens = output.last_hidden_state if layers is None else layers(tuple(h.float() for h in output.hidden_states))
    with torch.inference_mode():
        return pool_modes(tokens.float(), batch["attention_mask"], encoder.modules.pooling, skip).cpu()
