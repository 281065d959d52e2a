"""A tiny BERT trained live by masked language modelling on the toy language.

Introduced in ``01_mlm_to_similarity.ipynb``. The model is ``transformers``' own
``BertForMaskedLM`` with a small ``BertConfig``; the masking follows BERT's 80/10/10 rule;
the logit of word x in context c is read as h_cᵀw_x + b_x so it can be compared with the
exact PMI(x, c) + log p(x) of :mod:`sbert_workbook.mlm.toy_language`.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from sbert_workbook.evaluation.similarity import mean_cosine
from sbert_workbook.mlm.head import top_k_table
from sbert_workbook.settings import torch_threads
from sbert_workbook.optimizer import adamw
from sbert_workbook.mlm.toy_language import HIDDEN, MarkovLanguage

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = range(len(SPECIAL_TOKENS))
FIRST_WORD_ID = len(SPECIAL_TOKENS)  # word i of the language is token FIRST_WORD_ID + i
IGNORE_LABEL = -100  # positions the loss skips, as in transformers


def mask_tokens(input_ids: torch.Tensor, vocab_size: int, mask_probability: float = 0.15,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking: pick each word token with probability 0.15; of those, 80 % → [MASK],
    10 % → a random word, 10 % kept. Returns (inputs, labels); labels are −100 where not picked.

    Special tokens (ids < FIRST_WORD_ID) are never picked; random words are drawn from the
    real words only (transformers' collator draws from the whole vocabulary).
    """
    shape = input_ids.shape
    picked = (torch.rand(shape, generator=generator) < mask_probability) & (input_ids >= FIRST_WORD_ID)
    labels = torch.where(picked, input_ids, torch.full_like(input_ids, IGNORE_LABEL))
    roll = torch.rand(shape, generator=generator)
    random_words = torch.randint(FIRST_WORD_ID, vocab_size, shape, generator=generator)
    inputs = torch.where(picked & (roll < 0.8), torch.full_like(input_ids, MASK_ID), input_ids)
    inputs = torch.where(picked & (roll >= 0.8) & (roll < 0.9), random_words, inputs)
    return inputs, labels


class TinyMlm:
    """A small ``BertForMaskedLM`` over the words of a :class:`MarkovLanguage` (``01_mlm_to_similarity``)."""

    def __init__(self, language: MarkovLanguage, hidden_size: int = 64, num_layers: int = 2, num_heads: int = 4,
                 length: int = 8, seed: int = 0):
        from transformers import BertConfig, BertForMaskedLM

        self.language, self.length, self.seed = language, length, seed
        self.config = BertConfig(
            vocab_size=FIRST_WORD_ID + language.vocab_size, hidden_size=hidden_size, num_hidden_layers=num_layers,
            num_attention_heads=num_heads, intermediate_size=4 * hidden_size, max_position_embeddings=length + 2,
            type_vocab_size=1, pad_token_id=PAD_ID, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
            tie_word_embeddings=True,
        )
        with torch.random.fork_rng(devices=[]):  # seed the initial weights without touching the global generator
            torch.manual_seed(seed)
            self.model = BertForMaskedLM(self.config).eval()
        self.history = pd.DataFrame()
        self._rng, self._generator = np.random.default_rng(seed + 3), torch.Generator().manual_seed(seed + 4)
        probe_words = _one_hidden_word_each(language.sample(256, length, np.random.default_rng(seed + 1)),
                                            np.random.default_rng(seed + 2))
        self._probe = (self.token_ids(probe_words), language.conditional(probe_words), probe_words)
        self._probe_sentences = self.token_ids(language.sample(256, length, np.random.default_rng(seed + 5)))

    def describe(self) -> str:
        c = self.config
        params = sum(p.numel() for p in self.model.parameters())
        return (f"tiny BertForMaskedLM: {c.num_hidden_layers} layers, hidden {c.hidden_size}, {c.num_attention_heads} heads, "
                f"{params:,} parameters, vocabulary {c.vocab_size} ({len(SPECIAL_TOKENS)} special + "
                f"{self.language.vocab_size} words), windows of {self.length} words")

    def token_ids(self, words: np.ndarray) -> torch.Tensor:
        """[CLS] w_1 … w_L [SEP] as token ids; HIDDEN word positions become [MASK]."""
        words = torch.as_tensor(np.atleast_2d(words))
        ids = torch.where(words == HIDDEN, torch.full_like(words, MASK_ID), words + FIRST_WORD_ID)
        column = torch.full((ids.shape[0], 1), CLS_ID)
        return torch.cat([column, ids, torch.full_like(column, SEP_ID)], dim=1)

    def train(self, steps: int, batch_size: int = 128, learning_rate: float = 3e-3, track_every: int = 25,
              progress: bool = True) -> pd.DataFrame:
        """Pre-train on fresh windows from the language; return (and extend) ``self.history``.

        AdamW with linear warm-up (5 %) and decay; every ``track_every`` steps the history
        records the mean loss and :meth:`snapshot` (anisotropy and distance to the truth).
        """
        optimizer = adamw(self.model.parameters(), learning_rate, weight_decay=0.01)
        warmup = max(1, steps // 20)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
        start = int(self.history["step"].max()) if len(self.history) else 0
        self.model.train()
        with torch_threads(1):  # tiny matrices: one thread beats two handing them back and forth
            rows = [] if start else [{"step": 0, "loss": np.nan, **self.snapshot()}]
            rows += self._train_steps(range(start + 1, start + steps + 1), optimizer, schedule, batch_size, track_every,
                                      progress)
        self.model.eval()
        self.history = pd.concat([self.history, pd.DataFrame(rows)], ignore_index=True)
        return self.history

    def _train_steps(self, steps: range, optimizer, schedule, batch_size: int, track_every: int,
                     progress: bool) -> list[dict]:
        rows, losses = [], []
        for step in tqdm(steps, desc="MLM pre-training", unit="step", disable=not progress):
            words = self.language.sample(batch_size, self.length, self._rng)
            inputs, labels = mask_tokens(self.token_ids(words), self.config.vocab_size, generator=self._generator)
            loss = self.model(input_ids=inputs, labels=labels).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
            if step % track_every == 0 or step == steps[-1]:
                rows.append({"step": step, "loss": float(np.mean(losses)), **self.snapshot()})
                losses.clear()
        return rows

    @torch.no_grad()
    def logit_parts(self, input_ids: torch.Tensor, positions: torch.Tensor):
        """At one position per row: (last hidden state, h_c, W, b) with logits = h_c Wᵀ + b.

        h_c is the MLM head's transform of the last hidden state (dense, GELU, LayerNorm);
        W is the word-embedding matrix, shared by input and output; b the output bias.
        """
        hidden = self.model.bert(input_ids=input_ids).last_hidden_state
        hidden = hidden[torch.arange(len(positions)), positions]
        h_c = self.model.cls.predictions.transform(hidden)
        decoder = self.model.get_output_embeddings()
        return hidden, h_c, decoder.weight.detach(), decoder.bias.detach()

    def word_logits(self, input_ids: torch.Tensor, positions: torch.Tensor) -> np.ndarray:
        """h_cᵀw_x + b_x for the language's words only (special tokens dropped): (rows, vocab)."""
        _, h_c, weight, bias = self.logit_parts(input_ids, positions)
        return (h_c @ weight.T + bias)[:, FIRST_WORD_ID:].numpy()

    @torch.no_grad()
    def snapshot(self) -> dict[str, float]:
        """Anisotropy and fit, measured on fixed probe sentences.

        ``context_mean_cosine``: mean cosine between the last hidden states at the [MASK] of two
        different contexts (one hidden word each); ``sentence_mean_cosine``: the same for
        mean-pooled last-layer vectors of whole, unmasked sentences; ``norm_logfreq_pearson`` and
        ``bias_logfreq_pearson``: Pearson r of ‖w_x‖ and of the output bias b_x with log p(x);
        ``kl_to_truth``: mean KL(p(·|c) ‖ model) in nats over the [MASK] contexts.
        """
        input_ids, truth, words = self._probe
        positions = torch.as_tensor(np.argmax(words == HIDDEN, axis=1) + 1)
        hidden, h_c, weight, bias = self.logit_parts(input_ids, positions)
        sentences = self.model.bert(input_ids=self._probe_sentences).last_hidden_state[:, 1:-1].mean(dim=1)
        log_p = np.log(self.language.unigram())
        exact = truth[np.arange(len(words)), positions.numpy() - 1]
        model_log_q = torch.log_softmax((h_c @ weight.T + bias)[:, FIRST_WORD_ID:], dim=-1).numpy()
        return {
            "context_mean_cosine": mean_cosine(hidden),
            "sentence_mean_cosine": mean_cosine(sentences),
            "norm_logfreq_pearson": _pearson(weight[FIRST_WORD_ID:].norm(dim=-1).numpy(), log_p),
            "bias_logfreq_pearson": _pearson(bias[FIRST_WORD_ID:].numpy(), log_p),
            "kl_to_truth": float(np.mean(np.sum(exact * (np.log(exact) - model_log_q), axis=1))),
        }

    def top_k(self, sentence: str, k: int = 5) -> pd.DataFrame:
        """Top-k words at each [MASK] of a toy sentence, with the model's and the exact probability."""
        words = np.array([self.language.encode(sentence)])
        if not (words == HIDDEN).any():
            raise ValueError(f"{sentence!r} has no [MASK]: write [MASK] where a word is missing, e.g. 'the cat [MASK] fish'.")
        if words.shape[1] > self.length:
            raise ValueError(f"The tiny model reads at most {self.length} words; {sentence!r} has {words.shape[1]}.")
        mask_positions = np.flatnonzero(words[0] == HIDDEN)
        input_ids = self.token_ids(words).expand(len(mask_positions), -1)
        logits = self.word_logits(input_ids, torch.as_tensor(mask_positions + 1))
        exact = self.language.conditional(words)[0, mask_positions]
        return top_k_table(logits, list(self.language.words), k, mask_positions, exact=exact)


def context_similarity(tiny: TinyMlm, n_contexts: int = 150, seed: int = 321) -> pd.DataFrame:
    """For pairs of [MASK] contexts: cos(h, h') of the last hidden states beside the exact similarity
    of what the contexts predict, cos of their log p(·|c) rows centered per context (= PMI rows up to a constant).
    """
    rng = np.random.default_rng(seed)
    words = _one_hidden_word_each(tiny.language.sample(n_contexts, tiny.length, rng), rng)
    positions = np.argmax(words == HIDDEN, axis=1)
    hidden = tiny.logit_parts(tiny.token_ids(words), torch.as_tensor(positions + 1))[0]
    log_p = np.log(tiny.language.conditional(words)[np.arange(n_contexts), positions])
    profiles = torch.as_tensor(log_p - log_p.mean(axis=1, keepdims=True))
    first, second = np.triu_indices(n_contexts, k=1)
    cosine = torch.nn.functional.cosine_similarity
    return pd.DataFrame({
        "context_a": [tiny.language.decode(words[i]) for i in first],
        "context_b": [tiny.language.decode(words[j]) for j in second],
        "model_cosine": cosine(hidden[first], hidden[second]).numpy(),
        "exact_profile_cosine": cosine(profiles[first], profiles[second]).numpy(),
    })


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson r, or NaN when one side is constant (the output bias starts at zero)."""
    if np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _one_hidden_word_each(words: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    hidden = words.copy()
    hidden[np.arange(len(words)), rng.integers(0, words.shape[1], len(words))] = HIDDEN
    return hidden


def logit_fit(tiny: TinyMlm, n_contexts: int = 400, seed: int = 123) -> pd.DataFrame:
    """One row per (context, word): the logit h_cᵀw_x + b_x beside the exact PMI(x, c) and log p(x).

    Each context is a fresh window with one hidden word. ``*_centered`` columns subtract the
    mean over the vocabulary within each context: the softmax ignores a constant per context,
    so logit ≈ PMI(x, c) + log p(x) can only hold up to that constant.
    """
    rng = np.random.default_rng(seed)
    words = _one_hidden_word_each(tiny.language.sample(n_contexts, tiny.length, rng), rng)
    positions = np.argmax(words == HIDDEN, axis=1)
    logits = tiny.word_logits(tiny.token_ids(words), torch.as_tensor(positions + 1))
    pmi = tiny.language.pmi(words)[np.arange(n_contexts), positions]
    log_p = np.broadcast_to(np.log(tiny.language.unigram()), pmi.shape)
    vocab = tiny.language.vocab_size
    table = pd.DataFrame({
        "context": np.repeat(np.arange(n_contexts), vocab),
        "sentence": np.repeat([tiny.language.decode(row) for row in words], vocab),
        "word": np.tile(tiny.language.words, n_contexts),
        "word_class": np.tile(tiny.language.word_classes, n_contexts),
        "logit": logits.ravel(), "pmi": pmi.ravel(), "log_p": log_p.ravel(),
    })
    table["pmi_plus_log_p"] = table["pmi"] + table["log_p"]
    for column in ("logit", "pmi", "log_p", "pmi_plus_log_p"):
        table[f"{column}_centered"] = table[column] - table.groupby("context")[column].transform("mean")
    return table


def fit_correlations(table: pd.DataFrame) -> pd.DataFrame:
    """Pearson and Spearman correlation of the centered logits with three targets (see :func:`logit_fit`)."""
    from scipy.stats import pearsonr, spearmanr

    targets = {"PMI(x, c) + log p(x)": "pmi_plus_log_p_centered", "PMI(x, c) alone": "pmi_centered",
               "log p(x) alone": "log_p_centered"}
    rows = [{"target": name, "pearson": pearsonr(table["logit_centered"], table[column])[0],
             "spearman": spearmanr(table["logit_centered"], table[column])[0]} for name, column in targets.items()]
    return pd.DataFrame(rows).set_index("target")
