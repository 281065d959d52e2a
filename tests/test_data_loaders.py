"""Loaders on the real reference files (row counts from ../shared/data/README.md) and data resolution."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sbert_workbook.data import DataFormatError, DataNotFoundError, StsData, finding, load_nli, load_sts
from sbert_workbook.data.readers import read_nli_jsonl

PUBLISHED_COUNTS = {"sts12": 3108, "sts13": 1500, "sts14": 3750, "sts15": 3000, "sts16": 1186}


@pytest.mark.parametrize("name,pairs", PUBLISHED_COUNTS.items())
def test_senteval_years_have_the_published_number_of_scored_pairs(shared_data, name, pairs):
    sts = load_sts(name)
    assert len(sts) == pairs == len(sts.sentences1) == len(sts.sentences2) == len(sts.subsets)
    assert 0 <= sts.scores.min() and sts.scores.max() <= 5


def test_senteval_skips_gold_without_input_and_unscored_pairs(shared_data):
    assert "ALL" not in load_sts("sts12").subset_names()
    assert "SMT" not in load_sts("sts13").subset_names()
    sts16 = load_sts("sts16")
    assert set(sts16.subset_names()) == {"answer-answer", "headlines", "plagiarism", "postediting", "question-question"}


@pytest.mark.parametrize("split,pairs", [("train", 5749), ("dev", 1500), ("test", 1379)])
def test_stsb_splits(shared_data, split, pairs):
    stsb = load_sts("stsb", split)
    assert len(stsb) == pairs
    assert stsb.sentences1[0] and stsb.sentences2[0]


def test_stsb_first_test_pair_matches_the_file(shared_data):
    stsb = load_sts("stsb", "test")
    assert (stsb.sentences1[0], stsb.sentences2[0], stsb.scores[0]) == (
        "A girl is styling her hair.", "A girl is brushing her hair.", 2.5)


@pytest.mark.parametrize("split,pairs", [("train", 4439), ("trial", 495), ("test", 4906)])
def test_sick_relatedness_and_entailment_by_semeval_set(shared_data, split, pairs):
    sick = load_sts("sickr", split)
    assert len(sick) == pairs and 1 <= sick.scores.min() and sick.scores.max() <= 5
    assert len(load_nli("sick_nli", split)) == pairs


@pytest.mark.parametrize("name,pairs", [("snli", 9842), ("mnli", 9815)])
def test_nli_dev_sets(shared_data, name, pairs):
    nli = load_nli(name)
    assert len(nli) == pairs
    assert set(nli.labels) == {"entailment", "neutral", "contradiction"}
    assert nli.label_ids().max() == 2


def test_sample_is_seeded_and_keeps_file_order():
    n = 500
    full = StsData("toy", "test", [f"s{i}" for i in range(n)], [f"t{i}" for i in range(n)],
                   np.linspace(0, 5, n), ["x"] * n)
    first, again, other = full.sample(100, seed=1), full.sample(100, seed=1), full.sample(100, seed=2)
    assert first.sentences1 == again.sentences1 != other.sentences1 and len(first) == 100
    positions = [int(s[1:]) for s in first.sentences1]
    assert positions == sorted(positions) and first.sentences2 == [f"t{i}" for i in positions]
    assert np.allclose(first.scores, full.scores[positions])


def test_resolution_order_explicit_then_env_then_shared(shared_data, tmp_path, monkeypatch):
    explicit = tmp_path / "explicit"
    (explicit / "sts").mkdir(parents=True)
    shutil.copytree(shared_data / "sts" / "STS16-en-test", explicit / "sts" / "STS16-en-test")
    lines = (explicit / "sts/STS16-en-test/STS.gs.headlines.txt").read_text().splitlines()
    (explicit / "sts/STS16-en-test/STS.gs.headlines.txt").write_text("\n".join(["" for _ in lines]) + "\n")
    env_root = tmp_path / "env"
    shutil.copytree(explicit, env_root)
    shutil.rmtree(env_root / "sts/STS16-en-test")
    monkeypatch.setenv(finding.DATA_ENV_VAR, str(env_root))
    # explicit wins (its headlines subset has no scored pair), the env root lacks STS16, the shared copy has it all
    assert "headlines" not in load_sts("sts16", data_dir=explicit).subset_names()
    assert "headlines" in load_sts("sts16").subset_names()
    assert finding.data_roots()[0][0] == "$SBERT_WORKBOOK_DATA"


def test_missing_data_offline_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(finding, "repo_root", lambda: None)
    monkeypatch.setenv(finding.DATA_ENV_VAR, str(tmp_path))
    with pytest.raises(DataNotFoundError) as error:
        load_sts("sts14")
    message = str(error.value)
    assert str(tmp_path / "sts/STS14-en-test") in message and "mteb/sts14-sts" in message
    assert "SBERT_WORKBOOK_DATA" in message and "predownload" in message


def test_hub_fallback_maps_columns_and_rescales_stsb(monkeypatch, tmp_path):
    import datasets as hf_datasets

    calls = []

    def fake_load_dataset(repo, config=None, split=None):
        calls.append((repo, config, split))
        if repo == "sentence-transformers/stsb":
            return {"sentence1": ["a", "b"], "sentence2": ["c", "d"], "score": [0.2, 1.0]}
        return {"premise": ["p"], "hypothesis": ["h"], "label": [2]}

    monkeypatch.setattr(finding, "repo_root", lambda: None)
    monkeypatch.delenv(finding.DATA_ENV_VAR, raising=False)
    monkeypatch.setattr(hf_datasets, "load_dataset", fake_load_dataset)
    monkeypatch.setattr("sbert_workbook.settings.hub_is_reachable", lambda timeout_s=2.0: True)
    stsb = load_sts("stsb", "dev")
    assert np.allclose(stsb.scores, [1.0, 5.0]) and stsb.origin == "hub:sentence-transformers/stsb"
    assert load_nli("snli").labels == ["contradiction"]
    assert calls == [("sentence-transformers/stsb", None, "validation"), ("sentence-transformers/all-nli", "pair-class", "dev")]


def test_wrong_kind_and_split_are_explained(shared_data):
    with pytest.raises(ValueError, match="load_nli"):
        load_sts("snli")
    with pytest.raises(ValueError, match="has no split 'validation'"):
        load_sts("stsb", "validation")
    with pytest.raises(KeyError, match="Known:"):
        load_sts("sts17")


def test_jsonl_reader_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"premise": "p", "hypothesis": "h", "label": "entailment"}) + "\n{not json\n")
    with pytest.raises(DataFormatError, match=r"bad.jsonl, line 2"):
        read_nli_jsonl(path)


def test_offline_a_hub_data_set_comes_from_the_datasets_cache_without_network(monkeypatch):
    import datasets as hf_datasets
    from huggingface_hub import constants

    seen_offline_flags = []

    def cached_load_dataset(repo, config=None, split=None):
        seen_offline_flags.append((constants.HF_HUB_OFFLINE, hf_datasets.config.HF_HUB_OFFLINE))
        if repo == "mteb/sts13-sts":
            raise FileNotFoundError("Couldn't find a dataset script or cached copy")  # what datasets raises
        return {"sentence1": ["a", "b"], "sentence2": ["c", "d"], "score": [1.0, 4.0]}

    monkeypatch.setattr(finding, "repo_root", lambda: None)
    monkeypatch.delenv(finding.DATA_ENV_VAR, raising=False)
    monkeypatch.setattr(hf_datasets, "load_dataset", cached_load_dataset)
    monkeypatch.setattr("sbert_workbook.settings.hub_is_reachable", lambda timeout_s=2.0: False)
    flags_before = constants.HF_HUB_OFFLINE, hf_datasets.config.HF_HUB_OFFLINE
    assert load_sts("sts12").origin == "hub:mteb/sts12-sts"
    with pytest.raises(DataNotFoundError, match="not in the datasets cache"):
        load_sts("sts13")
    assert seen_offline_flags == [(True, True), (True, True)]
    assert (constants.HF_HUB_OFFLINE, hf_datasets.config.HF_HUB_OFFLINE) == flags_before


def test_allnli_train_offline_and_uncached_is_a_clear_data_not_found(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    with pytest.raises(DataNotFoundError, match="sentence-transformers/all-nli"):
        load_nli("allnli", "train")


def test_limit_means_the_same_seeded_random_sample_in_both_loaders(shared_data):
    sts, nli = load_sts("sickr", "test"), load_nli("sick_nli", "test")  # the same rows of SICK.txt
    sts_sample, nli_sample = load_sts("sickr", "test", limit=50), load_nli("sick_nli", "test", limit=50)
    assert len(sts_sample) == len(nli_sample) == 50
    assert sts_sample.sentences1 == nli_sample.premises  # the same rows drawn: one meaning of limit
    assert sts_sample.sentences1 != sts.sentences1[:50]  # a sample, not the first rows
    keep = np.sort(np.random.default_rng(0).choice(len(nli), size=50, replace=False))  # independent: seed 0, file order
    assert nli_sample.premises == [nli.premises[i] for i in keep] and nli_sample.labels == [nli.labels[i] for i in keep]
    assert nli.first(50).premises == nli.premises[:50] and sts.first(50).sentences1 == sts.sentences1[:50]


def test_the_demo_pairs_come_from_the_package_when_no_data_root_exists(monkeypatch):
    """As on Colab: no checkout, no $SBERT_WORKBOOK_DATA; the demo set ships inside the package (03, section 1)."""
    monkeypatch.setattr(finding, "repo_root", lambda: None)
    monkeypatch.delenv(finding.DATA_ENV_VAR, raising=False)
    assert [label for label, _ in finding.data_roots()] == ["the workbook package's own files"]
    demo = load_sts("demo", "all")
    assert len(demo) == 150
    assert finding.find_local("demo") == Path(finding.__file__).parent / "shipped" / "demo_sts_pairs.tsv"
