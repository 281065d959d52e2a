"""The project's promises about itself: dependency lists agree, the README's commands are what CI runs."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _pyproject_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return set(project["dependencies"]) | {req for extra in project["optional-dependencies"].values() for req in extra}


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict))
    conda_pip = {req for req in pip_section if not req.startswith("-e")}
    assert conda_pip == _pyproject_requirements()
    assert "-e ." in pip_section


def test_torch_is_pinned_to_the_cpu_build_by_the_constraints_file():
    constraints = (ROOT / "constraints.txt").read_text()
    assert re.search(r"^torch==2\.13\.0$", constraints, re.MULTILINE)
    assert "-c constraints.txt" in (ROOT / "workbook").read_text()


def _quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.DOTALL).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]


def test_readme_quick_start_is_exactly_two_commands_and_ci_runs_the_test_one():
    commands = _quick_start_commands()
    assert len(commands) == 2, commands
    launch, test = commands
    assert "lab" in launch and "test" in test
    ci_lines = [line.split("#")[0].strip() for line in (ROOT / ".ci/run").read_text().splitlines()]
    assert test in ci_lines, f".ci/run must run the README's test command {test!r}"


def test_the_readme_launch_command_serves_jupyterlab_on_the_notebooks(tmp_path):
    """`./workbook lab` (quick-start command 1) starts JupyterLab on notebooks/, also as root."""
    import socket
    import subprocess
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**__import__("os").environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen([str(ROOT / "workbook"), "lab", "--no-browser", f"--port={port}", "--ServerApp.token=t0k",
                               "--ServerApp.ip=127.0.0.1"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, names = time.monotonic() + 90, None
        while time.monotonic() < deadline and names is None:
            assert server.poll() is None, f"./workbook lab exited: {server.stderr.read()[-2000:]}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token=t0k", timeout=5) as reply:
                    names = {item["name"] for item in __import__("json").load(reply)["content"]}
            except OSError:
                time.sleep(1)
        assert names is not None, "JupyterLab did not answer within 90 s"
        assert {p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")} <= names
    finally:
        server.terminate()
        server.wait(timeout=30)
