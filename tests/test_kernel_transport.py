"""Kernels that cannot collide: every kernel the workbook starts gets socket files of its own.

The collision, reproduced without starting a kernel: jupyter_client picks a kernel's five socket files by
looking for names not yet taken, and the kernel creates them only when it starts. Two kernels given one socket
base path (the classroom app's old ``--KernelManager.ip=<folder>/kernel``) and prepared at the same moment
therefore pick the same five files, and their messages cross. ``tools/classroom_load.py`` showed what a room
sees then (docs/classroom_load.md): 0 of 10 pages drew.
"""
from __future__ import annotations

import os

import pytest
from traitlets.config import Config

from sbert_workbook.installs import colab_check
from sbert_workbook.runner import transport as kernel_transport
from sbert_workbook.classroom.room import classroom_command

pytestmark = pytest.mark.skipif(os.name != "posix", reason="Unix sockets exist on POSIX systems only")


def _socket_files_of_two_kernels(kernel_manager_settings: dict, connection_dir) -> list[set[str]]:
    """The socket files two kernels prepared back to back by one server (as Voilà does) would bind."""
    from jupyter_client.multikernelmanager import MultiKernelManager

    server = MultiKernelManager(config=Config({"KernelManager": kernel_manager_settings}), connection_dir=str(connection_dir))
    files = []
    for _ in range(2):
        manager, _, _ = server.pre_start_kernel("python3", {})
        manager.write_connection_file()
        files.append({f"{manager.ip}-{port}" for port in manager.ports})
    return files


def test_two_kernels_of_one_server_get_different_socket_files(tmp_path):
    first, second = _socket_files_of_two_kernels(kernel_transport.kernel_settings("ipc"), tmp_path)
    assert len(first) == len(second) == 5 and not first & second
    assert all(path.startswith(str(tmp_path)) for path in first | second), "the sockets live in the server's own folder"


def test_one_shared_socket_path_gives_two_kernels_the_same_files(tmp_path):
    """The old setting, for contrast: the test above would fail with it."""
    shared = {"transport": "ipc", "ip": str(tmp_path / "kernel")}
    first, second = _socket_files_of_two_kernels(shared, tmp_path)
    assert first == second


def test_the_runner_names_its_kernels_sockets_after_its_own_connection_file(tmp_path):
    from jupyter_client.manager import KernelManager

    manager = KernelManager(config=kernel_transport.kernel_config("ipc", str(tmp_path / "kernel.json")))
    manager.write_connection_file()
    assert manager.transport == "ipc" and manager.ip == str(tmp_path / "kernel-ipc")
    assert (tmp_path / "kernel.json").is_file()


def test_the_classroom_app_sets_the_transport_and_never_one_socket_path_for_all():
    argv, _ = classroom_command(port=9999, token="abc", model="embedded", open_browser=False, max_kernels=4)
    assert "--KernelManager.transport=ipc" in argv
    root = next(option.split("=", 1)[1] for option in argv if option.startswith("--Voila.connection_dir_root="))
    assert len(root) <= kernel_transport.SOCKET_FOLDER_MAX - len("/voila_12345678")
    assert not any(option.startswith("--KernelManager.ip=") for option in argv)
    argv, _ = classroom_command(port=9999, token="abc", model="embedded", open_browser=False, max_kernels=4, transport="tcp")
    assert "--KernelManager.transport=tcp" in argv and "--KernelManager.transport=ipc" not in argv


def test_a_long_temporary_folder_is_not_used_for_sockets(monkeypatch):
    monkeypatch.setattr("tempfile.gettempdir", lambda: "/home/someone/a/very/long/temporary/folder/of/a/laptop")
    assert kernel_transport.socket_folder_root() == "/tmp"


def test_an_unknown_transport_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"Unknown kernel transport 'udp': use one of \('ipc', 'tcp'\)"):
        kernel_transport.kernel_settings("udp")


def test_colab_check_runs_its_kernels_over_tcp_as_colab_does(monkeypatch, tmp_path):
    calls = []
    from sbert_workbook.runner.notebooks import NotebookRun

    monkeypatch.setattr(colab_check, "environment_problems", lambda *args: ([], {
        "python": "3.12.1", "file": "site/sbert_workbook/__init__.py", "installed_from": "file:///w.whl", "data_roots": []}))
    passed = NotebookRun(tmp_path / "00_start_here.ipynb", tmp_path / "e", tmp_path / "h", 1.0)
    monkeypatch.setattr("sbert_workbook.runner.notebooks.run_all", lambda *args, **kwargs: calls.append(kwargs) or [passed])
    assert colab_check.main(["00"]) == 0
    assert calls and calls[0]["transport"] == "tcp" and calls[0]["parallel"] == 2
