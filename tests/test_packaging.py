"""The project's promises about itself: dependency lists agree, the README's commands are what CI runs."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from installed import run_elsewhere
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _pyproject_requirements() -> set[str]:
    """The core and every extra, without an extra's references to other extras (``sbert-workbook[lab,onnx]``)."""
    project = _project()
    extras = {req for extra in project["optional-dependencies"].values() for req in extra}
    return set(project["dependencies"]) | {req for req in extras if not req.startswith("sbert-workbook[")}


def _names(requirements) -> set[str]:
    return {Requirement(req).name.lower().replace("_", "-") for req in requirements}


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict))
    conda_pip = {req for req in pip_section if not req.startswith("-e")}
    assert conda_pip == _pyproject_requirements()
    assert "-e ." in pip_section


EXTRA_ONLY = {"jupyterlab", "ipykernel", "nbformat", "nbclient", "nbconvert", "voila", "onnx", "onnxruntime",
              "pytest", "playwright", "pyyaml"}


def test_the_core_holds_what_the_notebooks_import_and_the_tools_are_extras():
    project = _project()
    assert not _names(project["dependencies"]) & EXTRA_ONLY, "Colab installs only the core: keep Jupyter, ONNX and test tools in extras"
    extras = project["optional-dependencies"]
    assert {"lab", "onnx", "test"} <= set(extras)
    assert _names(extras["onnx"]) == {"onnx", "onnxruntime"}
    assert {"jupyterlab", "nbclient", "voila"} <= _names(extras["lab"])
    assert "sbert-workbook[lab,onnx]" in extras["test"], "the test extra brings lab and onnx along"
    # What ./workbook lab and ./workbook test install: tests/test_front_door.py runs them with a fake venv.


def test_nothing_on_the_core_import_path_imports_an_extra():
    """Every module of the package imports with the extras' packages made unimportable (ONNX and nbclient only lazily)."""
    blocked = sorted(EXTRA_ONLY - {"pyyaml"} | {"yaml", "jupyter_server", "voila"})
    script = (f"import sys\nfor name in {blocked!r}: sys.modules[name] = None\n"
              "import importlib, pkgutil, sbert_workbook\n"
              "for module in pkgutil.walk_packages(sbert_workbook.__path__, 'sbert_workbook.'):\n"
              "    importlib.import_module(module.name)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_colab_constraints_satisfy_every_core_floor():
    """pip keeps Colab's preinstalled versions only if no core floor lies above them."""
    pins = dict(line.split("==") for line in (ROOT / "constraints-colab.txt").read_text().splitlines()
                if line.strip() and not line.startswith("#"))
    pins = {name.lower().replace("_", "-"): version for name, version in pins.items()}
    for req in map(Requirement, _project()["dependencies"]):
        name = req.name.lower().replace("_", "-")
        if name in pins:
            assert req.specifier.contains(pins[name]), f"{req} would replace Colab's {name}=={pins[name]}"
    assert pins["ipywidgets"] == "7.7.1" and pins["plotly"] == "5.24.1" and pins["torch"] == "2.11.0"


def test_ci_checks_the_notebooks_against_colab_and_the_readme_test_command_reads_those_runs():
    ci_lines = [line.split("#")[0].strip() for line in (ROOT / ".ci/run").read_text().splitlines()]
    colab = next(line for line in ci_lines if line.startswith("./workbook colab-check --standin"))
    reads = "export SBERT_WORKBOOK_STANDIN_RUNS=build/colab-standin"
    assert ci_lines.index(colab) < ci_lines.index(reads) < _ci_line_running(ci_lines, _quick_start_commands()[1])
    # pytest parses PYTEST_ADDOPTS before tests/conftest.py adds its options when no test path is given: an option of
    # ours there stops `./workbook test` with "unrecognized arguments" (exit 4) before any test runs
    ours = re.findall(r'addoption\("(--[a-z-]+)"', (ROOT / "tests/conftest.py").read_text())
    assert ours and not any("PYTEST_ADDOPTS" in line and option in line for line in ci_lines for option in ours)


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
    assert _ci_line_running(ci_lines, test) is not None, f".ci/run must run the README's test command {test!r}"


def _ci_line_running(ci_lines: list[str], command: str) -> int | None:
    """The index of the line of .ci/run that runs ``command`` as it is (its exit status kept in a variable or not)."""
    return next((i for i, line in enumerate(ci_lines) if re.fullmatch(re.escape(command) + r"( \|\| \w+=\$\?)?", line)),
                None)


def test_ci_runs_both_parts_of_binder_check_around_the_suite_and_stops_on_either():
    ci_text = (ROOT / ".ci/run").read_text()
    ci_lines = [line.split("#")[0].strip() for line in ci_text.splitlines()]
    runs = next(i for i, line in enumerate(ci_lines) if "binder-check --runs-only" in line)
    page = ci_lines.index("./workbook binder-check --page-only")
    suite = _ci_line_running(ci_lines, _quick_start_commands()[1])
    assert ci_lines[runs].startswith("nice -n 19 ") and ci_lines[runs].endswith("&"), "beside the suite, yielding to it"
    assert runs < suite < page
    waits = ci_lines.index('wait "$binder_runs" || binder=$?')
    assert suite < waits < page and '[[ $tests -eq 0 ]] || exit "$tests"' in ci_lines[waits:page]
    assert '[[ $binder -eq 0 ]] || exit "$binder"' in ci_lines[waits:page]


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


def test_the_built_wheel_ships_the_apache_licence_text(workbook_wheel):
    import zipfile

    with zipfile.ZipFile(workbook_wheel) as archive:
        shipped = [name for name in archive.namelist() if name.endswith(".dist-info/licenses/LICENSE")]
        assert shipped, f"no LICENSE in {wheel.name}: {archive.namelist()[-8:]}"
        text = archive.read(shipped[0]).decode()
    assert text == (ROOT / "LICENSE").read_text() and "Apache License" in text and "Version 2.0, January 2004" in text


def test_the_citation_file_names_the_workbook_and_every_paper_it_teaches():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "Apache-2.0"
    cited = {identifier["value"] for reference in citation["references"] for identifier in reference["identifiers"]}
    assert {"arXiv:1810.04805", "arXiv:1908.10084", "arXiv:2011.05864", "arXiv:2103.15316", "arXiv:2104.08821"} <= cited


def test_the_description_names_every_lesson():
    description = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    for lesson in ("masked-LM", "anisotropic", "Sentence-BERT", "BERT-flow", "SimCSE"):
        assert lesson in description, f"pyproject's description leaves out {lesson}"


#: Data sets written by this project that a notebook loads with no data root at all: they ship inside the package.
DATA_IN_THE_PACKAGE = ("demo",)

LOAD_AS_A_NOTEBOOK_DOES = """
import json
import sbert_workbook as sbw
from sbert_workbook.data import REGISTRY, find_local
from sbert_workbook.data.finding import repo_root

names = {names!r}
loaded = {{name: len(sbw.load_sts(name, REGISTRY[name].splits[0])) for name in names}}
print(json.dumps({{"package": sbw.__file__, "repo_root": repo_root() and str(repo_root()), "loaded": loaded,
                  "found": {{name: str(find_local(name)) for name in names}}}}))
"""


def _shipped_data_sets() -> list[str]:
    """DATA_IN_THE_PACKAGE and every registry entry whose file the checkout's package holds."""
    from sbert_workbook.data.registry import REGISTRY

    shipped = ROOT / "sbert_workbook" / "data" / "shipped"
    return sorted({*DATA_IN_THE_PACKAGE, *(name for name, entry in REGISTRY.items() if (shipped / entry.local_path).exists())})


def test_the_installed_wheel_loads_its_data_from_an_unrelated_folder_with_no_checkout(installed_workbook, tmp_path):
    """As Colab runs a notebook: the wheel installed non-editable, the notebook's folder empty, no data root set.
    03 section 1's ``sbw.load_sts("demo", "all")`` and every other data set the package ships must load."""
    names = _shipped_data_sets()
    seen = run_elsewhere(LOAD_AS_A_NOTEBOOK_DOES.format(names=names), installed_workbook, tmp_path)
    assert Path(seen["package"]).is_relative_to(installed_workbook), f"the checkout ran, not the wheel: {seen['package']}"
    assert seen["repo_root"] is None, "no checkout may be found from an unrelated folder"
    assert seen["loaded"]["demo"] == 150 and all(seen["loaded"][name] > 0 for name in names), seen["loaded"]
    for name in names:
        assert Path(seen["found"][name]).is_relative_to(installed_workbook), f"{name} was read from {seen['found'][name]}"


def test_every_file_of_the_package_ships_in_the_wheel(workbook_wheel):
    """Package data (not only modules) must be declared to ship: each file git has under sbert_workbook/ is in the wheel."""
    import zipfile

    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "sbert_workbook"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    package_files = {name for name in listed if (ROOT / name).is_file()}
    assert any(not name.endswith(".py") for name in package_files), "the package holds data files (the demo pairs)"
    missing = package_files - set(zipfile.ZipFile(workbook_wheel).namelist())
    assert not missing, f"in the package but not in the wheel (declare them in pyproject's package-data): {sorted(missing)}"
