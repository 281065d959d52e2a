"""binder/ builds what the workbook is tested with: the runtime's Python is one pyproject allows, constraints.txt
holds the install and no pin contradicts it, torch is the CPU build from PyTorch's index, and the workbook is installed.

``./workbook binder-check`` installs from these files and runs notebook 00 and a classroom page
(sbert_workbook/installs/binder_check.py); these tests read the files only, so they run in a second.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from sbert_workbook.installs.binder_check import constraint_files, pin_disagreements, requirement_pins, runtime_python

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = (ROOT / "binder" / "requirements.txt").read_text(encoding="utf-8")
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def test_the_runtime_python_is_one_pyproject_allows():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    version = runtime_python((ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8"))
    assert version in SpecifierSet(requires), f"binder/runtime.txt's Python {version} is outside requires-python {requires}"


def test_constraints_txt_holds_the_install():
    assert constraint_files(REQUIREMENTS, ROOT / "binder") == [ROOT / "constraints.txt"], (
        "binder/requirements.txt must apply the quick start's pins: a line `-c ../constraints.txt`")


def test_no_pin_contradicts_constraints_txt():
    constraints = requirement_pins((ROOT / "constraints.txt").read_text(encoding="utf-8"))
    assert "torch" in constraints, "constraints.txt pins no torch: the pin reader or the file is wrong"
    assert not pin_disagreements(requirement_pins(REQUIREMENTS), constraints)


def test_torch_is_the_cpu_build_from_pytorchs_index():
    lines = [line.strip() for line in REQUIREMENTS.splitlines()]
    assert requirement_pins(REQUIREMENTS)["torch"].endswith("+cpu"), "pin torch's CPU build (torch==X+cpu): PyPI's is CUDA's"
    assert f"--extra-index-url {PYTORCH_CPU_INDEX}" in lines, "the +cpu wheels are on PyTorch's index, not on PyPI"


def test_the_workbook_is_installed_with_jupyterlab_and_voila():
    assert ".[lab]" in [line.split("#", 1)[0].strip() for line in REQUIREMENTS.splitlines()]


@pytest.mark.parametrize("binder, constraints, expected", [
    ("torch==2.13.0+cpu\nnbgitpuller\n", "torch==2.13.0\nipykernel==6.29.5\n", []),
    ("torch==2.12.0+cpu\n", "torch==2.13.0\n", ["torch: constraints.txt pins 2.13.0, binder/requirements.txt 2.12.0+cpu"]),
    ("ipykernel==7.4.0\n", "ipykernel==6.29.5\n", ["ipykernel: constraints.txt pins 6.29.5, binder/requirements.txt 7.4.0"]),
])
def test_a_pin_that_contradicts_constraints_is_caught(binder, constraints, expected):
    assert pin_disagreements(requirement_pins(binder), requirement_pins(constraints)) == expected


def test_a_missing_constraints_line_is_caught(tmp_path):
    assert constraint_files("torch==2.13.0+cpu\n.[lab]\n", tmp_path) == []
    assert constraint_files("-c ../c.txt\n", tmp_path / "binder") == [tmp_path / "c.txt"]


def test_the_pin_reader_skips_options_paths_and_comments():
    text = "# torch==1.0\n--extra-index-url https://x\n-c ../constraints.txt\n.[lab]\nnbgitpuller\nIPy_Kernel[x] == 6.29.5  # why\n"
    assert requirement_pins(text) == {"ipy-kernel": "6.29.5"}


def test_a_runtime_that_is_not_python_3_is_refused():
    with pytest.raises(ValueError, match="python-3.11"):
        runtime_python("r-4.3-2024-01-01")
