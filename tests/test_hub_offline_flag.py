"""``HF_HUB_OFFLINE`` means one thing everywhere: model resolution, the doctor and predownload read it as huggingface_hub does."""
from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys

import pytest

from sbert_workbook import settings
from sbert_workbook.environment import doctor
from sbert_workbook.environment.predownload import NeedsNetworkError, predownload
from sbert_workbook.encoding import resolve

HUB_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
#: Environments to compare: each HF_HUB_OFFLINE spelling, unset, and huggingface_hub's fallback to TRANSFORMERS_OFFLINE.
CASES = [{"HF_HUB_OFFLINE": value} for value in ("1", "true", "ON", "0", "false", "")] + [
    {}, {"TRANSFORMERS_OFFLINE": "1"}, {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "1"},
]

_HUB_READING = """
import importlib, json, os, sys
import huggingface_hub.constants as constants
answers = []
for case in json.loads(sys.argv[1]):
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.pop(name, None)
    os.environ.update(case)
    answers.append(importlib.reload(constants).HF_HUB_OFFLINE)
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def huggingface_hub_says() -> list[bool]:
    """huggingface_hub's own reading of each case, from a fresh load of its constants in another process."""
    env = {name: value for name, value in os.environ.items() if name not in HUB_VARIABLES}
    done = subprocess.run([sys.executable, "-c", _HUB_READING, json.dumps(CASES)], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout)


@pytest.fixture
def hub_host_answers(monkeypatch):
    """The hub host answers at once, so only the environment decides whether the hub counts as reachable."""
    monkeypatch.setattr(socket, "create_connection", lambda *args, **kwargs: contextlib.nullcontext())


def test_the_cases_cover_both_answers(huggingface_hub_says):
    assert set(huggingface_hub_says) == {True, False}


@pytest.mark.parametrize("case", CASES, ids=lambda case: " ".join(f"{k}={v!r}" for k, v in case.items()) or "unset")
def test_resolve_doctor_and_predownload_read_the_flag_as_huggingface_hub(case, huggingface_hub_says, hub_host_answers,
                                                                         monkeypatch):
    for name in HUB_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in case.items():
        monkeypatch.setenv(name, value)
    offline = huggingface_hub_says[CASES.index(case)]

    assert settings.hub_offline_flag() is offline
    assert settings.hub_is_reachable() is not offline
    assert ("HF_HUB_OFFLINE=1 forbids downloads" in resolve._not_found_advice("no-such-org/no-such-model")) is offline
    assert f"HF_HUB_OFFLINE={'on' if offline else 'off'}" in doctor.check_caches().detail
    if offline:
        with pytest.raises(NeedsNetworkError, match=r"(HF_HUB_OFFLINE|TRANSFORMERS_OFFLINE)=\S+ is set"):
            predownload(models=(), datasets=["demo"], log=lambda _: None)
    else:
        assert predownload(models=(), datasets=["demo"], log=lambda _: None) == []  # demo has no hub copy: nothing fetched
