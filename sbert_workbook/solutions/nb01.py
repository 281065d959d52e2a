"""Reference solutions for ``01_mlm_to_similarity.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.teaching.exercises import solution
from sbert_workbook.mlm.toy_language import HIDDEN


def _neg_log_softmax(logits, word: int) -> float:
    values = np.asarray(logits.detach() if hasattr(logits, "detach") else logits, dtype=float)
    return float(np.log(np.exp(values).sum()) - values[word])


@solution(wrong={
    "wrong sign: log p instead of −log p": lambda logits: -_neg_log_softmax(logits, 2),
    "missing normalisation: −logit of word 2, without the log-sum-exp": lambda logits: -float(logits[2]),
    "off by one: word 2 counted from 1 (index 1)": lambda logits: _neg_log_softmax(logits, 1),
})
def ex01_1(logits) -> float:
    """−log p(word 2 | c) = log Σ_x exp(logit_x) − logit_2."""
    return _neg_log_softmax(logits, 2)


def _fox_context(language, score) -> str:
    """The context 'a [MASK] b' maximising ``score(T, a, b, fox)`` over all pairs of words (a, b)."""
    T, fox, n = language.transition, language.index("fox"), language.vocab_size
    scores = np.array([[score(T, a, b, fox) for b in range(n)] for a in range(n)])
    a, b = np.unravel_index(np.argmax(scores), scores.shape)
    return f"{language.words[a]} [MASK] {language.words[b]}"


def _pmi_by_hand(T, a, b, fox):
    return np.log(T[a, fox] * T[fox, b] / (T[a, :] @ T[:, b]))  # − log p(fox) is the same for every context


@solution(wrong={
    "each neighbour maximised on its own (best left word, then best right word)": lambda language: (
        f"{language.words[np.argmax(language.transition[:, language.index('fox')])]} [MASK] "
        f"{language.words[np.argmax(language.transition[language.index('fox')])]}"),
    "transposed T (fox → a and b → fox)": lambda language: _fox_context(
        language, lambda T, a, b, fox: np.log(T[fox, a] * T[b, fox] / (T[:, a] @ T[b, :]))),
    "not normalised: T[a, fox] T[fox, b] without dividing by p(b | a, two steps)": lambda language: _fox_context(
        language, lambda T, a, b, fox: T[a, fox] * T[fox, b]),
})
def ex01_2(language) -> str:
    """The context 'a [MASK] b' with the highest PMI(fox, c): only the two neighbours matter in a Markov chain."""
    return _fox_context(language, _pmi_by_hand)


def _cat_fish(language, normalise: bool = True, transpose: bool = False, right: bool = True) -> np.ndarray:
    T = language.transition.T if transpose else language.transition
    cat, fish = language.index("cat"), language.index("fish")
    product = T[cat, :] * (T[:, fish] if right else 1.0)
    return product / product.sum() if normalise else product


@solution(wrong={
    "not normalised (forgot to divide by the sum)": lambda language: _cat_fish(language, normalise=False),
    "wrong axis: T[x, cat] T[fish, x] (the chain read backwards)": lambda language: _cat_fish(language, transpose=True),
    "left neighbour only: T[cat, x] normalised, fish ignored": lambda language: _cat_fish(language, right=False),
})
def ex01_3(language) -> np.ndarray:
    """p(x | cat, _, fish) ∝ T[cat, x] T[x, fish], normalised over x."""
    return _cat_fish(language)


@solution(wrong={
    "the picking probability 0.15 (not all picked tokens become [MASK])": lambda: 0.15,
    "the 80 % alone (forgot that only 15 % are picked)": lambda: 0.8,
    "counted the random replacements too: 0.15 × 0.9": lambda: 0.15 * 0.9,
})
def ex01_4() -> float:
    """Fraction of word tokens that become [MASK]: picked (0.15) × replaced by [MASK] (0.8)."""
    return 0.15 * 0.8


@solution(wrong={
    "the centered correlation (the table's value), not the uncentered one": lambda fit: float(
        np.corrcoef(fit["logit_centered"], fit["pmi_plus_log_p_centered"])[0, 1]),
    "Spearman (ranks) instead of Pearson": lambda fit: float(fit["logit"].corr(fit["pmi_plus_log_p"], method="spearman")),
    "against PMI alone, without log p(x)": lambda fit: float(np.corrcoef(fit["logit"], fit["pmi"])[0, 1]),
})
def ex01_5(fit) -> float:
    """Pearson r between the raw logits and PMI(x, c) + log p(x), without centering per context."""
    return float(np.corrcoef(fit["logit"], fit["pmi_plus_log_p"])[0, 1])


DISCUSSION = {
    "ex01_2": "With one hidden word between a and b, PMI(fox, c) = log T[a, fox] T[fox, b] / (Σ_x T[a, x] T[x, b]) − "
              "log p(fox). It is high where fox explains the pair (a, b) better than almost any other word: 'sits' "
              "follows fox far more often than any other animal (T[fox, sits] ≈ 0.38, other animals < 0.08), and a "
              "left word that rarely leads to the other animals keeps the competitors out. The best context is not "
              "the best left word combined with the best right word: the denominator, how well every other x "
              "explains the same pair, decides, which is why 'old _ sits' loses to '. _ sits' and 'a _ sits'.",
    "ex01_5": "The uncentered r is lower (in our quick run, seed 0: about 0.83 against 0.92 centered). The softmax ignores a constant per context (λ_c), so nothing in the loss "
              "pins the level of a context's logits: each context gets its own offset, and those offsets are noise "
              "for a correlation taken over all contexts at once. Centering per context removes exactly that "
              "constant, which the equation leaves free.",
    "ex01_6": "With 4000 steps the fit to PMI + log p(x) tightens (higher centered r, lower KL), the context–"
              "context Spearman rises, the [MASK] contexts spread further apart, and the output bias keeps "
              "tracking log p(x); the word-norm–frequency correlation that appears early fades again in our runs. "
              "What stays: PMI + log p(x) beats PMI alone, and mean-pooled sentences stay more alike than contexts.",
    "ex01_7": "A d-dimensional h_c with a bias can only produce logit matrices (contexts × words) of rank ≤ d + 1, "
              "the softmax bottleneck of Yang et al. (2018). At d = 16 that is 17 < 22 words, so the exact "
              "log p(x | c) over 22 words cannot in general be matched in every context: expect the fit to drop "
              "and the KL to stay higher. How much is for the run to say; words of one class behave alike (7 "
              "classes), which may keep the loss small.",
    "ex01_8": "With the bias frozen at zero, the frequency term must be carried by h_c^T w_x itself: a direction "
              "shared by all h_c whose dot product with w_x tracks log p(x), or the lengths ‖w_x‖. Expect the "
              "word-norm–log p(x) correlation to stay high instead of fading, and the contexts' mean cosine to "
              "rise (the shared direction): frequency then shapes the geometry, as Li et al. hypothesise for BERT.",
}
