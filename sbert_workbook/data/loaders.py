"""Loading STS and NLI data into small typed structures (``03_pooling_and_sts.ipynb``).

Every file reader checks each line and names the file and line number when one is
malformed; blank lines, a UTF-8 byte-order mark and Windows line endings are accepted.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sbert_workbook.data.registry import NLI_LABELS, SCORE_RANGES, DataSource, source

DATA_ENV_VAR = "SBERT_WORKBOOK_DATA"


class DataFormatError(ValueError):
    """A data file has a malformed line; the message names the file and line."""


class DataNotFoundError(FileNotFoundError):
    """A data set was found neither locally nor on the hub; the message lists where we looked."""


@dataclass
class StsData:
    """Sentence pairs with gold similarity scores; ``subsets`` names each pair's sub-corpus."""

    name: str
    split: str
    sentences1: list[str]
    sentences2: list[str]
    scores: np.ndarray
    subsets: list[str]
    origin: str = ""
    score_range: tuple[float, float] = (0.0, 5.0)

    def __len__(self) -> int:
        return len(self.scores)

    def subset_names(self) -> list[str]:
        return list(dict.fromkeys(self.subsets))

    def sample(self, n: int | None, seed: int = 0) -> StsData:
        """At most ``n`` pairs drawn at random with ``seed`` (kept in file order); all when n is None."""
        if n is None or n >= len(self):
            return self
        keep = np.sort(np.random.default_rng(seed).choice(len(self), size=n, replace=False))
        return StsData(self.name, self.split, [self.sentences1[i] for i in keep], [self.sentences2[i] for i in keep],
                       self.scores[keep], [self.subsets[i] for i in keep], f"{self.origin} (sample of {n}, seed {seed})",
                       self.score_range)


@dataclass
class NliData:
    """Premise/hypothesis pairs with labels from :data:`~sbert_workbook.data.registry.NLI_LABELS`."""

    name: str
    split: str
    premises: list[str]
    hypotheses: list[str]
    labels: list[str]
    origin: str = ""
    label_names: tuple[str, ...] = field(default=NLI_LABELS)

    def __len__(self) -> int:
        return len(self.labels)

    def label_ids(self) -> np.ndarray:
        return np.array([self.label_names.index(label) for label in self.labels])


# ----------------------------------------------------------------------------- finding data
def repo_root() -> Path | None:
    """The workbook checkout this package runs from (or the cwd is inside), if any."""
    here = Path(__file__).resolve().parents[2]
    for candidate in (here, Path.cwd(), *Path.cwd().parents):
        if (candidate / "pyproject.toml").is_file() and (candidate / "sbert_workbook").is_dir():
            return candidate
    return None


def data_roots(data_dir: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """Where local data is looked for, in order, each with a label for messages."""
    roots = []
    if data_dir is not None and not Path(data_dir).expanduser().exists():
        raise DataNotFoundError(f"data_dir {str(data_dir)!r} does not exist. Pass the folder that holds the data "
                                "(e.g. one with sts/STSBenchmark inside), or leave data_dir out to use the defaults.")
    if data_dir is not None:
        roots.append(("the path you passed", Path(data_dir).expanduser()))
    if os.environ.get(DATA_ENV_VAR):
        roots.append((f"${DATA_ENV_VAR}", Path(os.environ[DATA_ENV_VAR]).expanduser()))
    repo = repo_root()
    if repo is not None:
        roots.append(("the repository's data/", repo / "data"))
        roots.append(("../shared/data beside the repository", repo.parent / "shared" / "data"))
    return roots


def find_local(name: str, data_dir: str | os.PathLike | None = None) -> Path | None:
    """The local file or folder holding data set ``name``, or None."""
    entry = source(name)
    for _label, root in data_roots(data_dir):
        if (root / entry.local_path).exists():
            return root / entry.local_path
        if root.name == Path(entry.local_path).name and root.exists():  # the data set's own path was passed
            return root
    return None


# ----------------------------------------------------------------------------- public loaders
def load_sts(name: str, split: str = "test", data_dir: str | os.PathLike | None = None, limit: int | None = None) -> StsData:
    """Load an STS data set by registry name (``stsb``, ``sts12``…``sts16``, ``sickr``, ``demo``)."""
    entry = source(name)
    if entry.kind != "sts":
        raise ValueError(f"{name!r} is an NLI data set; use load_nli({name!r}).")
    _check_split(entry, split)
    path = find_local(name, data_dir)
    data = _read_local_sts(entry, path, split) if path is not None else _load_sts_from_hub(entry, split, data_dir)
    _check_not_empty(data, split)
    return data.sample(limit)


def load_nli(name: str, split: str | None = None, data_dir: str | os.PathLike | None = None, limit: int | None = None) -> NliData:
    """Load an NLI data set by registry name (``snli``, ``mnli``, ``sick_nli``)."""
    entry = source(name)
    if entry.kind != "nli":
        raise ValueError(f"{name!r} is an STS data set; use load_sts({name!r}).")
    split = split or entry.splits[0]
    _check_split(entry, split)
    path = find_local(name, data_dir)
    if path is not None:
        data = read_sick_nli(path, split) if entry.layout == "sick" else read_nli_jsonl(path, name, split)
    else:
        data = _load_nli_from_hub(entry, split, data_dir)
    _check_not_empty(data, split)
    if limit is not None and limit < len(data):
        data = NliData(data.name, data.split, data.premises[:limit], data.hypotheses[:limit], data.labels[:limit],
                       f"{data.origin} (first {limit})")
    return data


def _check_not_empty(data: StsData | NliData, split: str) -> None:
    if len(data) == 0:
        raise DataFormatError(f"{data.origin} holds no pairs for the split {split!r}: is it the right file, and not empty?")


def _check_split(entry: DataSource, split: str) -> None:
    if split not in entry.splits:
        raise ValueError(f"{entry.name!r} has no split {split!r}; it has {', '.join(entry.splits)}.")


def _read_local_sts(entry: DataSource, path: Path, split: str) -> StsData:
    if entry.layout == "stsb":
        return read_stsb(path / f"sts-{split}.csv" if path.is_dir() else path, split)
    if entry.layout == "senteval":
        return read_senteval(path, entry.name)
    if entry.layout == "sick":
        return read_sick_relatedness(path, split)
    return read_demo(path)


# ----------------------------------------------------------------------------- file readers
def _read_lines(path: Path) -> list[str]:
    """The file's lines, decoded as UTF-8 (a BOM is dropped; \\n, \\r\\n and \\r end a line)."""
    if not path.is_file():
        raise DataNotFoundError(f"Data file {path} does not exist.")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise DataFormatError(
            f"{path}, line {line}: byte 0x{raw[error.start]:02x} is not valid UTF-8. Save the file as UTF-8 "
            f"(e.g. `iconv -f latin1 -t utf-8 {path.name} > fixed.txt`)."
        ) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) for every non-blank line; BOM and CRLF handled."""
    for number, line in enumerate(_read_lines(path), start=1):
        if line.strip():
            yield number, line


def _parse_score(text: str, path: Path, number: int, score_range: tuple[float, float]) -> float:
    try:
        score = float(text)
    except ValueError:
        raise DataFormatError(f"{path}, line {number}: the score {text!r} is not a number.") from None
    low, high = score_range
    if math.isnan(score):
        raise DataFormatError(f"{path}, line {number}: the score is NaN; every pair needs a number in [{low}, {high}].")
    if not low <= score <= high:
        raise DataFormatError(f"{path}, line {number}: the score {score} is outside the expected range [{low}, {high}].")
    return score


def _fields(line: str, path: Path, number: int, at_least: int, what: str) -> list[str]:
    fields = line.split("\t")
    if len(fields) < at_least:
        raise DataFormatError(
            f"{path}, line {number}: expected at least {at_least} tab-separated columns ({what}), found {len(fields)}. "
            "Is the file tab-separated?"
        )
    return fields


def read_stsb(path: Path, split: str = "test") -> StsData:
    """STS Benchmark: genre, file, year, id, score, sentence1, sentence2[, ignored extras]."""
    path = Path(path)
    s1, s2, scores = [], [], []
    for number, line in _numbered_lines(path):
        fields = _fields(line, path, number, 7, "genre, file, year, id, score, sentence1, sentence2")
        scores.append(_parse_score(fields[4], path, number, SCORE_RANGES["stsb"]))
        s1.append(fields[5])
        s2.append(fields[6])
    # STS-B is one evaluation set (as in SentEval and BERT-flow): its genres are not subsets.
    return StsData("stsb", split, s1, s2, np.array(scores), ["stsb"] * len(scores), str(path), SCORE_RANGES["stsb"])


def read_senteval(folder: Path, name: str) -> StsData:
    """SemEval STS in SentEval's layout: STS.input.X.txt + STS.gs.X.txt per subset X.

    An empty gold line marks an unscored pair, which is skipped; a gold file without an
    input file (STS12's ALL, STS13's SMT) is skipped.
    """
    folder = Path(folder)
    s1, s2, scores, subsets = [], [], [], []
    gold_files = sorted(folder.glob("STS.gs.*.txt"))
    if not gold_files:
        raise DataNotFoundError(f"{folder} holds no STS.gs.*.txt files: is it a SentEval STS folder?")
    for gold_path in gold_files:
        subset = gold_path.name[len("STS.gs."):-len(".txt")]
        input_path = folder / f"STS.input.{subset}.txt"
        if not input_path.is_file():
            continue
        for sentence1, sentence2, score in _senteval_subset(input_path, gold_path):
            s1.append(sentence1)
            s2.append(sentence2)
            scores.append(score)
            subsets.append(subset)
    return StsData(name, "test", s1, s2, np.array(scores), subsets, str(folder), SCORE_RANGES["senteval"])


def _senteval_subset(input_path: Path, gold_path: Path) -> Iterator[tuple[str, str, float]]:
    input_lines, gold_lines = _read_lines(input_path), _read_lines(gold_path)
    while input_lines and not input_lines[-1].strip():
        input_lines.pop()
    if len(gold_lines) < len(input_lines):
        raise DataFormatError(f"{gold_path} has {len(gold_lines)} lines but {input_path} has {len(input_lines)}: "
                              "each input line needs a gold line (empty when unscored).")
    extra = [n for n, gold in enumerate(gold_lines[len(input_lines):], start=len(input_lines) + 1) if gold.strip()]
    if extra:
        raise DataFormatError(f"{gold_path}, line {extra[0]}: a score without a sentence pair ({input_path} has only "
                              f"{len(input_lines)} lines). Are the two files from the same subset?")
    for number, (pair, gold) in enumerate(zip(input_lines, gold_lines), start=1):
        if not gold.strip():
            continue
        fields = pair.split("\t")
        if len(fields) != 2:
            raise DataFormatError(f"{input_path}, line {number}: expected 2 tab-separated sentences, found {len(fields)} columns.")
        yield fields[0], fields[1], _parse_score(gold.strip(), gold_path, number, SCORE_RANGES["senteval"])


def _read_sick_rows(path: Path, split: str) -> Iterator[tuple[int, dict[str, str]]]:
    path = Path(path)
    lines = _numbered_lines(path)
    header = next(lines, (0, ""))[1].split("\t")
    needed = ("sentence_A", "sentence_B", "entailment_label", "relatedness_score", "SemEval_set")
    missing = [column for column in needed if column not in header]
    if missing:
        hint = (" SemEval-2014's split files (SICK_train.txt, SICK_test_annotated.txt) have no SemEval_set column: "
                "use the full SICK.txt." if "SemEval_set" in missing and "sentence_A" in header else "")
        raise DataFormatError(f"{path}, line 1: the header lacks {', '.join(missing)}; is this SICK.txt?{hint}")
    for number, line in lines:
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataFormatError(f"{path}, line {number}: expected {len(header)} tab-separated columns, found {len(fields)}.")
        row = dict(zip(header, fields))
        if row["SemEval_set"].strip().lower() == split:
            yield number, row


def read_sick_relatedness(path: Path, split: str = "test") -> StsData:
    """SICK relatedness scores (1-5) for the rows whose ``SemEval_set`` is ``split``."""
    s1, s2, scores = [], [], []
    for number, row in _read_sick_rows(path, split):
        s1.append(row["sentence_A"])
        s2.append(row["sentence_B"])
        scores.append(_parse_score(row["relatedness_score"], Path(path), number, SCORE_RANGES["sick"]))
    return StsData("sickr", split, s1, s2, np.array(scores), ["sick"] * len(scores), str(path), SCORE_RANGES["sick"])


def read_sick_nli(path: Path, split: str = "test") -> NliData:
    """SICK entailment labels (ENTAILMENT/NEUTRAL/CONTRADICTION, lower-cased)."""
    premises, hypotheses, labels = [], [], []
    for number, row in _read_sick_rows(path, split):
        label = row["entailment_label"].strip().lower()
        if label not in NLI_LABELS:
            raise DataFormatError(f"{path}, line {number}: unknown entailment label {label!r}; expected {NLI_LABELS}.")
        premises.append(row["sentence_A"])
        hypotheses.append(row["sentence_B"])
        labels.append(label)
    return NliData("sick_nli", split, premises, hypotheses, labels, str(path))


def read_nli_jsonl(path: Path, name: str = "nli", split: str = "dev") -> NliData:
    """JSON lines with ``premise``, ``hypothesis`` and ``label`` (entailment/neutral/contradiction)."""
    path = Path(path)
    premises, hypotheses, labels = [], [], []
    for number, line in _numbered_lines(path):
        try:
            row = json.loads(line)
            premise, hypothesis, label = row["premise"], row["hypothesis"], row["label"]
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise DataFormatError(f"{path}, line {number}: expected a JSON object with premise, hypothesis and label ({error}).") from None
        if label not in NLI_LABELS:
            numbered = (" Labels must be words; on the Hugging Face hub 0, 1, 2 stand for entailment, neutral, contradiction."
                        if isinstance(label, int) else "")
            raise DataFormatError(f"{path}, line {number}: unknown label {label!r}; expected one of {NLI_LABELS}.{numbered}")
        if not (isinstance(premise, str) and isinstance(hypothesis, str)):
            raise DataFormatError(f"{path}, line {number}: premise and hypothesis must be strings, got "
                                  f"{premise!r} and {hypothesis!r}.")
        premises.append(premise)
        hypotheses.append(hypothesis)
        labels.append(label)
    return NliData(name, split, premises, hypotheses, labels, str(path))


def read_demo(path: Path) -> StsData:
    """The workbook's own demo pairs: a header, then sentence1, sentence2, score, category."""
    path = Path(path)
    lines = _numbered_lines(path)
    next(lines, None)  # header
    s1, s2, scores, categories = [], [], [], []
    for number, line in lines:
        fields = _fields(line, path, number, 4, "sentence1, sentence2, score, category")
        s1.append(fields[0])
        s2.append(fields[1])
        scores.append(_parse_score(fields[2], path, number, SCORE_RANGES["demo"]))
        categories.append(fields[3])
    return StsData("demo", "all", s1, s2, np.array(scores), categories, f"{path} (demo set, not a benchmark)", SCORE_RANGES["demo"])


# ----------------------------------------------------------------------------- the hub
def _load_sts_from_hub(entry: DataSource, split: str, data_dir) -> StsData:
    rows = _hub_rows(entry, split, data_dir)
    scale = 5.0 if entry.name == "stsb" else 1.0  # sentence-transformers/stsb stores scores / 5
    scores = np.array([float(score) * scale for score in rows["score"]])
    low, high = SCORE_RANGES[entry.layout]
    if len(scores) and (scores.min() < low - 1e-6 or scores.max() > high + 1e-6):
        raise DataFormatError(f"{entry.hub_id}: scores span [{scores.min()}, {scores.max()}], outside [{low}, {high}].")
    return StsData(entry.name, split, list(rows["sentence1"]), list(rows["sentence2"]), scores,
                   [entry.name] * len(scores), f"hub:{entry.hub_id}", (low, high))


def _load_nli_from_hub(entry: DataSource, split: str, data_dir) -> NliData:
    rows = _hub_rows(entry, split, data_dir)
    labels = [NLI_LABELS[label] if isinstance(label, int) else label for label in rows["label"]]
    return NliData(entry.name, split, list(rows["premise"]), list(rows["hypothesis"]), labels,
                   f"hub:{entry.hub_id}/{entry.hub_config} (SNLI+MultiNLI)")


def _hub_rows(entry: DataSource, split: str, data_dir):
    """Rows of a hub data set: downloaded when the hub answers, else from the ``datasets`` cache
    (filled by ``python -m sbert_workbook predownload``) without touching the network."""
    from sbert_workbook.encoding.resolve import hub_is_reachable

    if entry.hub_id is None:
        raise DataNotFoundError(_not_found_message(entry, data_dir))
    if hub_is_reachable():
        import datasets as hf_datasets

        return hf_datasets.load_dataset(entry.hub_id, entry.hub_config, split=_hub_split(entry, split))
    rows = _cached_hub_rows(entry, split)
    if rows is None:
        raise DataNotFoundError(_not_found_message(entry, data_dir))
    return rows


def _hub_split(entry: DataSource, split: str) -> str:
    """The hub's name for ``split``: sentence-transformers/stsb calls dev "validation"."""
    return {"dev": "validation"}.get(split, split) if entry.name == "stsb" else split


def _cached_hub_rows(entry: DataSource, split: str):
    """Rows from the ``datasets`` cache with the network switched off, or None when not cached."""
    import datasets as hf_datasets

    with _hub_offline_mode():
        try:
            return hf_datasets.load_dataset(entry.hub_id, entry.hub_config, split=_hub_split(entry, split))
        except (OSError, ValueError):  # not in the cache (datasets' not-found errors are OSErrors)
            return None


def hub_copy_is_cached(name: str) -> bool:
    """Whether the hub copy of data set ``name`` loads from the ``datasets`` cache with no network."""
    entry = source(name)
    return entry.hub_id is not None and _cached_hub_rows(entry, entry.splits[-1]) is not None


@contextlib.contextmanager
def _hub_offline_mode():
    """Tell huggingface_hub and datasets not to try the network for the duration (they read the flag at import)."""
    import datasets.config
    from huggingface_hub import constants

    saved = constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE
    constants.HF_HUB_OFFLINE = datasets.config.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE = saved


def _not_found_message(entry: DataSource, data_dir) -> str:
    looked = "\n".join(f"  - {label}: {root / entry.local_path}" for label, root in data_roots(data_dir))
    hub = f"the hub copy {entry.hub_id!r} (offline or unreachable, and not in the datasets cache)" if entry.hub_id else "no hub copy is registered"
    return (
        f"Data set {entry.name!r} ({entry.description}) was not found. Looked in:\n{looked or '  (no local roots)'}\n"
        f"  - {hub}\n"
        f"To fix: set {DATA_ENV_VAR} to the folder that holds '{entry.local_path}', pass data_dir=..., "
        "or run `python -m sbert_workbook predownload` once while online."
    )
