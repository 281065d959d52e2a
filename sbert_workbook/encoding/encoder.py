"""The encoder: a transformer plus a pooling, turning sentences into vectors.

Introduced in ``03_pooling_and_sts.ipynb``; ``02_anisotropy.ipynb`` reads its per-layer
hidden states.
"""
from __future__ import annotations

import contextlib
import numbers
from collections.abc import Sequence

import torch
from tqdm.auto import tqdm

from sbert_workbook.devices import half_precision_dtype, pick_device
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model
from sbert_workbook.encoding.st_folder import ModelModules, read_model_modules
from sbert_workbook.encoding.onnx_backend import OnnxLastHiddenState, checked_backend
from sbert_workbook.encoding.quiet_loading import load_tokenizer, load_transformer_quietly
from sbert_workbook.encoding.model_encoding import encode_as_the_model
from sbert_workbook.encoding.pooling import INPUT_POOLINGS, TOKEN_POOLING_FUNCTIONS, pool, word_embedding_pooling
from sbert_workbook.settings import torch_threads
from sbert_workbook.encoding.text_input import checked_sentences
from sbert_workbook.encoding.batch_limits import halved_after_out_of_memory, sentences_in_batch, warn_about_truncation

PROGRESS_BAR_MIN_SENTENCES = 2000
LONG_PASS_SENTENCES = 500


class Encoder:
    """A Hugging Face model and tokenizer that encode sentences with a chosen pooling.

    ``backend="onnx"`` (CPU only) runs the cls/mean/max poolings through ONNX Runtime: the
    same vectors, faster; other poolings and :meth:`hidden_states` always run in PyTorch
    (``word_embeddings`` is only a lookup in the input embedding matrix).
    """

    def __init__(self, model, tokenizer, resolved: ResolvedModel, device: torch.device, max_length: int,
                 backend: str = "torch", modules: ModelModules | None = None, precision: str = "float32"):
        self.backend = checked_backend(backend, device)
        self.precision = precision  # what the transformer's pass runs in (sbert_workbook.encoding.precision; 08)
        self.modules = modules or ModelModules()  # what encode() without a pooling runs after the transformer (07)
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.resolved = resolved
        self.device = device
        self.max_length = max_length
        self._onnx = OnnxLastHiddenState(self.model) if backend == "onnx" else None

    @property
    def name(self) -> str:
        return self.resolved.model_id

    @property
    def hidden_size(self) -> int:
        return self.model.config.hidden_size

    @property
    def num_hidden_states(self) -> int:
        """Embedding layer + transformer layers: the length of ``hidden_states``."""
        return self.model.config.num_hidden_layers + 1

    def describe(self) -> str:
        return (f"{self.resolved.describe()}; device {self.device}, backend {self.backend}, max_length {self.max_length}"
                + ("" if self.precision == "float32" else f", precision {self.precision}"))

    def __repr__(self) -> str:
        return (f"Encoder({self.name!r}, source={self.resolved.source!r}, device={str(self.device)!r}, "
                f"backend={self.backend!r})")

    @property
    def position_limit(self) -> int:
        """The most tokens the model can read at once: its position embeddings (e.g. 512), or the tokenizer's limit if lower."""
        limit = int(getattr(self.model.config, "max_position_embeddings", 512))
        tokenizer_limit = self.tokenizer.model_max_length
        if isinstance(tokenizer_limit, int) and tokenizer_limit < 100_000:  # "no limit known" is a huge number
            limit = min(limit, tokenizer_limit)
        return limit

    def hidden_states(self, sentences: Sequence[str] | str, max_length: int | None = None):
        """All hidden states for one batch: (tuple of (batch, tokens, dim) tensors, attention_mask).

        Sentences longer than ``max_length`` tokens are truncated, with one warning per call.
        """
        sentences, max_length = checked_sentences(sentences), self._checked_max_length(max_length)
        token_ids = self.tokenizer(sentences, add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        warn_about_truncation(token_ids, max_length, self.position_limit)
        batch = self._pad([ids[:max_length] for ids in token_ids], max_length)
        with self._forward_context():
            output = self.model(**batch, output_hidden_states=True)
        return tuple(h.float() for h in output.hidden_states), batch["attention_mask"]

    def encode(
        self,
        sentences: Sequence[str] | str,
        pooling: str | None = None,
        layers: Sequence[int] | None = None,
        batch_size: int = 32,
        normalize: bool = False,
        max_length: int | None = None,
        progress: bool | None = None,
        sort_by_length: bool = True,
        prompt_name: str | None = None,
    ) -> torch.Tensor:
        """Sentence vectors, shape (n, hidden_size), float32 on the CPU, in input order.

        Each distinct sentence is encoded once. Sentences are tokenized once, sorted by token
        length and batched so that padding is minimal (SBERT's "smart batching";
        ``sort_by_length=False`` batches them in input order, same vectors, more padding);
        sentences longer than ``max_length`` tokens are truncated, with one warning per call
        that says how many were cut.

        Without ``pooling`` (and ``layers``) the model is read as its authors meant (:attr:`modules`, ``07``): a
        sentence-transformers folder's prompt (``prompt_name``, else its default), pooling, Dense and Normalize modules,
        the vectors of ``SentenceTransformer(folder).encode``; a raw transformer's mean pooling. A named ``pooling``
        pools the transformer's hidden states that way and runs nothing after it (03's comparisons).
        """
        if pooling is None and layers is None and self.modules.from_model:
            embeddings = encode_as_the_model(self, sentences, batch_size, max_length, progress, sort_by_length, prompt_name)
            return torch.nn.functional.normalize(embeddings, dim=-1) if normalize else embeddings
        pooling = pooling or "mean"
        needs_all_layers = layers is not None or pooling not in TOKEN_POOLING_FUNCTIONS
        pool_batch = lambda batch, rows: {"vectors": self._pool_batch(batch, pooling, layers, needs_all_layers)}  # noqa: E731
        embeddings = self._run_in_batches(sentences, pool_batch, batch_size, max_length, progress,
                                          sort_by_length)["vectors"]
        if normalize:
            embeddings = torch.nn.functional.normalize(embeddings, dim=-1)
        return embeddings

    def summarize_hidden_states(self, sentences: Sequence[str] | str, summarize, batch_size: int = 32,
                                max_length: int | None = None, progress: bool | None = None, with_rows: bool = False) -> dict:
        """``summarize(hidden_states, attention_mask)`` for every sentence, from one forward pass per batch.

        ``summarize`` gets one batch's float32 hidden states (a tuple, as :meth:`hidden_states`
        gives them) and returns ``{name: values}``, each a tensor with one row per sentence of
        the batch or a list with one item per sentence. The answer holds, per name, a tensor
        (n, ...) or a list of n items, in input order. Batching, truncation, the progress bar
        and the out-of-memory back-off are :meth:`encode`'s; :mod:`sbert_workbook.encoding.views`
        builds its poolings and per-layer vectors on it (``02_anisotropy.ipynb``). ``with_rows``: ``summarize`` also
        gets, third, the batch's rows as positions in ``list(dict.fromkeys(sentences))`` (each distinct sentence once).
        """
        summarize_batch = lambda batch, rows: self._summarize_batch(batch, summarize, rows if with_rows else None)  # noqa: E731
        return self._run_in_batches(sentences, summarize_batch, batch_size, max_length, progress)

    def _run_in_batches(self, sentences, run_batch, batch_size, max_length, progress, sort_by_length=True) -> dict:
        """``run_batch(padded batch, its rows among the distinct sentences) -> {name: values}`` over each distinct sentence
        once, answered in input order."""
        sentences, max_length = checked_sentences(sentences), self._checked_max_length(max_length)
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise ValueError(f"batch_size must be a whole number of at least 1, got {batch_size!r}.")
        distinct = list(dict.fromkeys(sentences))
        # verbose=False: our own warning below replaces the tokenizer's "indexing errors" one, which is wrong here
        token_ids = self.tokenizer(distinct, add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        position = {sentence: i for i, sentence in enumerate(distinct)}
        rows = [position[s] for s in sentences]
        warn_about_truncation([token_ids[i] for i in rows], max_length, self.position_limit, stacklevel=4)
        progress = len(distinct) >= PROGRESS_BAR_MIN_SENTENCES if progress is None else progress
        order, per_batch = self._sorted_batches(token_ids, run_batch, batch_size, max_length, progress, sort_by_length)
        answers = {name: _in_input_order(values, order, rows) for name, values in per_batch.items()}
        if len(distinct) >= LONG_PASS_SENTENCES:  # its activations are freed: hand the pages back (sbert_workbook.heap)
            return_freed_memory()
        return answers

    def _sorted_batches(self, token_ids, run_batch, batch_size, max_length, progress, sort_by_length=True):
        """(order, {name: [one value per batch]}), batches longest first, shorter sentences in larger batches within the
        first batch's padded tokens (else ``batch_size`` at a time in input order); halves the batch on CUDA OOM."""
        order = list(range(len(token_ids)))
        if sort_by_length:
            order.sort(key=lambda i: -len(token_ids[i]))
        tokens = lambda i: min(len(token_ids[i]), max_length)  # noqa: E731
        per_batch, start = {}, 0
        with tqdm(total=len(order), disable=not progress, desc="encoding", unit="sentence") as bar:
            while start < len(order):
                size = sentences_in_batch(batch_size, tokens(order[0]), tokens(order[start])) if sort_by_length else batch_size
                batch_indices = order[start:start + size]
                batch = self._pad([token_ids[i][:max_length] for i in batch_indices], max_length)
                try:
                    answers = run_batch(batch, batch_indices)
                except torch.cuda.OutOfMemoryError:
                    batch_size = halved_after_out_of_memory(batch_size, max(len(token_ids[i]) for i in batch_indices))
                    continue
                for name, values in answers.items():
                    per_batch.setdefault(name, []).append(values)
                start += len(batch_indices)
                bar.update(len(batch_indices))
        return order, per_batch

    def _summarize_batch(self, batch, summarize, rows=None) -> dict:
        with self._forward_context():
            output = self.model(**batch, output_hidden_states=True)
        with torch.inference_mode():
            states = tuple(h.float() for h in output.hidden_states)
            answers = summarize(states, batch["attention_mask"], *([rows] if rows is not None else []))
        return {name: values.cpu() if isinstance(values, torch.Tensor) else [v.cpu() for v in values]
                for name, values in answers.items()}

    def _pool_batch(self, batch, pooling, layers, needs_all_layers) -> torch.Tensor:
        if pooling in INPUT_POOLINGS and layers is None:  # an embedding lookup, no transformer pass, in either backend
            with torch.inference_mode():
                word_embeddings = self.model.get_input_embeddings()
                return word_embedding_pooling(word_embeddings, batch["input_ids"], batch["attention_mask"]).cpu()
        if self._onnx is not None and not needs_all_layers:
            last_hidden_state = self._onnx(batch)
            with torch_threads(1):  # torch's idle worker threads would spin against ONNX Runtime's (~15 % slower)
                return pool((last_hidden_state,), batch["attention_mask"], pooling, layers)
        with self._forward_context():
            output = self.model(**batch, output_hidden_states=needs_all_layers)
        states = output.hidden_states if needs_all_layers else (output.last_hidden_state,)
        return pool(states, batch["attention_mask"], pooling, layers).float().cpu()

    def _checked_max_length(self, max_length: int | None) -> int:
        if max_length is None:
            return self.max_length
        limit = self.position_limit
        if isinstance(max_length, bool) or not isinstance(max_length, numbers.Integral) or not 2 <= max_length <= limit:
            raise ValueError(
                f"max_length={max_length!r} is not possible for {self.name}: it must be a whole number from 2 "
                f"([CLS] and [SEP]) up to the model's limit of {limit} tokens. Leave it out to use {self.max_length}."
            )
        return int(max_length)

    def _pad(self, token_id_lists: list[list[int]], max_length: int):
        if token_id_lists and any(len(ids) == max_length for ids in token_id_lists):
            sep = self.tokenizer.sep_token_id
            if sep is not None:  # keep [SEP] as the last token of a truncated sentence
                token_id_lists = [ids if len(ids) < max_length or ids[-1] == sep else ids[:-1] + [sep] for ids in token_id_lists]
        batch = self.tokenizer.pad({"input_ids": token_id_lists}, return_tensors="pt")
        if "token_type_ids" in self.tokenizer.model_input_names:
            batch["token_type_ids"] = torch.zeros_like(batch["input_ids"])
        return {key: value.to(self.device) for key, value in batch.items()}

    def _forward_context(self):
        stack = contextlib.ExitStack()
        stack.enter_context(torch.inference_mode())
        dtype = half_precision_dtype(self.device)
        if dtype is not None:
            stack.enter_context(torch.autocast(self.device.type, dtype=dtype))
        return stack


def load_encoder(name: str = "auto", device: str | torch.device | None = None, max_length: int | None = None,
                 backend: str = "torch", precision: str = "float32") -> Encoder:
    """Load a model by name (see :func:`~sbert_workbook.encoding.resolve.resolve_model`) as an :class:`Encoder`.

    Prints which model was picked and why, and one line on any checkpoint weights it did not
    use (:func:`~sbert_workbook.encoding.quiet_loading.unused_weights_note`). ``max_length``
    defaults to the model's sentence-transformers setting when it has one, else its position
    limit (at most 512). A second line says which pooling ``encode`` runs by default and why: the model's own
    (``1_Pooling/config.json``, with its Dense and Normalize modules; :mod:`~sbert_workbook.encoding.st_folder`) or
    the workbook's mean pooling for a raw transformer.
    ``backend="onnx"`` runs the cls/mean/max poolings through ONNX Runtime on the CPU. ``precision="int8"`` (CPU) or
    ``"bfloat16"`` runs the transformer in that precision (opt-in; :mod:`~sbert_workbook.encoding.precision`, 08 §5.2).
    """
    from sbert_workbook.encoding.precision import at_precision

    resolved = resolve_model(name)
    print(f"Model: {resolved.describe()}")
    modules = read_model_modules(resolved.path)
    print(modules.describe())
    try:
        tokenizer = load_tokenizer(resolved)
        model = load_transformer_quietly(resolved, resolved.model_id)
    except (OSError, ValueError, KeyError) as error:
        raise RuntimeError(
            f"{resolved.path} looked like a model but could not be loaded ({error}). "
            "It needs config.json, tokenizer files and weights (model.safetensors) of a BERT-like model."
        ) from error
    device = pick_device("cpu" if device is None and (backend == "onnx" or precision == "int8") else device)
    if precision != "float32" and backend != "torch":
        raise ValueError(f"precision={precision!r} runs in PyTorch: use backend='torch' with it.")
    default_length = modules.max_seq_length or min(int(getattr(model.config, "max_position_embeddings", 512)), 512)
    return Encoder(at_precision(model, precision, device), tokenizer, resolved, device, max_length or int(default_length),
                   backend, modules, precision)


def _in_input_order(per_batch: list, order: list[int], rows: list[int]):
    """Values gathered batch by batch (sentences in ``order``) put back as one entry per input sentence (``rows``).

    Tensors are written into place batch by batch, each batch let go once written (``per_batch`` is emptied), and
    with no repeated sentence the result is returned as is: one copy of the vectors at a time, not three."""
    if isinstance(per_batch[0], torch.Tensor):
        values = torch.empty(len(order), *per_batch[0].shape[1:], dtype=per_batch[0].dtype)
        start, per_batch[:] = 0, per_batch[::-1]
        while per_batch:
            batch = per_batch.pop()
            values[order[start:start + len(batch)]] = batch
            start += len(batch)
        return values if rows == list(range(len(order))) else values[rows]
    values = [None] * len(order)
    for i, value in zip(order, (value for batch in per_batch for value in batch)):
        values[i] = value
    return [values[row] for row in rows]
