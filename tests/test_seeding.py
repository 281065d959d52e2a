"""Building a model from a seed never resets the caller's random stream: set_seed stays the one seeding point."""
from __future__ import annotations

import torch

from sbert_workbook.calibration.calibrators import FlowCalibrator
from sbert_workbook.training.siamese import SiameseModel

TINY = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}


def test_seeded_builders_leave_the_global_generator_alone_and_are_reproducible():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    first = SiameseModel.from_scratch(device="cpu", seed=0, **TINY)
    first.add_classifier(seed=0)
    FlowCalibrator(levels=1, depth=1)._build(8)
    assert torch.equal(torch.get_rng_state(), before)
    second = SiameseModel.from_scratch(device="cpu", seed=0, **TINY)
    second.add_classifier(seed=0)
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values()))
