"""A run killed while saving never leaves a half-written checkpoint (write to a temporary file, then rename)."""
import os

import pytest
import torch

from sbert_workbook.training import checkpoints


class Killed(Exception):
    pass


def weights(value: float) -> dict:
    return {"layer.weight": torch.full((3, 2), value)}


def test_a_kill_while_writing_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    folder = tmp_path / "checkpoint"
    checkpoints.save_checkpoint(folder, weights(1.0), {"step": torch.tensor(1)}, {"step": 1})

    def dies_half_way(tensors, path, *args, **kwargs):
        with open(path, "wb") as handle:
            handle.write(b"\x00" * 17)  # a torn file
        raise Killed

    monkeypatch.setattr(checkpoints, "save_file", dies_half_way)
    with pytest.raises(Killed):
        checkpoints.save_checkpoint(folder, weights(2.0), {"step": torch.tensor(2)}, {"step": 2})
    state_dict, state, info = checkpoints.load_checkpoint(folder)
    assert info["step"] == 1 and torch.equal(state_dict["layer.weight"], weights(1.0)["layer.weight"])


def test_a_kill_between_the_two_renames_finds_the_old_checkpoint(tmp_path, monkeypatch):
    folder = tmp_path / "checkpoint"
    checkpoints.save_checkpoint(folder, weights(1.0), {"step": torch.tensor(1)}, {"step": 1})
    real_replace = os.replace

    def dies_before_the_new_folder_moves_in(source, target):
        if str(source).endswith(".new") and str(target) == str(folder):
            raise Killed
        return real_replace(source, target)

    monkeypatch.setattr(checkpoints.os, "replace", dies_before_the_new_folder_moves_in)
    with pytest.raises(Killed):
        checkpoints.save_checkpoint(folder, weights(2.0), {"step": torch.tensor(2)}, {"step": 2})
    assert not folder.exists()
    _state_dict, _state, info = checkpoints.load_checkpoint(folder)
    assert info["step"] == 1
