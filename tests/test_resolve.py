"""Model resolution: offline, fast, and saying what it chose and why."""
from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from sbert_workbook.encoding import resolve as models
from sbert_workbook.encoding.resolve import ModelNotFoundError, resolve_model


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def empty_hub_cache(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


def _fake_cached_model(cache: Path, model_id: str, source_folder: Path) -> Path:
    """Lay out ``source_folder`` as the Hugging Face cache does: refs/main -> snapshots/<commit>/."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / f"models--{model_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for item in source_folder.iterdir():
        (snapshot / item.name).symlink_to(item)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snapshot


def test_auto_falls_back_to_the_embedded_model_offline_and_says_why(no_network, empty_hub_cache):
    resolved = resolve_model("auto")
    assert resolved.source == "embedded package"
    assert resolved.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert "bert-base-uncased" in resolved.reason and "HF_HUB_OFFLINE" in resolved.reason
    assert (resolved.path / "config.json").is_file()


def test_auto_prefers_bert_base_uncased_when_it_is_cached(no_network, empty_hub_cache):
    snapshot = _fake_cached_model(empty_hub_cache, "bert-base-uncased", models.embedded_model_path())
    resolved = resolve_model("auto")
    assert resolved.source == "hub cache" and resolved.path == snapshot
    assert resolved.revision == snapshot.name and "bert-base-uncased" in resolved.reason


def test_a_hub_id_in_the_cache_loads_without_network(no_network, empty_hub_cache):
    _fake_cached_model(empty_hub_cache, "someone/tiny-bert", models.embedded_model_path())
    assert resolve_model("someone/tiny-bert").source == "hub cache"


def test_an_unknown_model_fails_fast_with_advice(no_network, empty_hub_cache):
    started = time.perf_counter()
    with pytest.raises(ModelNotFoundError) as error:
        resolve_model("no-such-org/no-such-model")
    assert time.perf_counter() - started < 5, "offline resolution must not wait on the network"
    message = str(error.value)
    assert "no-such-org/no-such-model" in message and "HF_HUB_OFFLINE" in message
    assert "predownload" in message and "folder" in message and "embedded" in message


def test_unreachable_hub_is_detected_without_the_offline_flag(monkeypatch, empty_hub_cache):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.invalid")
    with pytest.raises(ModelNotFoundError, match="unreachable"):
        resolve_model("no-such-org/no-such-model")


def test_embedded_aliases_resolve_to_the_packaged_copy(no_network, empty_hub_cache):
    for name in ("embedded", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        assert resolve_model(name).source == "embedded package"


def test_a_local_folder(tmp_path):
    resolved = resolve_model(str(models.embedded_model_path()))
    assert resolved.source == "local folder"
    with pytest.raises(ModelNotFoundError, match="no config.json"):
        resolve_model(str(tmp_path))
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        resolve_model(str(tmp_path / "missing" / "model"))
    with pytest.raises(ModelNotFoundError, match="empty"):
        resolve_model("  ")


def test_auto_follows_sbert_workbook_model_where_it_is_set(no_network, empty_hub_cache, monkeypatch):
    """binder/start sets SBERT_WORKBOOK_MODEL=embedded: auto then skips a bert-base-uncased it could load."""
    _fake_cached_model(empty_hub_cache, "bert-base-uncased", models.embedded_model_path())
    monkeypatch.setenv(models.AUTO_MODEL_ENV_VAR, "embedded")
    resolved = resolve_model("auto")
    assert resolved.source == "embedded package" and resolved.requested == "auto"
    assert "SBERT_WORKBOOK_MODEL=embedded" in resolved.reason
    assert models.auto_model_name() == "embedded"
    monkeypatch.setenv(models.AUTO_MODEL_ENV_VAR, "auto")  # "auto" itself means the usual choice
    assert resolve_model("auto").model_id == "bert-base-uncased" == models.auto_model_name()


def test_auto_model_name_says_the_choice_without_loading(no_network, empty_hub_cache, monkeypatch):
    monkeypatch.delenv(models.AUTO_MODEL_ENV_VAR, raising=False)
    assert models.auto_model_name() == "embedded"  # nothing cached, no hub
    _fake_cached_model(empty_hub_cache, "bert-base-uncased", models.embedded_model_path())
    assert models.auto_model_name() == "bert-base-uncased"
