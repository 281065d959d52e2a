"""Reading the benchmark files: STS Benchmark, SentEval STS, SICK, NLI JSON lines and the demo pairs.

Introduced in ``03_pooling_and_sts.ipynb``. Every reader checks each line and names the file
and line number when one is malformed; blank lines, a UTF-8 byte-order mark and Windows
line endings are accepted.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from sbert_workbook.data.records import DataFormatError, DataNotFoundError, NliData, StsData
from sbert_workbook.data.registry import NLI_LABELS, SCORE_RANGES


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
