"""run_ablation (notebook 04 §6): each variant scored once after its last step, the same number fit's own dev
evaluation gives, and nothing written to disk when checkpoints are off (the bert-base stand-in's budget)."""
from __future__ import annotations

import pytest

import sbert_workbook as sbw
from sbert_workbook.training.ablations import run_ablation
from sbert_workbook.training.examples import nli_pairs
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.siamese import SiameseModel

TINY = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}


def tiny_model(pooling="mean", parts=("u", "v", "|u-v|")) -> SiameseModel:
    model = SiameseModel.from_scratch(device="cpu", seed=0, pooling=pooling, **TINY)
    model.add_classifier(3, parts)
    return model


@pytest.fixture(scope="module")
def data(shared_data):
    return nli_pairs(sbw.load_nli("snli", data_dir=shared_data, limit=32)), sbw.load_sts("stsb", "dev", data_dir=shared_data, limit=24)


def test_each_variant_scores_what_fits_dev_evaluation_scores_and_writes_nothing(data, tmp_path):
    examples, dev = data
    config = TrainingConfig(batch_size=8, learning_rate=1e-3, max_steps=2, progress=False, device="cpu", save_checkpoints=False)
    variants = [("mean", ("u", "v", "|u-v|")), ("max", ("u", "v"))]
    table = run_ablation(tiny_model, variants, examples, dev, config, tmp_path / "ablation")
    assert [(row.pooling, row.concatenation, row.steps) for row in table.itertuples()] == [
        ("mean", "(u, v, |u-v|)", 2), ("max", "(u, v)", 2)]
    assert not [path for path in tmp_path.rglob("*") if path.is_file()], "the ablation wrote files with checkpoints off"
    for (pooling, parts), score in zip(variants, table["dev_spearman"]):  # fit's own evaluation at the last step
        reference = fit(tiny_model(pooling, parts), examples, "softmax", config, dev=dev, output_dir=tmp_path / pooling)
        assert reference.history["dev_spearman"][-1] == pytest.approx(score, abs=1e-9)
