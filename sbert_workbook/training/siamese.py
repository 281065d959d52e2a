"""The Siamese network of Sentence-BERT: one transformer, a pooling, an optional classifier.

Introduced in ``04_siamese_finetuning.ipynb``. Both sentences of a pair go through the
*same* weights ("Siamese"); their pooled vectors u and v are what the objectives in
:mod:`sbert_workbook.training.losses` see.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from sbert_workbook.devices import pick_device
from sbert_workbook.encoding.encoder import Encoder
from sbert_workbook.training.losses import SBERT_PAIR_FEATURES, ClassifierHead
from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model
from sbert_workbook.data.records import StsData
from sbert_workbook.encoding.pooling import INPUT_POOLINGS, POOLINGS, TOKEN_POOLING_FUNCTIONS, pool, word_embedding_pooling
from sbert_workbook.evaluation.sts import evaluate_sts_data
from sbert_workbook.encoding.quiet_loading import load_tokenizer, load_transformer_quietly
from sbert_workbook.encoding.st_save import averaged_layers, needs_all_hidden_states, write_sentence_transformers_files

#: A small BERT for "training from scratch" on a CPU: 4 layers of width 256 (about 11 M parameters
#: with the 30,522-token vocabulary, most of them in the word embeddings).
SMALL_BERT = {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 1024}


class SiameseModel(nn.Module):
    """Transformer + token pooling (+ classifier head): sentences in, vectors (and a loss) out."""

    def __init__(self, transformer, tokenizer, resolved: ResolvedModel, pooling: str = "mean", max_length: int = 128,
                 layers: Sequence[int] | None = None):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"Unknown pooling {pooling!r}: choose from {', '.join(POOLINGS)}, or pass layers=[...].")
        hidden_states = transformer.config.num_hidden_layers + 1
        if layers is not None and (not layers or any(not -hidden_states <= layer < hidden_states for layer in layers)):
            raise ValueError(f"layers={list(layers)} must name at least one of this model's {hidden_states} hidden states "
                             f"(0 = embeddings, 1..{hidden_states - 1} = transformer layers; negatives count from the end).")
        self.transformer, self.tokenizer, self.resolved = transformer, tokenizer, resolved
        self.pooling, self.max_length = pooling, max_length
        self.layers = None if layers is None else tuple(layers)
        self.head: ClassifierHead | None = None

    @property
    def dim(self) -> int:
        return self.transformer.config.hidden_size

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def add_classifier(self, num_labels: int = 3, parts=SBERT_PAIR_FEATURES, seed: int = 0) -> ClassifierHead:
        """Attach the softmax classifier W·(u, v, |u−v|) the NLI objective trains (and then throws away).

        Its initial weights come from ``seed``; the caller's random stream is left untouched.
        """
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.head = ClassifierHead(self.dim, num_labels, parts).to(self.device)
        return self.head

    def tokenize(self, sentences: list[str]) -> dict[str, torch.Tensor]:
        return self.tokenizer(list(sentences), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")

    def forward(self, input_ids, attention_mask, token_type_ids=None) -> torch.Tensor:
        """u = pool(BERT(sentence)): one vector per row of ``input_ids``, with any pooling an Encoder has."""
        if self.pooling in INPUT_POOLINGS and self.layers is None:  # a look-up in the input word embeddings, a bag of words
            # in training, BERT's own embedding dropout acts on the rows (the noise of 06's bag-of-words SimCSE)
            dropout = getattr(getattr(self.transformer, "embeddings", None), "dropout", None)
            return word_embedding_pooling(self.transformer.get_input_embeddings(), input_ids, attention_mask, dropout)
        all_layers = self.layers is not None or self.pooling not in TOKEN_POOLING_FUNCTIONS
        output = self.transformer(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                                  output_hidden_states=all_layers)
        states = output.hidden_states if all_layers else (output.last_hidden_state,)
        return pool(states, attention_mask, self.pooling, self.layers)

    def embed_columns(self, columns: list[list[str]], forward=None) -> list[torch.Tensor]:
        """Embed every column (premises, hypotheses, …) in one forward pass; one tensor per column.

        ``forward`` runs the pass instead of the model itself (``fit`` passes accelerate's prepared model).
        """
        sizes = [len(column) for column in columns]
        features = self.tokenize([sentence for column in columns for sentence in column])
        embeddings = (forward or self)(**{key: value.to(self.device) for key, value in features.items()})
        return list(torch.split(embeddings, sizes))

    def encoder(self) -> Encoder:
        """The workbook's :class:`~sbert_workbook.encoding.encoder.Encoder` over these weights (eval mode), for evaluate_sts."""
        return Encoder(self.transformer, self.tokenizer, self.resolved, self.device, self.max_length)

    def sts_spearman(self, data: StsData) -> float:
        """Spearman × 100 of cosine similarity on ``data`` with this model's pooling (what ``fit`` tracks on the dev set)."""
        encoder = self.encoder()
        embed = lambda s: encoder.encode(s, pooling=self.pooling, layers=self.layers, batch_size=64)  # noqa: E731
        return evaluate_sts_data(embed, data)["spearman_cosine"]

    def save(self, folder: str | Path) -> Path:
        """Save a folder that :func:`~sbert_workbook.load_encoder` and ``SentenceTransformer(folder)`` both read as this
        model (plus ``head.safetensors``): the transformer and tokenizer, and sentence-transformers' modules for the
        pooling (:mod:`~sbert_workbook.encoding.st_save`; a layer average as its ``WeightedLayerPooling``)."""
        from safetensors.torch import save_file

        folder = Path(folder)
        hidden_states = self.transformer.config.num_hidden_layers + 1
        averaged_layers(self.pooling, self.layers, hidden_states)  # refuses a pooling that cannot travel, before writing
        config, all_states = self.transformer.config, needs_all_hidden_states(self.pooling, self.layers)
        kept, config.output_hidden_states = config.output_hidden_states, all_states or config.output_hidden_states
        try:
            self.transformer.save_pretrained(folder)
        finally:
            config.output_hidden_states = kept
        self.tokenizer.save_pretrained(folder)
        write_sentence_transformers_files(folder, self.pooling, self.layers, self.dim, hidden_states, self.max_length)
        if self.head is not None:
            save_file({k: v.contiguous() for k, v in self.head.state_dict().items()}, str(folder / "head.safetensors"))
        return folder

    @classmethod
    def from_pretrained(cls, name: str | ResolvedModel = "auto", pooling: str = "mean", max_length: int = 128,
                        device=None, layers: Sequence[int] | None = None, announce: bool = True) -> SiameseModel:
        """A trainable Siamese model from any name :func:`~sbert_workbook.resolve_model` understands (or an encoder's
        ``resolved``: the same model again, a fresh copy of its weights); ``announce=False`` leaves out the line that
        says which model it is (a lesson that loads fresh copies of a model it named already)."""
        resolved = name if isinstance(name, ResolvedModel) else resolve_model(name)
        if announce:
            print(f"Model: {resolved.describe()}")
        tokenizer = load_tokenizer(resolved)
        transformer = load_transformer_quietly(resolved, resolved.model_id)
        return cls(transformer, tokenizer, resolved, pooling, max_length, layers).to(pick_device(device))

    @classmethod
    def from_scratch(cls, tokenizer_from: str = "embedded", pooling: str = "mean", max_length: int = 128,
                     device=None, seed: int = 0, layers: Sequence[int] | None = None, **config) -> SiameseModel:
        """A freshly initialised BERT (``SMALL_BERT`` sizes unless overridden) with another model's tokenizer.

        Nothing in it has been trained: it is the honest "before" of a training run.
        """
        from transformers import BertConfig, BertModel

        tokenizer_source = resolve_model(tokenizer_from)
        tokenizer = load_tokenizer(tokenizer_source)
        sizes = {**SMALL_BERT, **config}
        with torch.random.fork_rng(devices=[]):  # seeded weights, the caller's random stream untouched
            torch.manual_seed(seed)
            transformer = BertModel(BertConfig(vocab_size=tokenizer.vocab_size, **sizes), add_pooling_layer=False)
        shape = f"{sizes['num_hidden_layers']} layers × {sizes['hidden_size']}"
        resolved = ResolvedModel("scratch", Path("(in memory)"), "fresh random initialisation", f"BERT {shape}, random init",
                                 f"seed {seed}", f"randomly initialised BERT ({shape}) with the tokenizer of {tokenizer_source.model_id}")
        print(f"Model: {resolved.describe()}")
        return cls(transformer, tokenizer, resolved, pooling, max_length, layers).to(pick_device(device))

    def renamed(self, model_id: str, reason: str) -> SiameseModel:
        """Relabel the model for tables, e.g. after training: ``model.renamed('… + NLI (200 steps)', '…')``."""
        r = self.resolved
        self.resolved = ResolvedModel(r.requested, r.path, "trained in this notebook", model_id, r.revision, reason)
        return self
