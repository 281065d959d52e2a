"""``.ci/install_browser.sh`` as people run it: as root without sudo (a container, CI), as a user with sudo, as a user
without sudo, and on a machine without apt-get. Fakes on PATH stand in for dpkg-query, apt-get, sudo and id and log
what they were asked; nothing is installed."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "install_browser.sh"
REAL_TOOLS = ("grep", "env", "cat")


def write_program(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f"#!/bin/sh\n{body}\n")
    (folder / name).chmod(0o755)


@pytest.fixture
def machine(tmp_path):
    """(PATH folder, environment, log): Debian without chromium, apt-get and a chromium that log their calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in REAL_TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    log = tmp_path / "log"
    write_program(bin_dir, "dpkg-query", "exit 1")  # nothing installed
    write_program(bin_dir, "apt-get", f'echo "apt-get $*" >> {log}')
    write_program(bin_dir, "id", 'echo 0')
    write_program(tmp_path, "chromium", f'echo "chromium $*" >> {log}; echo "Chromium 1.0"')
    env = {"PATH": str(bin_dir), "SBERT_WORKBOOK_CHROMIUM": str(tmp_path / "chromium"), "HOME": str(tmp_path)}
    return bin_dir, env, log


def run(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([shutil.which("bash"), str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)


def logged(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_as_root_it_installs_with_apt_get_and_no_sudo(machine):
    bin_dir, env, log = machine
    done = run(env)
    assert done.returncode == 0, done.stderr
    assert logged(log) == ["apt-get update -qq",
                           "apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-dejavu-core",
                           "chromium --version"]


def test_as_a_user_it_asks_sudo(machine):
    bin_dir, env, log = machine
    write_program(bin_dir, "id", "echo 1000")
    write_program(bin_dir, "sudo", f'echo "sudo $1" >> {env["HOME"]}/log; exec "$@"')
    done = run(env)
    assert done.returncode == 0 and "asking sudo" in done.stdout, done.stderr
    assert [line for line in logged(log) if line.startswith("sudo")] == ["sudo env", "sudo env"]
    assert "apt-get update -qq" in logged(log)


@pytest.mark.parametrize("sudo", ["missing", "refuses"])
def test_as_a_user_without_sudo_it_says_what_to_do(machine, sudo):
    bin_dir, env, log = machine
    write_program(bin_dir, "id", "echo 1000")
    if sudo == "refuses":
        write_program(bin_dir, "sudo", 'echo "user is not in the sudoers file." >&2; exit 1')
    done = run(env)
    assert done.returncode == 1 and not [line for line in logged(log) if line.startswith("apt-get")]
    assert "su -c .ci/install_browser.sh" in done.stderr and "apt-get install chromium" in done.stderr.replace("\n", " ")
    assert "browser tests are skipped" in done.stderr


def test_without_apt_get_it_names_the_other_way(machine):
    bin_dir, env, log = machine
    (bin_dir / "apt-get").unlink()
    done = run(env)
    assert done.returncode == 1 and "SBERT_WORKBOOK_CHROMIUM" in done.stderr and "brew install" in done.stderr


def test_when_everything_is_there_it_does_nothing(machine):
    bin_dir, env, log = machine
    write_program(bin_dir, "dpkg-query", 'printf "install ok installed"')
    done = run(env)
    assert done.returncode == 0 and "already installed" in done.stdout and logged(log) == []
    nowhere = run({**env, "SBERT_WORKBOOK_CHROMIUM": str(bin_dir / "no-chromium")})
    assert nowhere.returncode == 1 and "is not a program" in nowhere.stderr and logged(log) == []


def test_the_script_runs_under_macos_bash_3_2():
    """The same scan as ./workbook's (tests/test_front_door.py): no construct bash 3.2 lacks. Its arrays are expanded
    only where they cannot be empty (PACKAGES is fixed, and the script stops when nothing is missing), which the scan
    cannot see, so that one kind of finding is left to the tests above."""
    from test_front_door import old_bash_findings

    findings = [f for f in old_bash_findings(SCRIPT.read_text(encoding="utf-8")) if "may be empty under set -u" not in f]
    assert findings == []
    assert os.access(SCRIPT, os.X_OK), "run as .ci/install_browser.sh: it must stay executable"
