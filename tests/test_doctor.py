"""The doctor gives the right advice for a missing model or missing data, and its exit code says so."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import sbert_workbook.data.finding as finding
import sbert_workbook.data.hub as data_hub
from sbert_workbook.environment import doctor
from sbert_workbook.cli import main
from sbert_workbook.environment.predownload import DEFAULT_MODELS, NeedsNetworkError, hub_data_sources, predownload

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def no_local_data(monkeypatch):
    """No repository data/, no ../shared/data, no $SBERT_WORKBOOK_DATA: only what a test passes."""
    monkeypatch.setattr(finding, "repo_root", lambda: None)
    monkeypatch.delenv(finding.DATA_ENV_VAR, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_a_missing_model_folder_fails_and_says_what_to_pass(tmp_path):
    check = doctor.check_model(str(tmp_path / "no-such-model"))
    assert check.status == "fail" and check.essential
    assert "does not exist" in check.detail and "'embedded'" in check.detail + check.fix


def test_an_uncached_hub_model_offline_points_to_predownload(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    check = doctor.check_model("sbert-workbook-tests/not-a-cached-model")
    assert check.status == "fail"
    assert "predownload --models sbert-workbook-tests/not-a-cached-model" in check.fix
    assert "HF_HUB_OFFLINE=1 forbids downloads" in check.detail


def test_auto_falling_back_to_the_embedded_model_is_reported_with_the_reason(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    check = doctor.check_model("auto")
    if "bert-base-uncased from the hub cache" in check.detail:
        pytest.skip("bert-base-uncased is cached on this machine, so 'auto' does not fall back")
    assert check.status == "warn" and "embedded" in check.detail and "bert-base-uncased" in check.detail
    assert "predownload --models bert-base-uncased" in check.fix


def test_missing_data_names_what_is_missing_and_the_fix(no_local_data, tmp_path):
    check = doctor.check_data("stsb", data_dir=tmp_path)
    assert check.status == "fail" and check.essential
    assert "sts/STSBenchmark" in check.detail and "offline" in check.detail
    assert "SBERT_WORKBOOK_DATA" in check.fix and "predownload" in check.fix


def test_data_cached_by_predownload_is_fine_offline(no_local_data, tmp_path, monkeypatch):
    monkeypatch.setattr(data_hub, "hub_copy_is_cached", lambda name: name == "stsb")
    assert doctor.check_data("sts12", data_dir=tmp_path).status == "fail"
    check = doctor.check_data("stsb", data_dir=tmp_path)
    assert check.status == "ok" and "sentence-transformers/stsb from the datasets cache" in check.detail


def test_a_missing_optional_data_set_only_warns(no_local_data, tmp_path):
    check = doctor.check_data("allnli", data_dir=tmp_path)
    assert check.status == "warn" and not check.essential
    assert "predownload" in check.fix


def test_data_found_says_where(no_local_data, shared_data):
    check = doctor.check_data("sts12", data_dir=shared_data)
    assert check.status == "ok" and str(shared_data / "sts" / "STS12-en-test") in check.detail


def test_the_report_fails_only_on_essential_problems():
    report = doctor.DoctorReport([doctor.Check("widgets", "fail", "x", "pip install ipywidgets")])
    assert report.ok and "fix: pip install ipywidgets" in str(report)
    report.checks.append(doctor.Check("data stsb", "fail", "missing", "set SBERT_WORKBOOK_DATA", essential=True))
    assert not report.ok and "1 essential problem" in str(report)
    assert list(report.table().index) == ["widgets", "data stsb"]


def test_doctor_command_exits_non_zero_for_a_missing_model_and_prints_the_fix(tmp_path, capsys):
    code = main(["doctor", "--model", str(tmp_path / "nothing-here")])
    out = capsys.readouterr().out
    assert code != 0
    assert "✗ model" in out and "does not exist" in out and "essential problem" in out


def test_doctor_command_exits_non_zero_when_data_is_missing(no_local_data, tmp_path, capsys):
    code = main(["doctor", "--model", "embedded", "--data-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code != 0 and "✗ data stsb" in out and "SBERT_WORKBOOK_DATA" in out


def test_doctor_as_a_real_command_passes_here_and_fails_on_a_missing_model(shared_data, tmp_path):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    good = subprocess.run([sys.executable, "-m", "sbert_workbook", "doctor", "--model", "embedded", "--data-dir", str(shared_data)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = subprocess.run([sys.executable, "-m", "sbert_workbook", "doctor", "--model", str(tmp_path / "missing")],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "fix:" in bad.stdout


def test_predownload_offline_says_it_needs_the_network(monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(NeedsNetworkError, match="needs the network"):
        predownload(["bert-base-uncased"])
    assert main(["predownload"]) != 0
    assert "needs the network" in capsys.readouterr().err


def test_predownload_fetches_each_model_and_each_hub_data_set_once(monkeypatch):
    import datasets
    import huggingface_hub

    from sbert_workbook.encoding.resolve import HUB_FILE_PATTERNS

    calls = []
    monkeypatch.setattr("sbert_workbook.settings.hub_is_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo, allow_patterns: calls.append(("model", repo, allow_patterns)) or "/x")
    monkeypatch.setattr(datasets, "load_dataset", lambda hub_id, config: calls.append(("data", hub_id, config)))
    fetched = predownload(DEFAULT_MODELS, log=lambda _: None)
    models = [c for c in calls if c[0] == "model"]
    assert [m[1] for m in models] == list(DEFAULT_MODELS) and all(m[2] == HUB_FILE_PATTERNS for m in models)
    hub = [(c[1], c[2]) for c in calls if c[0] == "data"]
    assert ("sentence-transformers/all-nli", "pair-class") in hub and len(hub) == len(set(hub))  # SNLI+MNLI share it
    assert {e.hub_id for e in hub_data_sources()} == {h for h, _ in hub}
    assert "mteb/sts12-sts" in {h for h, _ in hub} and len(fetched) == len(models) + len(hub)


def test_the_widget_check_figure_draws_vectors_at_the_requested_angle():
    import math

    figure = doctor.widget_check_figure(60)
    u, v = figure.data
    assert (u.x[1], u.y[1]) == (1.0, 0.0)
    assert v.x[1] == pytest.approx(0.5) and v.y[1] == pytest.approx(math.sqrt(3) / 2)
    assert "cos = 0.500" in figure.layout.title.text


def test_the_onnx_backend_check_reports_the_version_or_how_to_install_it(monkeypatch):
    import onnxruntime

    found = doctor.check_onnx_backend()
    assert found.status == "ok" and onnxruntime.__version__ in found.detail
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    missing = doctor.check_onnx_backend()
    assert missing.status == "warn" and not missing.essential
    assert "pip install onnx onnxruntime" in missing.fix and "backend='torch' works" in missing.detail


def test_doctor_says_what_the_notebooks_take_here_with_its_model(monkeypatch):
    """The time row: each notebook's quick mode predicted on this machine with the model the check names."""
    from sbert_workbook.environment.doctor import check_time

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    check = check_time("embedded")
    assert check.status == "ok" and "all-MiniLM-L6-v2" in check.detail and "probed here in" in check.detail
    assert all(f"{number} " in check.detail for number in ("00", "04", "05"))
    assert check_time("no/such-model").status == "warn"
