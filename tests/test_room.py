"""The classroom app's room: how many kernels the machine holds, preheated kernels, and "the room is full".

The browser tests (test_browser.py) open the app's pages; these check the server's settings and the kernel
manager that turns a visitor away, with real kernels where it matters.
"""
from __future__ import annotations

import asyncio
import json

import pytest
from traitlets.config import Config

from sbert_workbook.classroom import room
from sbert_workbook.classroom.page_setup import CLASSROOM_MODEL_ENV_VAR

GB = 1024 ** 3


def test_classroom_command_serves_the_classroom_folder_with_voila():
    argv, env = room.classroom_command(port=9999, token="abc", model="embedded", quick=True, open_browser=False, max_kernels=4)
    assert argv[1:3] == ["-m", "sbert_workbook.classroom.voila_server"] and argv[3].endswith("classroom")
    assert {"--port=9999", "--Voila.ip=127.0.0.1", "--Voila.token=abc", "--Voila.open_browser=False"} <= set(argv)
    assert env[CLASSROOM_MODEL_ENV_VAR] == "embedded" and env["SBERT_WORKBOOK_QUICK"] == "1"


def test_every_visitors_kernel_works_on_one_cpu_thread():
    _, env = room.classroom_command(model="embedded", open_browser=False, max_kernels=4)
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"


@pytest.fixture
def offline_hub_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache, the hub switched off: where `auto` resolves to the embedded model."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


def cache_bert_base_shaped_model(cache):
    """bert-base-uncased in the cache's layout (a config.json is all resolution reads; the weights would be 0.44 GB)."""
    commit = "0" * 40
    snapshot = cache / "models--bert-base-uncased" / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12}))
    (cache / "models--bert-base-uncased" / "refs").mkdir()
    (cache / "models--bert-base-uncased" / "refs" / "main").write_text(commit)


def test_room_capacity_is_free_memory_less_the_reserve_over_one_kernel(offline_hub_cache):
    # 16 GB free, 1.5 kept: 14.5 GB / 0.7 GB a kernel = 20.7 -> 20 kernels; bert-base's 1.1 GB -> 13
    assert room.room_capacity("embedded", available_bytes=16 * GB) == 20
    assert room.room_capacity("embedded", available_bytes=1 * GB) == 1, "one visitor is always let in"
    cache_bert_base_shaped_model(offline_hub_cache)
    assert room.room_capacity("bert-base-uncased", available_bytes=16 * GB) == 13


def test_auto_counts_as_the_model_it_resolves_to(offline_hub_cache):
    """Offline `auto` loads the embedded model (0.7 GB a kernel); with bert-base-uncased cached it loads that (1.1 GB).
    The README's room once held 19 on 24 GB instead of 30: `auto` was read as "another model"."""
    assert room.room_capacity("auto", available_bytes=22.8 * GB) == room.room_capacity("embedded", available_bytes=22.8 * GB) == 30
    cache_bert_base_shaped_model(offline_hub_cache)
    assert room.kernel_gb("auto") == room.OTHER_MODEL_KERNEL_GB
    assert room.room_capacity("auto", available_bytes=22.8 * GB) == 19


def test_a_model_that_resolves_to_nothing_stops_the_app_before_any_kernel_with_the_fix(offline_hub_cache):
    from sbert_workbook.encoding.resolve import ModelNotFoundError

    with pytest.raises(ModelNotFoundError, match="predownload"):
        room.room_capacity("bert-base-uncased", available_bytes=16 * GB)


def test_the_capacity_reaches_voila_as_the_room_kernel_manager():
    argv, _ = room.classroom_command(model="embedded", open_browser=False, max_kernels=7)
    assert "--VoilaConfiguration.multi_kernel_manager_class=sbert_workbook.classroom.room.RoomKernelManager" in argv
    assert "--RoomKernelManager.max_kernels=7" in argv
    with pytest.raises(ValueError, match="max_kernels must be at least 1, got 0"):
        room.capacity_options(0)


def test_a_room_preheats_kernels_of_its_app_only(tmp_path):
    folder = room.write_pool_config(12, "pair_explorer", tmp_path)
    pools = json.loads((folder / "voila.json").read_text())["VoilaKernelManager"]["kernel_pools_config"]
    assert pools == {"default": {"pool_size": 0}, "pair_explorer.ipynb": {"pool_size": 12},
                     "embedding_explorer.ipynb": {"pool_size": 0}}
    argv, _ = room.classroom_command(model="embedded", open_browser=False, room=12, max_kernels=30)
    assert {"--VoilaConfiguration.preheat_kernel=True", f"--VoilaKernelManager.fill_delay={room.REFILL_AFTER_S}"} <= set(argv)
    assert room.preheat_options(0) == [], "no room: kernels start when their page opens"


def test_a_room_larger_than_the_machine_preheats_what_it_holds(tmp_path, monkeypatch):
    written = []
    monkeypatch.setattr(room, "write_pool_config", lambda size, app: written.append(size) or tmp_path)
    room.classroom_command(model="embedded", open_browser=False, room=50, max_kernels=20)
    assert written == [20]


def test_bad_room_settings_say_what_to_use():
    with pytest.raises(ValueError, match="room must be 0"):
        room.preheat_options(-1)
    with pytest.raises(ValueError, match=r"Unknown classroom app 'quiz': use one of \('embedding_explorer', 'pair_explorer'\)"):
        room.preheat_options(3, "quiz")


def test_the_room_summary_tells_the_teacher_what_the_machine_holds():
    assert "at most 20 visitors' kernels" in room.room_summary(0, "embedding_explorer", 20, from_memory=False)
    summary = room.room_summary(30, "pair_explorer", 20, from_memory=False)
    assert summary.startswith("Room: 20 kernels of pair_explorer start now") and "--max-kernels" in summary


def test_importing_the_room_needs_no_jupyter_server_until_its_kernel_manager_is_asked_for():
    import subprocess
    import sys

    script = ("import sys\nsys.modules['jupyter_server'] = None\nimport sbert_workbook.classroom.room as room\n"
              "try:\n    room.RoomKernelManager\nexcept ImportError:\n    print('built on demand')\n")
    assert subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip() == "built on demand"


def test_the_kernel_past_the_machines_capacity_is_refused_with_the_room_full_page():
    """Real kernels: the first starts, the second is a 503 whose reason the visitor reads; a freed slot is reused."""
    import tempfile

    from tornado.web import HTTPError

    from sbert_workbook.runner.transport import kernel_settings, socket_folder_root

    tmp_path = tempfile.mkdtemp(prefix="sbw-room-test-", dir=socket_folder_root())  # socket paths must stay short

    async def scenario():
        manager = room.RoomKernelManager(config=Config({"KernelManager": kernel_settings()}), max_kernels=1,
                                         connection_dir=str(tmp_path), root_dir=str(tmp_path))
        first = await manager.start_kernel(kernel_name="python3")
        try:
            with pytest.raises(HTTPError) as refused:
                await manager.start_kernel(kernel_name="python3")
            await manager.shutdown_kernel(first)
            second = await manager.start_kernel(kernel_name="python3")
            return refused.value, first, second, manager.list_kernel_ids()
        finally:
            await manager.shutdown_all()

    refused, first, second, running = asyncio.run(scenario())
    assert refused.status_code == 503 and refused.reason == room.ROOM_FULL_TITLE
    assert "--max-kernels 1" in refused.log_message
    assert running == [second] and second != first
    import shutil

    shutil.rmtree(tmp_path, ignore_errors=True)
