"""The forecast: work declared from sizes, the probe, the prediction, and the mode ``QUICK = "auto"`` picks.

Checked against hand computation, against transformers' own parameter count, and against each lesson's manifest;
how close the predictions come to measured runs is docs/measurements.md's table (tools/forecast_check.py), not a
timed test.
"""
from __future__ import annotations

import json

import pytest
import torch

from sbert_workbook.forecast import predict as forecast_predict
from sbert_workbook.forecast.cells import names_call
from sbert_workbook.forecast.predict import NotEnoughTimeError, budget_s, choose_mode, duration, predict
from sbert_workbook.forecast.probe import Rates, stated_gpu_rates
from sbert_workbook.forecast.reference import STATED_GPUS
from sbert_workbook.forecast.work import ModelShape, Step, cpu, encode, train

BERT_BASE = ModelShape("bert-base-uncased", 12, 768, 3072)
MINILM = ModelShape("all-MiniLM-L6-v2", 6, 384, 1536)


def rates(encode_s=1e-3, train_s=3e-3, cpu_factor=2.0, embedded_encode_s=1e-4) -> Rates:
    return Rates("a test machine", {"lesson": encode_s, "embedded": embedded_encode_s},
                 {"lesson": train_s, "embedded": 3 * embedded_encode_s}, cpu_factor, "made up for the test")


def test_work_is_counted_in_tokens_and_reference_seconds():
    assert encode("3", "f", "STS-B test", sentences=100, tokens_each=14).units == 1400
    assert train("5", "g", "NLI", steps=10, examples=16, tokens_each_example=32).units == 10 * 16 * 32
    assert cpu("7", "h", "flows", seconds=12.5).units == 12.5
    with pytest.raises(ValueError, match="kind 'gpu' is not one of"):
        Step("1", "f", "x", "gpu", 1.0)
    with pytest.raises(ValueError, match="work is a number >= 0"):
        cpu("1", "f", "x", -1)


def test_a_prediction_is_units_times_the_rate_of_their_kind_and_model():
    steps = [encode("1", "a", "x", 1000, 10), train("2", "b", "y", 2, 5, 100), cpu("2", "c", "z", 30),
             encode("3", "d", "w", 1000, 10, model="embedded")]
    forecast = predict(steps, rates(), "quick")
    assert forecast.seconds == pytest.approx((10.0, 3.0, 60.0, 1.0))
    assert forecast.total_s == pytest.approx(74.0)
    assert forecast.section_seconds() == pytest.approx({"1": 10.0, "2": 63.0, "3": 1.0})
    assert forecast.call_seconds("c") == pytest.approx(60.0) and forecast.call_seconds("nothing") == 0


def test_the_shape_counts_the_weights_every_token_multiplies():
    """Against transformers' own count of a BERT's attention and feed-forward weight matrices."""
    from transformers import BertConfig, BertModel

    config = BertConfig(hidden_size=64, num_hidden_layers=3, num_attention_heads=2, intermediate_size=256)
    model = BertModel(config)
    counted = sum(p.numel() for name, p in model.encoder.named_parameters() if name.endswith("weight") and p.dim() == 2)
    assert ModelShape("small", 3, 64, 256).parameters == counted
    assert BERT_BASE.parameters == 84_934_656


def test_a_stated_gpu_is_priced_from_its_peak_and_says_it_was_not_measured():
    t4 = stated_gpu_rates("T4", {"lesson": BERT_BASE})
    assert t4.train_s_per_token["lesson"] == pytest.approx(6 * BERT_BASE.parameters / (65e12 * 0.2))
    assert t4.encode_s_per_token["lesson"] == pytest.approx(t4.train_s_per_token["lesson"] / 3)
    assert "not measured" in t4.where and "datasheet" in t4.source
    a100 = stated_gpu_rates("A100", {"lesson": BERT_BASE})
    assert a100.train_s_per_token["lesson"] < t4.train_s_per_token["lesson"]
    with pytest.raises(KeyError, match="known GPUs are T4, A100"):
        stated_gpu_rates("V100", {"lesson": BERT_BASE})
    assert set(STATED_GPUS) == {"T4", "A100"}


def test_auto_runs_the_largest_mode_that_fits_and_stops_when_none_does():
    def forecast(mode, seconds):
        return predict([cpu("1", "f", "x", seconds)], rates(cpu_factor=1.0), mode)

    three = {"quick": forecast("quick", 60), "session": forecast("session", 600), "full": forecast("full", 6000)}
    assert choose_mode(three, budget=900) == "session"
    assert choose_mode(three, budget=6000) == "full"
    assert choose_mode(three, budget=60) == "quick"
    assert choose_mode({"quick": forecast("quick", 60), "full": forecast("full", 600)}, budget=900) == "full"
    with pytest.raises(NotEnoughTimeError, match="quick mode is predicted to take 2 min here, beyond the budget of 45 s"):
        choose_mode(three | {"quick": forecast("quick", 120)}, budget=45)


def test_the_budget_comes_from_the_environment_and_bad_values_say_what_to_do(monkeypatch):
    monkeypatch.delenv(forecast_predict.BUDGET_ENV_VAR, raising=False)
    assert budget_s() == 15 * 60
    monkeypatch.setenv(forecast_predict.BUDGET_ENV_VAR, "40")
    assert budget_s() == 40 * 60
    monkeypatch.setenv(forecast_predict.BUDGET_ENV_VAR, "half an hour")
    with pytest.raises(ValueError, match="is not a number of minutes: set it to e.g. 15"):
        budget_s()
    with pytest.raises(ValueError, match="positive number of minutes"):
        budget_s(0)


def test_durations_read_as_a_student_reads_them():
    assert [duration(s) for s in (4.2, 89, 240, 5399, 5400, 111_600)] == ["4 s", "89 s", "4 min", "90 min", "1.5 h", "31.0 h"]


def test_the_probe_times_a_model_built_from_its_config_alone(tmp_path):
    """A small BERT's config.json, no weights: the probe builds it with random weights and times it here."""
    from transformers import BertConfig

    from sbert_workbook.forecast.probe import probe_rates

    BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
               vocab_size=2000).save_pretrained(tmp_path)
    probed = probe_rates({"lesson": ("tiny", tmp_path), "embedded": ("tiny", tmp_path)}, torch.device("cpu"))
    assert probed.encode_s_per_token["lesson"] == probed.encode_s_per_token["embedded"] > 0, "one model, timed once"
    assert probed.train_s_per_token["lesson"] > 0 and probed.cpu_factor > 0
    assert probed.source.startswith("probed here in") and probed.probe_s > 0


def test_a_long_cell_prints_its_prediction_before_and_its_time_after(capsys, monkeypatch, tmp_path):
    from types import SimpleNamespace

    from sbert_workbook.forecast import cells

    log = tmp_path / "forecast.jsonl"
    monkeypatch.setenv(cells.LOG_ENV_VAR, str(log))
    forecast = predict([cpu("7", "seven_set_tables(", "flows", 85), cpu("8", "lexical_table(", "bootstraps", 2)],
                       rates(cpu_factor=1.0), "quick")
    clock = cells.CellClock("05_bert_flow", forecast)
    clock.before(SimpleNamespace(raw_cell="tables = nb05.seven_set_tables(lesson)  # every calibrator"))
    clock.after()
    clock.before(SimpleNamespace(raw_cell="lexical = nb05.lexical_table(lesson, distances)"))
    clock.after()
    clock.before(SimpleNamespace(raw_cell="x = 1"))
    clock.after()
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "⏱ predicted on this machine: about 85 s"
    assert printed[1].startswith("⏱ took 0 s (predicted 85 s)") and len(printed) == 2, "short cells say nothing"
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["calls"] for r in logged] == [["seven_set_tables("], ["lexical_table("]]
    assert logged[0]["predicted_s"] == 85


def test_a_cell_clock_counts_a_call_only_where_the_cell_names_it_whole():
    """06 runs unsupervised_runs( and supervised_runs( in two cells: the first cell's name ends with the second's,
    and its clock once predicted both runs (and the second cell's time counted no step at all)."""
    from types import SimpleNamespace

    from sbert_workbook.forecast import cells

    forecast = predict([cpu("2", "unsupervised_runs(", "unsup", 30), cpu("4", "supervised_runs(", "sup", 70)],
                       rates(cpu_factor=1.0), "quick")
    clock = cells.CellClock("06_contrastive_simcse", forecast)
    assert clock.predicted_for("runs = nb06.unsupervised_runs(lesson)") == (["unsupervised_runs("], 30)
    assert clock.predicted_for("supervised = nb06.supervised_runs(lesson)") == (["supervised_runs("], 70)
    assert clock.predicted_for("supervised_runs(lesson)") == (["supervised_runs("], 70), "at a line's start too"
    assert not cells.names_call("unsupervised_runs(x)", "supervised_runs(")


def test_cell_clocks_replace_each_other_in_one_kernel():
    from IPython.core.events import EventManager
    from IPython.core.events import available_events

    from sbert_workbook.forecast import cells

    class Shell:
        events = EventManager(None, available_events)

    forecast = predict([cpu("1", "f(", "x", 1)], rates(), "quick")
    first, second = cells.CellClock("a", forecast), cells.CellClock("b", forecast)
    import IPython

    original = IPython.get_ipython
    IPython.get_ipython = lambda: Shell
    try:
        assert cells.install(first) and cells.install(second)
    finally:
        IPython.get_ipython = original
    owners = [callback.__self__ for callback in Shell.events.callbacks["pre_run_cell"]]
    assert owners == [second]


@pytest.fixture
def bert_base_in_the_cache(tmp_path, monkeypatch):
    """bert-base-uncased's config.json in an offline hub cache: what `auto` resolves to online (no weights: a stated GPU
    is priced from the shape alone)."""
    from huggingface_hub import constants

    snapshot = tmp_path / "hub" / "models--bert-base-uncased" / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
                                                      "intermediate_size": 3072, "vocab_size": 30522}))
    (tmp_path / "hub" / "models--bert-base-uncased" / "refs").mkdir()
    (tmp_path / "hub" / "models--bert-base-uncased" / "refs" / "main").write_text("0" * 40)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv("SBERT_WORKBOOK_QUICK", raising=False)
    monkeypatch.delenv(forecast_predict.BUDGET_ENV_VAR, raising=False)


@pytest.mark.parametrize("gpu", ["T4", "A100"])
def test_auto_on_a_mocked_gpu_runs_the_largest_tier_the_forecast_says_fits(gpu, bert_base_in_the_cache, monkeypatch, capsys):
    """A CUDA device priced at the GPU's stated throughput: 04's papers' recipe (an AllNLI epoch per seed) does not fit
    15 minutes, its session sizes do; a lesson whose full mode is short runs it."""
    from sbert_workbook.forecast.lessons import lesson_forecasts, lesson_mode
    from sbert_workbook.lessons.manifest import manifest

    monkeypatch.setenv("SBERT_WORKBOOK_STATED_GPU", gpu)
    cuda = torch.device("cuda")
    chosen = {}
    for number in ("00", "04"):
        lesson = manifest(number)
        forecasts = lesson_forecasts(lesson, None, "bert-base-uncased", cuda)
        chosen[number] = lesson_mode(lesson, "auto", cuda, forecasts, "bert-base-uncased")
        fitting = [m for m in ("full", "session", "quick") if m in forecasts and forecasts[m].total_s <= 15 * 60]
        assert chosen[number] == fitting[0]
    assert chosen == {"00": "full", "04": "session"}
    printed = capsys.readouterr().out
    assert f"NVIDIA {gpu} (stated, not measured)" in printed and "session ≈" in printed


def test_not_even_quick_mode_fitting_stops_before_anything_long_and_says_what_would(bert_base_in_the_cache, monkeypatch):
    from sbert_workbook.forecast.lessons import lesson_forecasts, lesson_mode
    from sbert_workbook.lessons.manifest import manifest

    lesson = manifest("05")
    slow = Rates("a slow CPU", {"lesson": 1e-2, "embedded": 1e-5}, {"lesson": 3e-2, "embedded": 3e-5}, 1.0, "made up",
                 models={"lesson": "bert-base-uncased"})
    forecasts = lesson_forecasts(lesson, None, "bert-base-uncased", torch.device("cpu"), rates=slow)
    with pytest.raises(NotEnoughTimeError) as stopped:
        lesson_mode(lesson, "auto", torch.device("cpu"), forecasts, "bert-base-uncased")
    message = str(stopped.value)
    assert "Nothing long has started" in message and 'MODEL = "embedded"' in message and "QUICK = True" in message
    assert "§1 ≈" in message, "it names the section that takes the time"
    assert lesson_mode(lesson, True, torch.device("cpu"), forecasts, "bert-base-uncased") == "quick", "QUICK = True runs it"


def _every_step():
    """Every step every lesson declares, in every mode, for the embedded model and bert-base, on a CPU and a GPU."""
    from sbert_workbook.forecast.work import EMBEDDED, Plan
    from sbert_workbook.lessons.manifest import all_manifests

    for lesson in all_manifests():
        if lesson.work is None:
            continue
        for mode in ("quick", "session", "full", "full_on_cpu"):
            for shape, embedded in ((EMBEDDED, True), (BERT_BASE, False)):
                for device in ("cpu", "cuda"):
                    for step in lesson.work(lesson.sizes_for(mode), Plan(mode, shape, device, embedded)):
                        yield lesson, step


def test_every_steps_call_is_code_in_its_notebooks_cells():
    """A step's call is what the cell clock looks for in the cell that runs it: it must be there."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    cells: dict[str, str] = {}
    for lesson, step in _every_step():
        if lesson.notebook not in cells:
            notebook = json.loads((repo / "notebooks" / f"{lesson.notebook}.ipynb").read_text(encoding="utf-8"))
            cells[lesson.notebook] = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
        assert not step.call or names_call(cells[lesson.notebook], step.call), f"{lesson.notebook}: no cell runs {step.call!r}"


def test_every_cpu_rate_a_lesson_names_is_in_the_calibration():
    from sbert_workbook.forecast.reference import cpu_seconds

    named = {step.per[0] for _, step in _every_step() if step.per}
    assert named <= set(cpu_seconds()), f"not calibrated: {sorted(named - set(cpu_seconds()))}"



def test_the_shipped_calibration_was_measured():
    """The rates a student's prediction is built on come from tools/forecast_check.py --calibrate, not placeholders."""
    from sbert_workbook.forecast.reference import calibration

    measured = calibration()
    assert not measured.get("provisional"), measured["measured"]
    assert all(rate["seconds"] >= 0 and rate["unit"] != "provisional" for rate in measured["rates"].values())


def test_the_lessons_encode_factor_prices_every_encode_and_nothing_else(monkeypatch):
    """The factor measured on the lessons' own encodes multiplies the encode rate of the probe and of the reference
    rates, and leaves training and CPU work alone."""
    from sbert_workbook.forecast import probe, reference
    from sbert_workbook.forecast.lessons import reference_forecast
    from sbert_workbook.forecast.work import EMBEDDED
    from sbert_workbook.lessons.manifest import manifest

    shipped = reference.calibration()

    def calibrated(factor):
        stored = {**shipped, "lesson encode factor": {"factor": factor}}
        monkeypatch.setattr(reference, "calibration", lambda: stored)
        monkeypatch.setattr(probe, "calibration", lambda: stored)

    lesson = manifest("05_bert_flow")
    calibrated(1.0)
    plain = reference_forecast(lesson, EMBEDDED)
    calibrated(2.5)
    scaled = reference_forecast(lesson, EMBEDDED)
    for step, before, after in zip(plain.steps, plain.seconds, scaled.seconds):
        assert after == pytest.approx(before * (2.5 if step.kind == "encode" else 1.0)), step.what
    monkeypatch.setattr(probe, "time_model", lambda folder, device: (1e-3, 2e-3))
    monkeypatch.setattr(probe, "cpu_workload", lambda: shipped["cpu workload s"])
    probed = probe.probe_rates({"lesson": ("m", "/x"), "embedded": ("m", "/x")}, torch.device("cpu"))
    assert probed.encode_s_per_token["lesson"] == pytest.approx(1e-3 * shipped["efficiency"]["encode"] * 2.5)
    assert probed.train_s_per_token["lesson"] == pytest.approx(2e-3 * shipped["efficiency"]["train"])


def test_the_encode_factor_is_fitted_on_the_cells_that_mostly_encode():
    """Hand-computed: only cells predicted at 5 s or more, at least 80 % of it encoding, naming no lesson's own rate,
    count; a step is counted in the first cell that names it (06's supervised_runs( is not inside unsupervised_runs()."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tools.forecast_check import encode_cells, records_of

    forecast = predict([encode("1", "encode_once(", "x", 1000, 10), cpu("1", "encode_once(", "y", 1),
                        encode("2", "unsupervised_runs(", "z", 100, 10), cpu("4", "supervised_runs(", "w", 20),
                        encode("5", "small(", "v", 100, 1), encode("6", "table(", "t", 1000, 10),
                        Step("6", "table(", "its own CPU work", "cpu", 1.0, per=("03 table1 pair", 100))],
                       rates(encode_s=1e-3, cpu_factor=1.0), "quick")
    cells = [("bank = nb05.encode_once(lesson)", 14.0),  # 10 s encode + 1 s CPU: counts, 14 / 11
             ("again = nb05.encode_once(lesson)", 99.0),  # already counted in the first cell
             ("runs = nb06.unsupervised_runs(lesson)", 3.0),  # 1 s predicted: under 5 s
             ("sup = nb06.supervised_runs(lesson)", 30.0),  # CPU work only
             ("x = small(3)", 9.0),  # 0.1 s predicted
             ("rows = nb03.table(lesson)", 40.0)]  # mostly encoding, but names 03's own rate
    assert encode_cells(forecast, cells) == (14.0, pytest.approx(11.0))
    assert records_of(cells, forecast)[2:4] == [{"calls": ["unsupervised_runs("], "took_s": 3.0},
                                                {"calls": ["supervised_runs("], "took_s": 30.0}]
