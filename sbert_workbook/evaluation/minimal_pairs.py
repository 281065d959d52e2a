"""Minimal pairs: a sentence, a true paraphrase of it, and the sentence changed in one place that changes its meaning
(``09_what_a_score_means.ipynb`` §4).

CheckList (Ribeiro et al., 2020) tests a model's behaviour with inputs made from templates and perturbations; a
*directional expectation* test changes an input in a way that should move the prediction one way. Here the expectation
is that a similarity score ranks a sentence's paraphrase above the same sentence with its meaning changed. Each
perturbation is a rule that applies to some sentences and not to others (it returns None there):

- **negation**: ``not`` after the first auxiliary (``A man is playing`` → ``A man is not playing``);
- **swap**: subject and object of ``A <noun> is <verb>ing a <noun>`` exchanged (``a man is feeding a dog`` →
  ``a dog is feeding a man``);
- **number**: the first number changed (``two`` → ``three``, ``2013`` → ``2014``);
- **antonym**: the first word of a small antonym list replaced by its opposite (``big`` → ``small``).

The sentences and their paraphrases are shipped pairs an annotator scored as (nearly) equivalent.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

AUXILIARIES = ("is", "are", "was", "were", "can", "will")
NEGATIONS = re.compile(r"\b(not|no|never|nobody|nothing|none|n't)\b|n't\b", re.I)
NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
#: Pairs of opposites; a word in two pairs keeps the first (small: big).
ANTONYM_PAIRS = (
    ("big", "small"), ("large", "small"), ("young", "old"), ("tall", "short"), ("hot", "cold"), ("fast", "slow"),
    ("happy", "sad"), ("open", "closed"), ("inside", "outside"), ("black", "white"), ("wet", "dry"),
    ("full", "empty"), ("high", "low"), ("day", "night"), ("early", "late"), ("rich", "poor"), ("strong", "weak"),
    ("good", "bad"), ("before", "after"), ("above", "below"), ("rises", "falls"), ("increase", "decrease"),
    ("wins", "loses"), ("won", "lost"), ("entering", "leaving"), ("sitting", "standing"), ("pushing", "pulling"),
    ("opening", "closing"), ("buying", "selling"), ("top", "bottom"), ("first", "last"), ("clean", "dirty"),
    ("thin", "thick"), ("quiet", "loud"), ("near", "far"), ("asleep", "awake"), ("dead", "alive"))
ANTONYMS: dict[str, str] = {}
for _a, _b in ANTONYM_PAIRS:
    ANTONYMS.setdefault(_a, _b)
    ANTONYMS.setdefault(_b, _a)
SWAP = re.compile(r"^(?P<d1>A|An|The) (?P<n1>[a-z]+) (?P<aux>is|was) (?P<verb>[a-z]+ing) (?P<d2>a|an|the) "
                  r"(?P<n2>[a-z]+)(?P<rest>\.?)$")


def _match_case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def _replaced(sentence: str, start: int, end: int, new: str) -> str:
    """``sentence`` with ``sentence[start:end]`` made ``new``, and an article right before it made to fit (a / an)."""
    before = sentence[:start]
    article = re.search(r"\b(a|an|A|An) $", before)
    if article:
        fitting = "an" if new[:1].lower() in "aeiou" else "a"
        before = before[:article.start()] + _match_case(fitting, article.group(1)) + " "
    return before + new + sentence[end:]


def negation(sentence: str) -> str | None:
    """``not`` after the first auxiliary; None for a sentence with no auxiliary or already negated."""
    if NEGATIONS.search(sentence):
        return None
    words = sentence.split(" ")
    for i, word in enumerate(words[:-1]):
        if word.lower() in AUXILIARIES:
            return " ".join(words[:i + 1] + ["not"] + words[i + 1:])
    return None


def swap(sentence: str) -> str | None:
    """Subject and object of ``A <noun> is <verb>ing a <noun>`` exchanged; None for any other shape."""
    found = SWAP.match(sentence.strip())
    if found is None or found["n1"] == found["n2"]:
        return None
    d1, d2 = found["d2"].capitalize(), found["d1"].lower()
    return f"{d1} {found['n2']} {found['aux']} {found['verb']} {d2} {found['n1']}{found['rest']}"


def number(sentence: str) -> str | None:
    """The first number word (two to ten) made the next one (ten: nine), or the first whole number made one more."""
    for match in re.finditer(r"\b(\w+)\b", sentence):
        word = match.group(1)
        if word.lower() in NUMBER_WORDS:
            position = NUMBER_WORDS.index(word.lower())
            new = NUMBER_WORDS[position + 1] if position + 1 < len(NUMBER_WORDS) else NUMBER_WORDS[position - 1]
            return _replaced(sentence, match.start(), match.end(), _match_case(new, word))
        if word.isdigit():
            return _replaced(sentence, match.start(), match.end(), str(int(word) + 1))
    return None


def antonym(sentence: str) -> str | None:
    """The first word of :data:`ANTONYMS` replaced by its opposite; None when no word is in it."""
    for match in re.finditer(r"\b([A-Za-z]+)\b", sentence):
        word = match.group(1)
        if word.lower() in ANTONYMS:
            return _replaced(sentence, match.start(), match.end(), _match_case(ANTONYMS[word.lower()], word))
    return None


PERTURBATIONS: dict[str, Callable[[str], str | None]] = {"negation": negation, "swap": swap, "number": number,
                                                          "antonym": antonym}


@dataclass(frozen=True)
class MinimalPair:
    """A sentence, a paraphrase an annotator scored as equivalent, and the sentence perturbed."""

    sentence: str
    paraphrase: str
    perturbed: str
    source: str


def minimal_pairs(pairs: Sequence[tuple[str, str, str]], perturbation: str, limit: int | None = None,
                  seed: int = 0) -> list[MinimalPair]:
    """Every (sentence, paraphrase, source) the perturbation applies to (either way round, the first sentence tried
    first; each sentence once), or ``limit`` of them drawn with ``seed``, in their order."""
    if perturbation not in PERTURBATIONS:
        raise KeyError(f"No perturbation {perturbation!r}; there are {', '.join(PERTURBATIONS)}.")
    change, found, seen = PERTURBATIONS[perturbation], [], set()
    for first, second, source in pairs:
        for sentence, paraphrase in ((first, second), (second, first)):
            changed = change(sentence)
            if changed is not None and changed != sentence and sentence not in seen and changed != paraphrase:
                found.append(MinimalPair(sentence, paraphrase, changed, source))
                seen.add(sentence)
                break
    if limit is not None and limit < len(found):
        keep = np.sort(np.random.default_rng(seed).choice(len(found), size=limit, replace=False))
        found = [found[i] for i in keep]
    return found


def fooled(perturbed_scores, paraphrase_scores) -> np.ndarray:
    """1 where the perturbed pair scores above the paraphrase (the score ranked the changed meaning higher), else 0."""
    perturbed_scores, paraphrase_scores = np.asarray(perturbed_scores, float), np.asarray(paraphrase_scores, float)
    if perturbed_scores.shape != paraphrase_scores.shape:
        raise ValueError(f"One perturbed and one paraphrase score per minimal pair; got {perturbed_scores.shape} and "
                         f"{paraphrase_scores.shape}.")
    return (perturbed_scores > paraphrase_scores).astype(float)
