"""Lesson 04's set-up: the trained reference, the student it trains, the data every section reads, and §0's and §2's
reports (``04_siamese_finetuning.ipynb``).

The student is built fresh for every run (:meth:`Lesson04.new_student`) and lives only as long as its section needs
it: with bert-base-uncased a trained student holds about 1.8 GB (weights, gradients and AdamW's two moments), so the
lesson keeps at most one in memory.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sbert_workbook.data.loaders import load_nli, load_sts
from sbert_workbook.data.records import DataNotFoundError, StsData
from sbert_workbook.encoding.encoder import Encoder, load_encoder
from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson
from sbert_workbook.published.sbert_recipe import SBERT_NLI_RECIPE
from sbert_workbook.training import examples
from sbert_workbook.training.losses import SBERT_PAIR_FEATURES
from sbert_workbook.training.plots import sbert_architectures_figure
from sbert_workbook.training.scratch import scratch_folder
from sbert_workbook.training.siamese import SiameseModel

NOTEBOOK = "04_siamese_finetuning"
#: The paper's learning rate for a pre-trained student (SBERT §3.1); random weights take the manifest's STUDENT_LR.
PRETRAINED_LR = SBERT_NLI_RECIPE.settings["learning rate"]


@dataclass
class Lesson04(Lesson):
    reference: Encoder | None = None  # all-MiniLM-L6-v2: a Sentence-BERT model already trained
    student_source: ResolvedModel | None = None  # what the student starts from (what MODEL resolved to, or set aside)
    set_aside: str = ""  # why MODEL = "auto"'s pre-trained model was set aside for the small student, if it was
    runs: Path | None = None  # this session's checkpoints, removed when the kernel shuts down
    dev: StsData | None = field(default=None, repr=False)  # STS-B dev, scored during and after training

    @property
    def pretrained_student(self) -> bool:
        """True when MODEL is a model other than the embedded (already trained) one: fine-tune it, as the paper does."""
        return self.student_source.model_id != self.reference.resolved.model_id

    @property
    def student_lr(self) -> float:
        return PRETRAINED_LR if self.pretrained_student else self.sizes.STUDENT_LR

    @property
    def student_shape(self) -> dict:
        """The random-init student's BertConfig sizes (from the manifest's STUDENT_LAYERS and STUDENT_HIDDEN)."""
        hidden = self.sizes.STUDENT_HIDDEN
        return {"hidden_size": hidden, "num_hidden_layers": self.sizes.STUDENT_LAYERS,
                "num_attention_heads": max(1, hidden // 64), "intermediate_size": 4 * hidden}

    @property
    def student_name(self) -> str:
        """'bert-base-uncased' or 'random-init BERT (2 layers × 128)': the student before any training."""
        if self.pretrained_student:
            return self.student_source.model_id
        return f"random-init BERT ({self.sizes.STUDENT_LAYERS} layers × {self.sizes.STUDENT_HIDDEN})"

    def new_student(self, pooling: str = "mean", parts=SBERT_PAIR_FEATURES, seed: int | None = None) -> SiameseModel:
        """A fresh student with its NLI classifier on ``parts``: MODEL's weights, or random ones drawn from ``seed``."""
        seed = self.seed if seed is None else seed
        if self.pretrained_student:
            model = SiameseModel.from_pretrained(self.model, pooling=pooling, device=self.device)
        else:
            model = SiameseModel.from_scratch("embedded", pooling=pooling, device=self.device, seed=seed, **self.student_shape)
        model.add_classifier(3, parts, seed=seed)
        return model

    @cached_property
    def nli(self) -> examples.Examples:
        """The NLI pairs the classification objective trains on: SNLI + MultiNLI dev (AllNLI train in full mode when
        the hub or its cache has it, as the paper)."""
        dev_sets = examples.concatenate(examples.nli_pairs(load_nli("snli")), examples.nli_pairs(load_nli("mnli")))
        if self.quick:
            return dev_sets
        try:
            return examples.nli_pairs(load_nli("allnli", "train"))
        except DataNotFoundError:
            print("AllNLI train is not available (offline and not cached by `predownload`): training on the SNLI + "
                  "MultiNLI dev sets instead, far smaller than the paper's data.")
            return dev_sets

    @cached_property
    def stsb_train(self) -> examples.Examples:
        return examples.sts_pairs(load_sts("stsb", "train"))


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson04:
    """Set the lesson up: mode, device, seed and sizes; the trained reference; what MODEL resolves to; STS-B dev."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    reference = load_encoder("embedded", device=lesson.device)
    source, set_aside = student_source(model, reference.resolved, lesson.device, lesson.sizes.FINE_TUNE_ON_CPU)
    return Lesson04(**vars(lesson), reference=reference, student_source=source, set_aside=set_aside,
                    runs=scratch_folder("sbw-04-"), dev=load_sts("stsb", "dev", limit=lesson.sizes.DEV_PAIRS))


def student_source(model: str, reference: ResolvedModel, device, fine_tune_on_cpu: bool) -> tuple[ResolvedModel, str]:
    """What the student starts from, and why MODEL's pre-trained model was set aside if it was: with MODEL = "auto" on a
    CPU and FINE_TUNE_ON_CPU off, a pre-trained model other than the reference (bert-base-uncased online) gives way to
    the small random-init student, which quick mode trains in minutes. A model named explicitly is always fine-tuned."""
    resolved = resolve_model(model)
    if (str(model).strip().lower() != "auto" or fine_tune_on_cpu or device.type != "cpu"
            or resolved.model_id == reference.model_id):
        return resolved, ""
    why = (f"MODEL = \"auto\" found {resolved.model_id}, but fine-tuning it on a CPU takes far longer than quick mode allows "
           f"(§5 did not finish in 30 minutes on 2 cores), so the student is the small random-init BERT. Set "
           f"MODEL = \"{resolved.model_id}\" (or SIZES = {{\"FINE_TUNE_ON_CPU\": True}}) to fine-tune it anyway.")
    print(f"Student: {why}")
    return reference, why


def models_report(lesson: Lesson04):
    """§0: which student this run trains, its learning rate, and the trained reference."""
    from IPython.display import Markdown

    if lesson.pretrained_student:
        said = (f"**Student:** {lesson.student_source.model_id} — pre-trained weights, the paper's setting"
                + (" with quick mode's few steps (`QUICK=False` for the paper's full epochs)." if lesson.quick else "."))
    else:
        why = lesson.set_aside or (f"{lesson.model!r} resolved to {lesson.student_source.model_id}, which is already "
                                   "trained for similarity" + (" (quick mode keeps the student tiny)." if lesson.quick else "."))
        said = (f"**Student:** a freshly initialised BERT ({lesson.sizes.STUDENT_LAYERS} layers × {lesson.sizes.STUDENT_HIDDEN}), "
                f"*not* bert-base-uncased: {why}")
    return Markdown(f"{said} Learning rate {lesson.student_lr:g}.  \n**Trained reference:** {lesson.reference.resolved.model_id}.")


def architectures() -> Report:
    """§2: SBERT's two architectures, drawn."""
    return Report(sbert_architectures_figure())


def reference_as_siamese(lesson: Lesson04) -> SiameseModel:
    """§2: the trained reference's own weights (no copy) as a Siamese model with mean pooling."""
    reference = lesson.reference
    return SiameseModel(reference.model, reference.tokenizer, reference.resolved, "mean", reference.max_length)


def free(*objects) -> None:
    """Let go of what a section no longer needs (models, optimizers' leftovers) and collect the garbage now."""
    for thing in objects:
        release = getattr(thing, "free", None)
        if callable(release):
            release()
    gc.collect()
