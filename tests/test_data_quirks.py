"""Issue 9: data files with every quirk students meet. Bad lines fail naming file and line;
blank lines, a BOM and Windows line endings are handled silently.

The files are hand-written in tests/fixtures/ (their bytes are kept as written, see
tests/fixtures/.gitattributes); each test first checks that its quirk is really there.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from sbert_workbook import DataFormatError, DataNotFoundError, load_nli, load_sts
from sbert_workbook.data.readers import read_nli_jsonl, read_senteval, read_sick_nli, read_sick_relatedness, read_stsb

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BOM, CRLF = b"\xef\xbb\xbf", b"\r\n"


def fixture(relative: str) -> Path:
    path = FIXTURES / relative
    assert path.exists(), f"missing fixture {path}"
    return path


def error_message(read, path, *args) -> str:
    with pytest.raises(DataFormatError) as caught:
        read(path, *args)
    return str(caught.value)


# ----------------------------------------------------------------------------- handled silently
def test_bom_crlf_blank_lines_and_extra_columns_read_like_the_clean_file():
    quirky = fixture("stsb/bom_crlf_blank.csv")
    raw = quirky.read_bytes()
    assert raw.startswith(BOM) and CRLF in raw and CRLF + CRLF in raw  # the quirks are really in the file
    clean, messy = read_stsb(fixture("stsb/clean.csv")), read_stsb(quirky)
    assert messy.sentences1 == clean.sentences1 and messy.sentences2 == clean.sentences2
    assert np.array_equal(messy.scores, clean.scores)
    assert not any(s.endswith(("\r", "\ufeff")) or s.startswith("\ufeff") for s in messy.sentences1 + messy.sentences2)


def test_senteval_skips_empty_gold_lines_and_gold_files_without_input():
    folder = fixture("senteval/quirks")
    assert (folder / "STS.gs.news.txt").read_bytes().startswith(BOM) and not (folder / "STS.input.ALL.txt").exists()
    data = read_senteval(folder, "fixture")
    # by hand: forum lines 1-2 scored (line 3 blank); news lines 1, 3, 4 scored (line 2 blank); ALL ignored
    assert data.subsets == ["forum", "forum", "news", "news", "news"]
    assert data.scores.tolist() == [4.0, 0.0, 5.0, 2.75, 4.8]
    assert data.sentences1[3] == "a woman slices an onion ." and data.sentences2[4] == "two dogs are running ."


def test_sick_header_with_bom_crlf_and_reordered_columns():
    quirky = fixture("sick/bom_crlf.txt")
    assert quirky.read_bytes().startswith(BOM) and CRLF in quirky.read_bytes()
    for path in (quirky, fixture("sick/columns_reordered.txt")):
        data = read_sick_relatedness(path, "test")
        assert data.scores.tolist() == [4.9, 1.6, 4.6]  # the three TEST rows, by hand
        assert data.sentences1 == ["A man is playing a guitar", "A cat sleeps", "A woman slices an onion"]
        assert read_sick_nli(path, "train").labels == ["contradiction"]


def test_nli_jsonl_with_bom_crlf_and_blank_lines():
    path = fixture("nli/bom_crlf_blank.jsonl")
    assert path.read_bytes().startswith(BOM) and CRLF in path.read_bytes()
    data = read_nli_jsonl(path, "fixture")
    assert data.labels == ["entailment", "contradiction", "neutral"]
    assert data.premises[0] == "A man is playing a guitar."


def test_only_newlines_end_a_line(tmp_path):
    """A form feed, NEL or U+2028 inside a sentence must not shift line numbers (str.splitlines would)."""
    stsb = tmp_path / "sts-test.csv"
    row = "g\tf\t2012\t1\t{}\tA\u2028B\x0cC.\tD\x85E.\n"
    stsb.write_text(row.format("1.0") + row.format("bad"), encoding="utf-8")
    assert f"{stsb}, line 2:" in error_message(read_stsb, stsb)
    senteval = tmp_path / "senteval"
    senteval.mkdir()
    (senteval / "STS.input.odd.txt").write_text("a\x85b .\tc\u2028d .\ne f .\tg h .\n", encoding="utf-8")
    (senteval / "STS.gs.odd.txt").write_text("4.0\n1.5\n", encoding="utf-8")
    data = read_senteval(senteval, "fixture")
    assert data.sentences1 == ["a\x85b .", "e f ."] and data.scores.tolist() == [4.0, 1.5]


# ----------------------------------------------------------------------------- errors naming file and line
@pytest.mark.parametrize("relative, line, words", [
    ("stsb/comma_delimited.csv", 1, "Is the file tab-separated?"),
    ("stsb/short_row.csv", 3, "found 6"),
    ("stsb/score_not_number.csv", 2, "'high' is not a number"),
    ("stsb/score_empty.csv", 2, "'' is not a number"),
    ("stsb/score_out_of_range.csv", 3, "7.5 is outside the expected range [0.0, 5.0]"),
    ("stsb/score_negative.csv", 1, "-0.5 is outside"),
    ("stsb/score_nan.csv", 2, "is NaN"),
    ("stsb/latin1.csv", 2, "not valid UTF-8"),
])
def test_stsb_errors_name_file_and_line(relative, line, words):
    message = error_message(read_stsb, fixture(relative))
    assert f"{fixture(relative)}, line {line}:" in message and words in message


@pytest.mark.parametrize("folder, file, words", [
    ("senteval/bad_score", "STS.gs.news.txt, line 2:", "'0,5' is not a number"),
    ("senteval/one_column", "STS.input.news.txt, line 2:", "expected 2 tab-separated sentences"),
    ("senteval/extra_gold", "STS.gs.news.txt, line 4:", "a score without a sentence pair"),
    ("senteval/short_gold", "STS.gs.news.txt has 2 lines", "has 4"),
])
def test_senteval_errors_name_file_and_line(folder, file, words):
    message = error_message(read_senteval, fixture(folder), "fixture")
    assert f"{fixture(folder)}/{file}" in message and words in message


def test_folder_without_gold_files_is_not_a_senteval_folder():
    with pytest.raises(DataNotFoundError, match="no STS.gs.*txt files"):
        read_senteval(fixture("senteval/no_gold"), "fixture")


@pytest.mark.parametrize("relative, read, line, words", [
    ("sick/no_header.txt", read_sick_relatedness, 1, "the header lacks sentence_A"),
    ("sick/semeval2014_header.txt", read_sick_relatedness, 1, "lacks entailment_label, SemEval_set; is this SICK.txt? SemEval-2014"),
    ("sick/semeval2014_header.txt", read_sick_nli, 1, "is this SICK.txt?"),
    ("sick/wrong_column_count.txt", read_sick_relatedness, 4, "expected 6 tab-separated columns, found 4"),
    ("sick/score_out_of_range.txt", read_sick_relatedness, 3, "0.5 is outside the expected range [1.0, 5.0]"),
    ("sick/unknown_label.txt", read_sick_nli, 3, "unknown entailment label 'paraphrase'"),
])
def test_sick_errors_name_file_and_line(relative, read, line, words):
    message = error_message(read, fixture(relative), "test")
    assert f"{fixture(relative)}, line {line}:" in message and words in message


@pytest.mark.parametrize("relative, line, words", [
    ("nli/truncated_json.jsonl", 2, "expected a JSON object"),
    ("nli/missing_key.jsonl", 3, "'hypothesis'"),
    ("nli/not_an_object.jsonl", 2, "expected a JSON object"),
    ("nli/unknown_label.jsonl", 2, "unknown label '-'"),
    ("nli/integer_label.jsonl", 2, "on the Hugging Face hub 0, 1, 2 stand for entailment, neutral, contradiction"),
    ("nli/null_premise.jsonl", 2, "must be strings, got None"),
    ("nli/csv_not_json.jsonl", 1, "expected a JSON object"),
])
def test_nli_errors_name_file_and_line(relative, line, words):
    message = error_message(read_nli_jsonl, fixture(relative))
    assert f"{fixture(relative)}, line {line}:" in message and words in message


# ----------------------------------------------------------------------------- through the public loaders
def as_data_root(tmp_path: Path, relative: str, target: str) -> Path:
    """A data root holding one fixture at the registry's place for it."""
    destination = tmp_path / target
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(fixture(relative), destination)
    return tmp_path


def test_load_sts_reads_a_quirky_file_from_data_dir(tmp_path):
    root = as_data_root(tmp_path, "stsb/bom_crlf_blank.csv", "sts/STSBenchmark/sts-test.csv")
    data = load_sts("stsb", "test", data_dir=root)
    assert data.scores.tolist() == [5.0, 0.5, 2.75] and data.origin.startswith(str(root))


def test_load_sts_of_a_file_with_no_pairs_says_so(tmp_path):
    root = as_data_root(tmp_path, "stsb/only_blank_lines.csv", "sts/STSBenchmark/sts-test.csv")
    with pytest.raises(DataFormatError, match="holds no pairs for the split 'test'"):
        load_sts("stsb", "test", data_dir=root)


def test_load_sts_of_a_split_with_no_rows_says_so(tmp_path):
    root = as_data_root(tmp_path, "sick/bom_crlf.txt", "sick/SICK.txt")
    assert len(load_sts("sickr", "test", data_dir=root)) == 3
    with pytest.raises(DataFormatError, match="SICK.txt holds no pairs for the split 'trial'"):
        load_sts("sickr", "trial", data_dir=root)


def test_load_nli_reads_a_quirky_file_from_data_dir(tmp_path):
    root = as_data_root(tmp_path, "nli/bom_crlf_blank.jsonl", "nli/snli_dev.jsonl")
    assert load_nli("snli", data_dir=root).labels == ["entailment", "contradiction", "neutral"]


def test_missing_file_and_missing_data_dir_say_where(tmp_path):
    with pytest.raises(DataNotFoundError, match=r"nope\.csv does not exist"):
        read_stsb(tmp_path / "nope.csv")
    with pytest.raises(DataNotFoundError, match="data_dir '.*no-such-folder' does not exist"):
        load_sts("stsb", data_dir=tmp_path / "no-such-folder")


@pytest.mark.parametrize("call, words", [
    (lambda: load_sts("stsbenchmark"), "Unknown data set 'stsbenchmark'. Known: stsb"),
    (lambda: load_sts("stsb", "validation"), "has no split 'validation'; it has train, dev, test"),
    (lambda: load_sts("snli"), "use load_nli('snli')"),
    (lambda: load_nli("stsb"), "use load_sts('stsb')"),
])
def test_wrong_data_set_names_and_splits(call, words):
    with pytest.raises((KeyError, ValueError)) as caught:
        call()
    assert words in str(caught.value)
