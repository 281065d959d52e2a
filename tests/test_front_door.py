"""``./workbook``, the front door, as a student's machine runs it.

- It must run under macOS's /bin/bash 3.2: a scan for what bash 3.2 lacks (each pattern shown to catch a planted line),
  and the commands run under every bash this machine has (``SBERT_WORKBOOK_OLD_BASH=/path/bash-3.2:/path/bash-4.3``
  adds old ones) with ``set -u``, including ``lab`` with no extra arguments as root and not.
- Set-up, with a fake Python and fake venvs whose programs log their arguments: ``lab`` installs ``.[lab,onnx]``
  only, ``test`` adds the test tools to the same venv, the stamps, and a half-made venv (Debian's python3 without
  python3-venv) detected, removed, and named in the message.
- Where torch comes from (``torch_index``): PyTorch's CPU index without an NVIDIA GPU, the default index with one
  or when the CPU index does not answer; a local HTTP server stands in for the index.
"""
from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
WORKBOOK = ROOT / "workbook"

#: What bash 3.2 (macOS's /bin/bash) lacks, as patterns over the script's code (comments removed).
OLD_BASH_LACKS = {
    "associative arrays (bash 4.0)": r"\b(declare|local|typeset)\s+-[a-zA-Z]*A",
    "case modification ${x,,} ${x^^} (bash 4.0)": r"\$\{\w+(\[[^]]*\])?(\^\^?|,,?)",
    "mapfile / readarray (bash 4.0)": r"\b(mapfile|readarray)\b",
    "[[ -v name ]] (bash 4.2)": r"(\[\[?|\btest)\s+-v\b",
    "namerefs and declare -g/-l/-u (bash 4.0-4.3)": r"\b(declare|local|typeset)\s+-[a-zA-Z]*[nglu]",
    "|& (bash 4.0)": r"\|&",
    "&>> (bash 4.0)": r"&>>",
    "coproc (bash 4.0)": r"\bcoproc\b",
    "wait -n (bash 4.3)": r"\bwait\s+-n\b",
    "shopt options of bash 4 (globstar, lastpipe, ...)": r"\b(globstar|lastpipe|autocd|checkjobs|dirspell)\b",
    "variables of bash 4 and 5 ($EPOCHSECONDS, $BASHPID, ...)": r"\$\{?(EPOCHSECONDS|EPOCHREALTIME|BASHPID|SRANDOM|BASH_ARGV0)\b",
    "${x@Q} transformations (bash 4.4)": r"\$\{\w+(\[[^]]*\])?@[QEPAaKkLUu]\}",
    "negative substring length ${x:1:-1} (bash 4.2)": r"\$\{\w+:[^}:]*:\s*-\d",
    "case fall-through ;& ;;& (bash 4.0)": r";;&|;&\s*$",
    "brace expansion with a step {1..9..2} (bash 4.0)": r"\{-?\d+\.\.-?\d+\.\.-?\d+\}",
    "automatic file descriptors {fd}> (bash 4.1)": r"\{\w+\}[<>]",
    "printf %(...)T (bash 4.2)": r"%\([^)]*\)T",
    # bash < 4.4 stops on "${a[@]}" of an empty array under set -u; ${a[@]+"${a[@]}"} is the form that works.
    "an array expansion that may be empty under set -u (bash < 4.4)": r"\$\{\w+\[[@*]\](?!\+)",
}
GUARDED_ARRAY = re.compile(r'\$\{(\w+)\[([@*])\]\+"\$\{\1\[\2\]\}"\}')


def old_bash_findings(script: str) -> list[str]:
    """``line N: what`` for every construct of :data:`OLD_BASH_LACKS` in ``script``'s code (comments removed)."""
    findings = []
    for number, line in enumerate(script.splitlines(), 1):
        code = GUARDED_ARRAY.sub("", re.sub(r"(^|\s)#.*$", "", line))
        findings += [f"line {number}: {what}: {line.strip()}" for what, pattern in OLD_BASH_LACKS.items()
                     if re.search(pattern, code)]
    return findings


def test_the_front_door_uses_nothing_bash_3_2_lacks():
    assert old_bash_findings(WORKBOOK.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("planted", [
    'exec "$VENV/bin/jupyter" lab --notebook-dir=notebooks "${root_flag[@]}" "${@:2}"',  # the line bash 3.2 stopped on
    "for name in ${names[*]}; do :; done", "declare -A seen=()", "local -A seen", 'lower=${answer,,}', 'upper=${x^^}',
    "mapfile -t lines < file", "readarray lines", "if [[ -v VENV ]]; then :; fi", "local -n ref=VENV",
    "declare -g x=1", "make |& tee log", "echo x &>> log", "coproc cat", "wait -n", "shopt -s globstar",
    'started=$EPOCHSECONDS', 'echo "${x@Q}"', 'echo "${x:1:-1}"', "    a) echo a ;&", "echo {1..9..2}",
    "exec {fd}>log", "printf '%(%s)T' -1",
])
def test_the_scan_catches_a_planted_construct(planted):
    script = WORKBOOK.read_text(encoding="utf-8").replace("set -euo pipefail\n", f"set -euo pipefail\n{planted}\n", 1)
    assert len(old_bash_findings(script)) == 1, planted


def test_the_scan_accepts_what_bash_3_2_runs():
    accepted = ['echo ${a[@]+"${a[@]}"} ${#a[@]}', 'set -- --allow-root "$@"', 'echo "${x:-a,b}" "${x#*,}" "${x: -1}"',
                "local level=$1 extras=lab,onnx   # bash 4's ${x,,} named in a comment", "cmd 2>&1 | tee log"]
    assert old_bash_findings("\n".join(accepted)) == []


def bashes() -> list[str]:
    """This machine's bash, and the old ones named in ``SBERT_WORKBOOK_OLD_BASH`` (a PATH-like list)."""
    extra = [path for path in os.environ.get("SBERT_WORKBOOK_OLD_BASH", "").split(os.pathsep) if path]
    missing = [path for path in extra if not os.access(path, os.X_OK)]
    assert not missing, f"SBERT_WORKBOOK_OLD_BASH names bash binaries that are not there: {missing}"
    return [shutil.which("bash"), *extra]


def bash_version(bash: str) -> str:
    return subprocess.run([bash, "-c", "echo $BASH_VERSION"], capture_output=True, text=True, check=True).stdout.strip()


# ---- fakes: a Python, the venvs it makes, nvidia-smi, id, uname ------------------------------------------------

FAKE_PYTHON = r"""#!/bin/sh
# A base Python for ./workbook: -c answers the version checks and the index probe; -m venv makes a venv of fakes.
echo "base $*" >> "$FAKE_LOG"
case "$*" in
    *"version_info < (3, 10)"*) exit 0 ;;
    *"version_info[:2]"*) echo 3.12; exit 0 ;;
    *urlopen*) exit "${FAKE_INDEX_EXIT:-1}" ;;
    "-m venv "*)
        mkdir -p "$3/bin" && touch "$3/pyvenv.cfg"
        if [ "$FAKE_VENV" = half-made ]; then   # Debian without python3-venv: the folder, a python, no pip
            printf '#!/bin/sh\necho "No module named pip" >&2\nexit 1\n' > "$3/bin/python"
            chmod +x "$3/bin/python"; exit 1
        fi
        cp "$FAKE_VENV_PYTHON" "$3/bin/python" && cp "$FAKE_VENV_PYTHON" "$3/bin/jupyter"; exit 0 ;;
esac
exit 0
"""
FAKE_VENV_PROGRAM = """#!/bin/sh
# bin/python and bin/jupyter of a fake venv: log the arguments, one JSON list a line.
printf '%s\\n' "$(basename "$0")" "$@" | "$REAL_PYTHON" -c 'import json, sys; print(json.dumps(sys.stdin.read().splitlines()))' >> "$FAKE_LOG"
"""
TOOLS = ("dirname", "basename", "id", "uname", "rm", "touch", "mkdir", "cp", "chmod", "cat", "env", "sh", "du")
#: The big installs show pip's own progress (a first run is not silent for minutes).
PIP_PROGRESS = ["--progress-bar", "on"]


@pytest.fixture
def fakes(tmp_path):
    """A PATH of fakes and the few real tools the script needs (no nvidia-smi unless a test writes one)."""
    bin_dir, tools = tmp_path / "bin", tmp_path / "tools"
    bin_dir.mkdir()
    tools.mkdir()
    for tool in TOOLS:
        (tools / tool).symlink_to(shutil.which(tool))
    (tmp_path / "python3").write_text(FAKE_PYTHON)
    (tmp_path / "venv-program").write_text(FAKE_VENV_PROGRAM)
    for script in ("python3", "venv-program"):
        (tmp_path / script).chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{tools}", "HOME": str(tmp_path), "PYTHON": str(tmp_path / "python3"),
           "SBERT_WORKBOOK_VENV": str(tmp_path / "venv"), "FAKE_LOG": str(tmp_path / "log"), "FAKE_VENV": "ok",
           "FAKE_VENV_PYTHON": str(tmp_path / "venv-program"), "REAL_PYTHON": sys.executable}
    return tmp_path, env


def write_program(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f"#!/bin/sh\n{body}\n")
    (folder / name).chmod(0o755)


def run_workbook(env: dict, *args: str, bash: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([bash or shutil.which("bash"), str(WORKBOOK), *args], env=env, capture_output=True,
                          text=True, timeout=60)


def calls(env: dict) -> list[list[str]]:
    """What the fake venv's programs were asked to do (the base Python's lines left out)."""
    log = Path(env["FAKE_LOG"])
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [json.loads(line) for line in lines if line.startswith("[")]


def pip_installs(env: dict) -> list[list[str]]:
    return [call[4:] for call in calls(env) if call[1:4] == ["-m", "pip", "install"] and "--upgrade" not in call]


def ready_venv(tmp_path: Path, env: dict, level: str = "test") -> None:
    """A venv made and installed, with its stamp newer than pyproject.toml and constraints.txt."""
    venv = Path(env["SBERT_WORKBOOK_VENV"])
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").touch()
    for program in ("python", "jupyter"):
        shutil.copy(tmp_path / "venv-program", venv / "bin" / program)
    (venv / f".installed-{level}").touch()


# ---- argument handling under set -u, on every bash ---------------------------------------------------------------

@pytest.mark.parametrize("bash", bashes(), ids=bash_version)
@pytest.mark.parametrize("user", ["root", "student"])
def test_lab_with_no_extra_arguments_runs_jupyterlab_under_set_u(bash, user, fakes):
    """Not root, ``lab`` once expanded an empty array: bash < 4.4 stopped with "unbound variable" after the install."""
    tmp_path, env = fakes
    ready_venv(tmp_path, env)
    if user == "student":
        write_program(tmp_path / "bin", "id", 'echo 501')
    result = run_workbook(env, "lab", bash=bash)
    assert result.returncode == 0, result.stderr
    root_flag = ["--allow-root"] if user == "root" and os.geteuid() == 0 else []
    assert calls(env) == [["jupyter", "lab", "--notebook-dir=notebooks", *root_flag]]
    assert run_workbook(env, "lab", "--port=9", "a b", bash=bash).returncode == 0
    assert calls(env) == [["jupyter", "lab", "--notebook-dir=notebooks", *root_flag, "--port=9", "a b"]]


@pytest.mark.parametrize("bash", bashes(), ids=bash_version)
def test_every_command_passes_its_arguments_and_no_command_prints_the_usage(bash, fakes):
    tmp_path, env = fakes
    ready_venv(tmp_path, env)
    for command in ("test", "doctor", "notebooks", "solutions", "book", "release", "classroom"):
        assert run_workbook(env, command, bash=bash).returncode == 0
        assert run_workbook(env, command, "--x", bash=bash).returncode == 0
        module = ["-m", "pytest"] if command == "test" else ["-m", "sbert_workbook", command]
        assert calls(env) == [["python", *module], ["python", *module, "--x"]], command
    nothing = run_workbook(env, bash=bash)
    assert nothing.returncode == 2 and "usage: ./workbook lab | test" in nothing.stderr


# ---- set-up: lab, test, stamps, the half-made venv --------------------------------------------------------------

def test_lab_installs_jupyterlab_and_onnx_but_no_test_tools_and_test_adds_them_to_the_same_venv(fakes):
    tmp_path, env = fakes
    assert run_workbook(env, "lab").returncode == 0
    assert pip_installs(env) == [PIP_PROGRESS + ["-c", "constraints.txt", "-e", ".[lab,onnx]"]]
    assert run_workbook(env, "lab").returncode == 0 and pip_installs(env) == [], "a fresh stamp installs nothing"
    assert run_workbook(env, "test").returncode == 0
    assert pip_installs(env) == [PIP_PROGRESS + ["-c", "constraints.txt", "-e", ".[lab,onnx,test]"]]
    for command in ("lab", "test", "book"):
        assert run_workbook(env, command).returncode == 0 and pip_installs(env) == [], f"{command}: the test venv serves it"


def test_each_step_of_the_set_up_says_what_it_does_how_long_it_took_and_what_the_venv_holds(fakes):
    tmp_path, env = fakes
    result = run_workbook(env, "lab")
    assert result.returncode == 0, result.stderr
    said = result.stderr
    assert "Setting up" in said and "about 2.5 GB" in said and "docs/measurements.md" in said
    for step in ("1/4", "2/4", "3/4", "4/4"):
        assert f"[{step}] " in said and re.search(rf"\[{step}\] done in \d+ s; .* now holds \d+(\.\d)? [MG]B", said), said
    assert "[4/4] the workbook with JupyterLab and ONNX Runtime (.[lab,onnx])" in said
    assert re.search(r"Set-up done in \d+ s: .* holds \d+(\.\d)? [MG]B\.", said) and result.stdout == ""
    assert run_workbook(env, "lab").stderr == "", "a venv already set up says nothing"


def test_the_venvs_size_reads_du_in_megabytes_and_gigabytes(fakes):
    tmp_path, env = fakes
    for kb, expected in (("40960", "40 MB"), ("2621440", "2.5 GB"), ("", "?")):
        write_program(tmp_path / "bin", "du", f'printf "{kb}\\t.venv\\n"')
        said = subprocess.run([shutil.which("bash"), "-c", f'source "{WORKBOOK}"; venv_size'], capture_output=True,
                              text=True, env=env, timeout=60)
        assert said.stdout.strip() == expected, (kb, said)


def test_a_stamp_older_than_pyproject_reinstalls_its_level_only(fakes):
    tmp_path, env = fakes
    ready_venv(tmp_path, env, "test")
    venv = Path(env["SBERT_WORKBOOK_VENV"])
    before = (ROOT / "pyproject.toml").stat().st_mtime - 10
    os.utime(venv / ".installed-test", (before, before))
    assert run_workbook(env, "lab").returncode == 0
    assert pip_installs(env) == [PIP_PROGRESS + ["-c", "constraints.txt", "-e", ".[lab,onnx]"]]
    assert run_workbook(env, "test").returncode == 0, "the test tools are older than pyproject: test reinstalls them"
    assert pip_installs(env) == [PIP_PROGRESS + ["-c", "constraints.txt", "-e", ".[lab,onnx,test]"]]


def test_a_half_made_venv_is_removed_and_the_message_says_to_install_python3_venv(fakes):
    tmp_path, env = fakes
    venv = Path(env["SBERT_WORKBOOK_VENV"])
    failed = run_workbook({**env, "FAKE_VENV": "half-made"}, "lab")
    assert failed.returncode == 1 and not venv.exists(), "the half-made folder must go, so that a rerun works"
    assert "sudo apt install python3-venv" in failed.stderr and "python3.12-venv" in failed.stderr
    assert calls(env) == []
    rerun = run_workbook(env, "lab")  # once python3-venv is installed
    assert rerun.returncode == 0, rerun.stderr
    assert (venv / ".installed-lab").exists() and calls(env)[-1][:2] == ["jupyter", "lab"]


def test_a_half_made_venv_left_by_an_earlier_run_is_made_again(fakes):
    tmp_path, env = fakes
    venv = Path(env["SBERT_WORKBOOK_VENV"])
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").touch()
    write_program(venv / "bin", "python", 'echo "No module named pip" >&2; exit 1')
    result = run_workbook(env, "test", "-q")
    assert result.returncode == 0 and "half-made virtual environment (no pip in it)" in result.stderr
    assert calls(env)[-1] == ["python", "-m", "pytest", "-q"]


@pytest.mark.parametrize("python", ["python3.9", "no-such-python"])
def test_a_python_older_than_3_10_or_missing_is_named_with_what_to_do(fakes, python):
    tmp_path, env = fakes
    if python == "python3.9":  # macOS's /usr/bin/python3 (Xcode's) is 3.9
        write_program(tmp_path, python, 'exit 1')
    result = run_workbook({**env, "PYTHON": str(tmp_path / python)}, "lab")
    assert result.returncode == 1 and not Path(env["SBERT_WORKBOOK_VENV"]).exists()
    assert "Python >= 3.10 is needed" in result.stderr and "set PYTHON=/path/to/python3.x" in result.stderr


def test_a_folder_that_is_not_a_venv_is_never_removed(fakes):
    tmp_path, env = fakes
    mine = Path(env["SBERT_WORKBOOK_VENV"])
    mine.mkdir()
    (mine / "thesis.tex").touch()
    result = run_workbook(env, "lab")
    assert result.returncode == 1 and "is not a virtual environment" in result.stderr
    assert (mine / "thesis.tex").exists()


# ---- where torch comes from ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cpu_index():
    """A PEP 503 index on localhost with a torch page: PyTorch's CPU index as far as the probe can tell."""
    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path.rstrip("/") == "/whl/cpu/torch" else 404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/whl/cpu"
    server.shutdown()


@pytest.fixture
def refused_index():
    with socket.socket() as probe:  # a port nothing listens on: the connection is refused at once
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/whl/cpu"


def torch_index(env: dict, index: str, nvidia_smi: str | None = None, system: str | None = None) -> tuple[str, str]:
    """(the index torch_index chose, why), with ``nvidia_smi``'s script on PATH (None: none) and uname saying ``system``."""
    bin_dir = Path(env["PATH"].split(os.pathsep)[0])
    if nvidia_smi is not None:
        write_program(bin_dir, "nvidia-smi", nvidia_smi)
    if system is not None:
        write_program(bin_dir, "uname", f"echo {system}")
    result = subprocess.run([shutil.which("bash"), "-c", f'source "{WORKBOOK}"; torch_index'], capture_output=True,
                            text=True, timeout=60,
                            env={**env, "PYTHON": sys.executable, "SBERT_WORKBOOK_TORCH_CPU_INDEX": index})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip(), result.stderr.strip()


def test_without_an_nvidia_gpu_torch_comes_from_the_cpu_index(fakes, cpu_index):
    assert torch_index(fakes[1], cpu_index) == (cpu_index, f"torch: no NVIDIA GPU found: the CPU build from {cpu_index}")


def test_an_nvidia_smi_that_finds_no_driver_counts_as_no_gpu(fakes, cpu_index):
    failing = 'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver." >&2; exit 9'
    assert torch_index(fakes[1], cpu_index, nvidia_smi=failing)[0] == cpu_index


def test_with_an_nvidia_gpu_torch_comes_from_the_default_index_as_the_cuda_build(fakes, cpu_index):
    chosen, why = torch_index(fakes[1], cpu_index, nvidia_smi='echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"')
    assert chosen == "" and "CUDA build from the default index" in why


def test_when_the_cpu_index_does_not_answer_torch_comes_from_the_default_index_and_says_what_that_costs(fakes, refused_index):
    chosen, why = torch_index(fakes[1], refused_index)
    assert chosen == "" and f"{refused_index} does not answer" in why and "CUDA build, several GB" in why


def test_outside_linux_the_default_index_holds_the_cpu_build(fakes, cpu_index):
    assert torch_index(fakes[1], cpu_index, system="Darwin")[0] == ""


@pytest.mark.parametrize("index_exit, expected", [(0, True), (1, False)])
def test_set_up_installs_torch_alone_from_the_chosen_index_before_the_workbook(fakes, index_exit, expected):
    tmp_path, env = fakes
    env = {**env, "FAKE_INDEX_EXIT": str(index_exit), "SBERT_WORKBOOK_TORCH_CPU_INDEX": "http://index.invalid/cpu"}
    assert run_workbook(env, "lab").returncode == 0
    torch_first = PIP_PROGRESS + ["-c", "constraints.txt", "--extra-index-url", "http://index.invalid/cpu", "torch"]
    assert pip_installs(env) == [torch_first] * expected + [PIP_PROGRESS + ["-c", "constraints.txt", "-e", ".[lab,onnx]"]]


def test_the_torch_pin_admits_the_cpu_and_the_cuda_build_and_pip_prefers_the_cpu_one():
    """constraints.txt pins torch without a local label: 2.13.0+cpu (CPU index, binder/) and PyPI's CUDA build both
    satisfy it, and where both are offered pip takes the higher version, +cpu."""
    pins = [Requirement(line) for line in (ROOT / "constraints.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    (torch,) = [pin for pin in pins if pin.name == "torch"]
    (pinned,) = [spec.version for spec in torch.specifier]
    assert "+" not in pinned, "a local label in constraints.txt would refuse the other build"
    assert torch.specifier.contains(f"{pinned}+cpu") and torch.specifier.contains(pinned)
    assert Version(f"{pinned}+cpu") > Version(pinned)
