"""Lesson 01, from masked language modelling to similarity: its set-up, experiments and reports
(``01_mlm_to_similarity.ipynb``).

The notebook's cells compute the lesson (the softmax loss by hand, the toy language's exact statistics, the tiny
MLM's training and its logits against PMI + log p(x)); the calls here set it up, ask the predict questions and
report each result as a table with its caption, the sentences its numbers make, and its verdict.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.teaching.predict import predict_question, predict_range
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson
from sbert_workbook.mlm import plots, toy_language
from sbert_workbook.mlm.tiny import FIRST_WORD_ID, MASK_ID, SPECIAL_TOKENS, TinyMlm, fit_correlations
from sbert_workbook.mlm.toy_language import MarkovLanguage

NOTEBOOK = "01_mlm_to_similarity"
#: The context §3 and §7 read ("the cat ___ fish"), and the predict question's ranges for the fit of §5.
CONTEXT = "the cat [MASK] fish . the dog"
FIT_RANGES = {"loosely (Pearson below 0.5)": 0.5, "moderately (0.5 to 0.8)": 0.8, "closely (0.8 to 0.95)": 0.95,
              "almost exactly (above 0.95)": np.inf}


@dataclass
class Lesson01(Lesson):
    language: MarkovLanguage | None = None

    @property
    def toy(self) -> str:
        """The provenance of every exact table: the toy language itself."""
        return f"none: exact probabilities of the toy language (seed {self.seed}, {self.language.vocab_size} words)"


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson01:
    """Set the lesson up and make the toy language (22 words, a Markov chain whose statistics are exact)."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    return Lesson01(**vars(lesson), language=toy_language.toy_language(seed=seed))


def fox_pmi_in(language: MarkovLanguage):
    """Exercise 2's measure: the PMI of "fox" at the hidden word of a context such as "the [MASK] runs"."""
    fox = language.index("fox")
    return lambda context: language.pmi([language.encode(context)])[0, language.encode(context).index(toy_language.HIDDEN), fox]


def tiny_described(lesson: Lesson01, tiny: TinyMlm) -> str:
    """'tiny MLM trained here (2 layers, hidden 64, 400 steps, seed 0)': the model column of §5's tables."""
    return (f"tiny MLM trained here ({tiny.config.num_hidden_layers} layers, hidden {tiny.config.hidden_size}, "
            f"{lesson.sizes.TRAIN_STEPS} steps, seed {lesson.seed})")


def unigram_report(lesson: Lesson01) -> Report:
    """§3: the exact unigram probabilities p(x), most frequent first."""
    language = lesson.language
    table = pd.DataFrame({"word": language.words, "class": language.word_classes, "p(x)": language.unigram()})
    table = with_provenance(table.sort_values("p(x)", ascending=False).head(8).round(4), model=lesson.toy, pooling="n/a",
                            aggregation="n/a (exact, not estimated)",
                            split="none: the stationary distribution of the transition matrix, no sample")
    return Report("Exact unigram probabilities p(x) of the toy language (stationary distribution), most frequent first:",
                  table)


def exact_report(lesson: Lesson01, context: str, p_x_given_c: np.ndarray, pmi: np.ndarray) -> Report:
    """§3: p(x | c), PMI(x, c) and log p(x) for one context, the six likeliest words."""
    language = lesson.language
    table = pd.DataFrame({"word": language.words, "p(x | c)": p_x_given_c, "PMI(x, c)": pmi,
                          "log p(x)": np.log(language.unigram())})
    table = with_provenance(table.sort_values("p(x | c)", ascending=False).head(6).round(3), model=lesson.toy,
                            pooling="n/a", aggregation="n/a (exact, by forward-backward)", split=f"one context: {context!r}")
    return Report(f"Exact statistics for the context {context!r} (toy language, seed {lesson.seed}), top 6:", table)


def masking_report(tiny: TinyMlm, originals, inputs, labels) -> Report:
    """§4: each demo sentence, what the model reads after masking, and the targets the loss sees."""
    vocabulary = list(SPECIAL_TOKENS) + list(tiny.language.words)
    lines = [tiny.describe()]
    for original, masked, label in zip(originals, inputs, labels):
        lines += ["original: " + " ".join(vocabulary[i] for i in original),
                  "input:    " + " ".join(vocabulary[i] for i in masked),
                  "targets:  " + " ".join(vocabulary[i] if i >= 0 else "·" for i in label) + "\n"]
    return Report(*lines)


def training_report(lesson: Lesson01, history: pd.DataFrame, seconds: float) -> Report:
    """§4: how long training took and the loss and KL curves."""
    steps = lesson.sizes.TRAIN_STEPS
    return Report(f"trained {steps} steps in {seconds:.0f} s on {lesson.device.type} (the tiny model always trains on the CPU)",
                  plots.mlm_training_figure(history, title=f"Pre-training the tiny MLM ({steps} steps, batch 128)"))


def predict_fit(lesson: Lesson01, fit: pd.DataFrame):
    """§5's predict question: how closely will the centered logits track PMI + log p(x)?"""
    fit_r = fit_correlations(fit).loc["PMI(x, c) + log p(x)", "pearson"]
    return predict_range(
        f"After {lesson.sizes.TRAIN_STEPS} training steps, how closely will the tiny MLM's centered logits h_cᵀw_x + b_x "
        "track the exact PMI(x, c) + log p(x) over all (context, word) rows?",
        FIT_RANGES, fit_r,
        "At the optimum of the loss the two sides are equal up to λ_c, which the centering removes, so a perfect model "
        "would fit exactly. A real one gets there only as far as its training went: the KL divergence in the training "
        "figure above had not reached 0. The next cell prints the fit beside PMI alone and log p(x) alone.")


def fit_report(lesson: Lesson01, tiny: TinyMlm, fit: pd.DataFrame) -> Report:
    """§5: how closely the centered logits follow each exact target (the verdict), as a table and two figures."""
    correlations = fit_correlations(fit)
    best = correlations["pearson"].idxmax()
    table = with_provenance(correlations.round(3), model=tiny_described(lesson, tiny),
                            pooling="none: logits at the [MASK] position",
                            aggregation=f"one correlation over all {len(fit)} (context, word) rows, logits centered per context",
                            split=f"{lesson.sizes.FIT_CONTEXTS} fresh toy-language contexts (seed {lesson.seed + 100})")
    return Report(f"Tiny MLM after {lesson.sizes.TRAIN_STEPS} steps; {lesson.sizes.FIT_CONTEXTS} contexts × "
                  f"{lesson.language.vocab_size} words, centered per context:", table,
                  f"The centered logits follow {best} most closely: Pearson r {correlations.loc[best, 'pearson']:.3f}.",
                  plots.logit_scatter_figure(fit, correlations),
                  plots.correlation_figure(correlations, title=f"Centered logits vs exact targets ({lesson.sizes.TRAIN_STEPS} steps)"),
                  verdicts=verdict(NOTEBOOK, "the target the centered logits follow most closely", best))


def bias_report(lesson: Lesson01, tiny: TinyMlm) -> str:
    """§5: the Pearson r between the output bias b_x and log p(x)."""
    bias = tiny.model.get_output_embeddings().bias.detach()[FIRST_WORD_ID:].numpy()
    r = np.corrcoef(bias, np.log(lesson.language.unigram()))[0, 1]
    return f"Pearson r between the output bias b_x and log p(x): {r:.3f}"


def context_similarity_report(lesson: Lesson01, pairs: pd.DataFrame) -> Report:
    """§5: do contexts that predict alike get similar hidden states? Spearman over every pair of contexts."""
    from scipy.stats import spearmanr

    rho = spearmanr(pairs["exact_profile_cosine"], pairs["model_cosine"]).statistic
    return Report(f"Tiny MLM after {lesson.sizes.TRAIN_STEPS} steps, {len(pairs)} pairs of [MASK] contexts: "
                  f"Spearman(model cosine, exact profile cosine) = {rho:.3f}", plots.context_similarity_figure(pairs))


def geometry_report(lesson: Lesson01, tiny: TinyMlm, history: pd.DataFrame) -> Report:
    """§6: the geometry on fixed probe inputs before and after training, and what this run's norms did."""
    first, last = history.iloc[0], history.iloc[-1]
    summary = pd.DataFrame({"step 0": first, f"step {int(last['step'])}": last}).drop(["step", "loss"])
    summary = with_provenance(summary.round(3), model=tiny_described(lesson, tiny),
                              pooling="per row: last hidden state at [MASK] (context_*), mean over tokens (sentence_*), "
                                      "none (word vectors and bias)",
                              aggregation="mean over all pairs (cosines), Pearson r over the vocabulary, mean KL over contexts",
                              split="the tiny MLM's fixed probe contexts and sentences (TinyMlm.snapshot), drawn from the toy language")
    norm_r = last["norm_logfreq_pearson"]
    norms = ("nearly unrelated to frequency" if abs(norm_r) < 0.3 else
             "longer for frequent words" if norm_r > 0 else "shorter for frequent words")
    said = (f"In this run the word-embedding norms end {norms} (r = {norm_r:+.2f}, largest during training "
            f"{history['norm_logfreq_pearson'].max():+.2f}); [MASK] contexts went from mean cosine "
            f"{first['context_mean_cosine']:.2f} to {last['context_mean_cosine']:.2f}, mean-pooled sentences from "
            f"{first['sentence_mean_cosine']:.2f} to {last['sentence_mean_cosine']:.2f}.")
    return Report(f"Geometry of the tiny MLM (hidden {lesson.sizes.HIDDEN_SIZE}) on fixed probe inputs, before and after "
                  "training:", summary, said, plots.anisotropy_figure(history))


def real_head_or_none(lesson: Lesson01):
    """§7: the MLM head of MODEL when it has a real one (bert-base-uncased), else None, with a line saying which."""
    from sbert_workbook.encoding.resolve import ModelNotFoundError
    from sbert_workbook.mlm.head import MissingMlmHeadError, load_mlm_head

    try:
        head = load_mlm_head(lesson.model, device=lesson.device)
        print("Using", head.describe())
        return head
    except (MissingMlmHeadError, ModelNotFoundError) as why:
        print(f"No real MLM head here: {why}\n\n→ The widget below uses the tiny model you just trained, on the toy "
              "language, and shows the exact p(x | c) beside its predictions. With bert-base-uncased available it shows "
              "the real model instead.")
        return None


def predict_top_word(lesson: Lesson01, head, tiny: TinyMlm):
    """§7's predict question: the model's first choice at the [MASK] (the real head's, or the tiny model's)."""
    if head is not None:
        from sbert_workbook.mlm.head import top_predictions

        sentence, options = "The capital of France is [MASK].", ["paris", "another word"]
        top = top_predictions(head, sentence, 1)["token"].iloc[0].strip("Ġ▁ ").lower()
        return predict_question(
            f"{head.resolved.model_id} reads “{sentence}”. Will it rank “paris” first at the [MASK]?", options,
            options[0 if top == "paris" else 1],
            "Pre-training text such as BERT's (BooksCorpus and English Wikipedia) states facts like this one, and filling "
            "in such blanks is exactly what the MLM head was trained for. The next cell prints its top predictions.")
    language = lesson.language
    at = language.encode(CONTEXT).index(toy_language.HIDDEN)
    exact_best = int(language.conditional([language.encode(CONTEXT)])[0, at].argmax())
    model_best = language.index(tiny.top_k(CONTEXT, 1)["token"].iloc[0])
    options = [f"“{language.words[exact_best]}”, the exact top word of §3",
               f"another word of the class {language.word_classes[exact_best]}", "a word of another class"]
    same_class = language.word_classes[model_best] == language.word_classes[exact_best]
    return predict_question(
        f"The tiny MLM you trained reads “{CONTEXT}”. Which word will it rank first at the [MASK]?", options,
        options[0 if model_best == exact_best else 1 if same_class else 2],
        "Its loss is the cross-entropy to exactly this p(x | c), and §5 measured how closely its logits track "
        "log p(x | c). Where the exact probabilities of the top words lie close together, even a good fit can swap them: "
        "the next cell prints the model's probabilities beside the exact ones.")


def top_k_explorer(lesson: Lesson01, head, tiny: TinyMlm):
    """§7: the top-k table for the default sentence and a widget to type your own (the real head, else the tiny MLM)."""
    import ipywidgets as widgets
    from IPython.display import display

    from sbert_workbook.teaching.widgets import interactive_figure
    from sbert_workbook.mlm.head import top_predictions

    if head is not None:
        sentence, predict, name = "The capital of France is [MASK].", lambda s, k: top_predictions(head, s, k), head.resolved.model_id
    else:
        sentence, predict = CONTEXT, lambda s, k: tiny.top_k(s, k)
        name = f"tiny MLM ({lesson.sizes.TRAIN_STEPS} steps; toy words only: {' '.join(lesson.language.words)})"
    print(f"Top predictions of {name} for {sentence!r}:")
    display(with_provenance(predict(sentence, 5).round(4), model=head if head is not None else tiny_described(lesson, tiny),
                            pooling="none: the MLM head at the [MASK]", aggregation="n/a (one sentence)",
                            split=f"one sentence: {sentence!r}"))
    return interactive_figure(
        lambda sentence, k: plots.top_k_figure(predict(sentence, k), title=f"{name}: top {k} at the first [MASK]"),
        sentence=widgets.Text(value=sentence, description="sentence", layout=widgets.Layout(width="420px")),
        k=widgets.IntSlider(value=5, min=1, max=15, description="top k"))


def claims_report(lesson: Lesson01, fit: pd.DataFrame) -> Report:
    """The final self-check: the notebook's two claims about the fit, measured in this run."""
    correlations = fit_correlations(fit)
    r = correlations.loc["PMI(x, c) + log p(x)", "pearson"]
    better = r > correlations.loc["PMI(x, c) alone", "pearson"]
    return Report(f"{'✓' if r > 0.8 else '✗'} logits track PMI + log p(x): Pearson {r:.3f} (tiny MLM, "
                  f"{lesson.sizes.TRAIN_STEPS} steps)",
                  f"{'✓' if better else '✗'} the log p(x) term matters: PMI + log p(x) fits better than PMI alone")
