"""Lesson 09's set-up: the labelled pairs every section reads and every model's vectors of them, encoded once
(``09_what_a_score_means.ipynb``).

Two labelled tasks, each with a split to choose on and a split to test on: **STS-B** (a pair is related when its
annotators scored it 4 or more of 5, "mostly equivalent"; dev to choose, test to test) and **SNLI** (a premise with its
entailed hypothesis is related, with its contradicting one unrelated; the dev set's premises halved at random).
§4's minimal pairs come from STS-B dev and test and SICK test pairs scored 4.5 or more (SICK's also labelled
entailment). The models: the embedded all-MiniLM-L6-v2, trained for similarity, and ``MODEL`` when it is another one
(online, ``auto`` is raw bert-base-uncased; the test suite's stand-in of its shape is named as the stand-in it is).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from sbert_workbook.calibration.calibrators import Whitening
from sbert_workbook.data.loaders import load_nli, load_sts
from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.geometry import supported_dimensions
from sbert_workbook.evaluation.minimal_pairs import PERTURBATIONS, MinimalPair, minimal_pairs
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "09_what_a_score_means"
#: STS-B's "mostly equivalent": a pair scored this or more is related (03 §6's paraphrase queries).
RELATED_SCORE = 4.0
#: §1's unrelated STS-B pairs: scored below this ("on different topics").
UNRELATED_SCORE = 1.0
#: §4's paraphrases: pairs scored this or more.
PARAPHRASE_SCORE = 4.5
EMBEDDED_NAME = "all-MiniLM-L6-v2 (embedded)"


@dataclass(frozen=True)
class Triples:
    """SNLI premises, each with its entailed and its contradicting hypothesis."""

    premises: list[str]
    entailments: list[str]
    contradictions: list[str]

    def __len__(self) -> int:
        return len(self.premises)

    def binary(self) -> tuple[list[str], list[str], np.ndarray]:
        """(first sentences, second sentences, labels): every entailment pair (1), then every contradiction pair (0)."""
        return (self.premises * 2, self.entailments + self.contradictions,
                np.r_[np.ones(len(self), int), np.zeros(len(self), int)])


@dataclass
class ModelVectors:
    """One model's vectors of every sentence the lesson reads, and its whitened vectors (05's whitening, fitted on the
    choosing splits' sentences)."""

    name: str
    kind: str
    described: str
    pooling: str
    row: dict[str, int]
    vectors: np.ndarray
    whitened: np.ndarray
    whitening: str

    def cosines(self, first, second, whitened: bool = False) -> np.ndarray:
        table = self.whitened if whitened else self.vectors
        u, v = table[[self.row[s] for s in first]], table[[self.row[s] for s in second]]
        return (np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))).astype(np.float32)


@dataclass
class Lesson09(Lesson):
    stsb: dict[str, StsData] = field(default_factory=dict)  # {"dev": ..., "test": ...}
    snli: dict[str, Triples] = field(default_factory=dict)  # {"dev": ..., "test": ...}: the premises halved
    minimal: dict[str, list[MinimalPair]] = field(default_factory=dict)
    models: dict[str, ModelVectors] = field(default_factory=dict)  # the embedded model first

    @property
    def embedded(self) -> ModelVectors:
        return self.models[EMBEDDED_NAME]

    @property
    def split(self) -> str:
        return (f"STS-B dev {len(self.stsb['dev'])} and test {len(self.stsb['test'])} pairs; SNLI dev premises halved "
                f"(seed {self.seed}): {len(self.snli['dev'])} to choose on, {len(self.snli['test'])} to test on")


def snli_triples(premises: int | None, seed: int) -> dict[str, Triples]:
    """SNLI dev premises that have an entailed and a contradicting hypothesis (the first of each), ``premises`` of them
    drawn with ``seed``, halved: ``{"dev": ..., "test": ...}``."""
    data = load_nli("snli")
    by_premise: dict[str, dict[str, str]] = {}
    for premise, hypothesis, label in zip(data.premises, data.hypotheses, data.labels):
        by_premise.setdefault(premise, {}).setdefault(label, hypothesis)
    found = [(p, h["entailment"], h["contradiction"]) for p, h in by_premise.items() if {"entailment", "contradiction"} <= set(h)]
    order = np.random.default_rng(seed).permutation(len(found))[:premises or len(found)]
    half = len(order) // 2
    return {split: Triples(*map(list, zip(*(found[i] for i in sorted(part)))))
            for split, part in (("dev", order[:half]), ("test", order[half:]))}


def paraphrase_pairs() -> list[tuple[str, str, str]]:
    """(sentence, paraphrase, source) of STS-B dev and test and SICK test pairs scored :data:`PARAPHRASE_SCORE` or more
    (SICK's also labelled entailment); none of them is in STS-B train, which §4's cross-encoder learns from."""
    found = []
    for split in ("dev", "test"):
        data = load_sts("stsb", split)
        found += [(a, b, f"STS-B {split}") for a, b, g in zip(data.sentences1, data.sentences2, data.scores)
                  if g >= PARAPHRASE_SCORE]
    sick, labels = load_sts("sickr", "test"), load_nli("sick_nli", "test")
    entailed = {(a, b) for a, b, label in zip(labels.premises, labels.hypotheses, labels.labels) if label == "entailment"}
    found += [(a, b, "SICK test") for a, b, g in zip(sick.sentences1, sick.sentences2, sick.scores)
              if g >= PARAPHRASE_SCORE and (a, b) in entailed]
    return found


def every_sentence(lesson: Lesson09) -> list[str]:
    """Each sentence any section scores, once, in order of first appearance."""
    parts = [s for data in lesson.stsb.values() for s in (*data.sentences1, *data.sentences2)]
    parts += [s for t in lesson.snli.values() for s in (*t.premises, *t.entailments, *t.contradictions)]
    parts += [s for pairs in lesson.minimal.values() for p in pairs for s in (p.sentence, p.paraphrase, p.perturbed)]
    return list(dict.fromkeys(parts))


def model_kind(encoder) -> tuple[str, str]:
    """(the name the lesson gives ``encoder``, what kind of model it is): a stand-in is named as one."""
    from sbert_workbook.environment.bert_base_standin import STANDIN_REVISION

    resolved = encoder.resolved
    if resolved.source == "embedded package":
        return EMBEDDED_NAME, "trained for similarity (about a billion pairs)"
    if resolved.revision == STANDIN_REVISION:
        return (f"{resolved.model_id} stand-in", f"{resolved.model_id}'s shape with random weights, written for offline "
                "runs: its numbers show how such a model runs here, not what the real one scores")
    if not encoder.modules.from_model:
        return f"{resolved.model_id} (raw)", "a raw transformer, no similarity training, mean-pooled"
    return resolved.model_id, "a sentence-transformers model"


def whiten(vectors: np.ndarray, fit_rows: list[int]) -> tuple[np.ndarray, str]:
    """05's whitening fitted on ``fit_rows`` and applied to every vector; where there are no more rows than
    dimensions, which whitening proper cannot invert, whitening-k to the directions those rows support
    (:func:`~sbert_workbook.evaluation.geometry.supported_dimensions`: half the rows)."""
    n, d = len(fit_rows), vectors.shape[1]
    k = None if n > d else supported_dimensions(vectors[fit_rows])
    calibrator = Whitening(k).fit(vectors[fit_rows])
    how = (f"whitening fitted on the {n} sentences of the choosing splits" if k is None else
           f"whitening-{k} (fewer sentences, {n}, than dimensions, {d}) fitted on the choosing splits' sentences")
    return calibrator.transform(vectors).numpy(), how


def encoded(name: str, lesson: Lesson09, sentences: list[str], fit_sentences: list[str]) -> ModelVectors:
    """Load ``name``, encode ``sentences`` once, let the model go, whiten."""
    from sbert_workbook.encoding.encoder import load_encoder
    from sbert_workbook.heap import return_freed_memory

    encoder = load_encoder(name, device=lesson.device)
    started = time.perf_counter()
    vectors = encoder.encode(sentences, batch_size=64).float().numpy()
    label, kind = model_kind(encoder)
    print(f"{label}: {len(sentences)} sentences encoded in {time.perf_counter() - started:.0f} s")
    described, pooling = f"{encoder.name}, {encoder.modules.describe()}", encoder.modules.pooling_name
    del encoder
    return_freed_memory()
    row = {s: i for i, s in enumerate(sentences)}
    whitened, how = whiten(vectors, [row[s] for s in fit_sentences])
    return ModelVectors(label, kind, described, pooling, row, vectors, whitened, how)


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson09:
    """Set the lesson up: draw the pairs, build the minimal pairs, encode every sentence with the embedded model and
    with MODEL when it is another one, and whiten each."""
    from sbert_workbook.encoding.resolve import resolve_model

    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    s = lesson.sizes
    stsb = {split: load_sts("stsb", split).sample(s.STSB_PAIRS, seed=seed) for split in ("dev", "test")}
    source = paraphrase_pairs()
    minimal = {name: minimal_pairs(source, name, s.STRESS_PAIRS, seed) for name in PERTURBATIONS}
    lesson = Lesson09(**vars(lesson), stsb=stsb, snli=snli_triples(s.SNLI_PREMISES, seed), minimal=minimal)
    sentences = every_sentence(lesson)
    fit = list(dict.fromkeys([*stsb["dev"].sentences1, *stsb["dev"].sentences2, *lesson.snli["dev"].premises,
                              *lesson.snli["dev"].entailments, *lesson.snli["dev"].contradictions]))
    names = ["embedded"] + ([] if resolve_model(model).source == "embedded package" else [model])
    for name in names:
        vectors = encoded(name, lesson, sentences, fit)
        lesson.models[vectors.name] = vectors
    return lesson


def data_report(lesson: Lesson09) -> Report:
    """§1: which models ran and what each is, what each task reads, and how the minimal pairs were found."""
    lines = [f"{m.name}: {m.kind}; {m.described}; {m.whitening}" for m in lesson.models.values()]
    if len(lesson.models) == 1:
        lines.append("MODEL is the embedded model here, so no raw transformer runs beside it: online, MODEL = \"auto\" "
                     "loads bert-base-uncased (02 measured its cone), and every table below gains its rows.")
    lines += [f"STS-B: related = scored {RELATED_SCORE:g} or more of 5; chosen on {len(lesson.stsb['dev'])} dev pairs, "
              f"tested on {len(lesson.stsb['test'])} test pairs (seed {lesson.seed})",
              f"SNLI: related = a premise and its entailed hypothesis, unrelated = it and its contradicting one; "
              f"{len(lesson.snli['dev'])} premises to choose on, {len(lesson.snli['test'])} to test on",
              "minimal pairs (§4): " + ", ".join(f"{name} {len(pairs)}" for name, pairs in lesson.minimal.items())
              + f", from pairs scored {PARAPHRASE_SCORE:g} or more (STS-B dev and test, SICK test labelled entailment)"]
    return Report(*lines)


def captioned(table, lesson: Lesson09, aggregation: str, split: str):
    """``table`` with the caption every 09 table carries: the models, their pooling, the aggregation, the split."""
    from sbert_workbook.evaluation.provenance import with_provenance

    pooling = "; ".join(f"{m.name}: {m.pooling}" for m in lesson.models.values())
    return with_provenance(table, model=" and ".join(lesson.models), pooling=f"each model's own ({pooling})",
                           aggregation=aggregation, split=split)
