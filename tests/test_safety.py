"""Issue 9, safety: no code from a model repository is ever run, and nothing is unpickled.

Every Python file and notebook code cell of the workbook is parsed (not just grepped, so a
comment or a docstring that *mentions* ``torch.load`` is fine) and checked for:
``trust_remote_code`` set to anything but False, ``torch.load`` without
``weights_only=True``, ``use_safetensors=False``, and pickle-based loaders
(``pickle``/``dill``/``joblib``/``pandas.read_pickle``, ``numpy.load(allow_pickle=True)``).
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CODE_FOLDERS = ("sbert_workbook", "tools", "tests", "benchmarks", "classroom", "notebooks")
PICKLE_LOADERS = {("pickle", "load"), ("pickle", "loads"), ("dill", "load"), ("dill", "loads"),
                  ("joblib", "load"), ("pd", "read_pickle"), ("pandas", "read_pickle"), ("cloudpickle", "load")}
REMOTE_CODE_TEXT = re.compile(r"""["']?trust_remote_code["']?\s*[=:]\s*(?!False\b)""")


def sources() -> list[tuple[str, str]]:
    """(label, Python source) for every .py file and every notebook code cell in the repository."""
    found = []
    for folder in CODE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            if ".ipynb_checkpoints" not in path.parts:
                found.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
        for path in sorted((REPO / folder).rglob("*.ipynb")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for number, cell in enumerate(cells):
                if cell["cell_type"] == "code":
                    found.append((f"{path.relative_to(REPO)} cell {number}", _without_magics("".join(cell["source"]))))
    return found


def _without_magics(source: str) -> str:
    """IPython lines (%pip, !ls) are not Python: blank them, keeping line numbers; a %%bash-style cell is skipped."""
    if source.lstrip().startswith("%%") and not source.lstrip().startswith(("%%time", "%%capture")):
        return ""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _dotted(node: ast.AST) -> tuple[str, ...]:
    """('torch', 'load') for torch.load, ('load',) for a bare name; () for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return tuple(reversed(parts))
    return ()


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_constant(node: ast.AST | None, value) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _torch_loads(tree: ast.AST) -> set[tuple[str, ...]]:
    """The names torch.load goes by in this source: torch.load, th.load after `import torch as th`, load after `from torch import load`."""
    names = {("torch", "load")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(alias.asname, "load") for alias in node.names if alias.name == "torch" and alias.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            names |= {(alias.asname or alias.name,) for alias in node.names if alias.name == "load"}
    return names


def unsafe_calls(source: str, label: str = "<snippet>") -> list[str]:
    """Each unsafe call in ``source`` as 'label, line N: what'."""
    problems, tree = [], ast.parse(source)
    torch_loads = _torch_loads(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name, where = _dotted(node.func), f"{label}, line {node.lineno}"
        remote = _keyword(node, "trust_remote_code")
        if remote is not None and not _is_constant(remote, False):
            problems.append(f"{where}: trust_remote_code must never be enabled")
        if _is_constant(_keyword(node, "use_safetensors"), False):
            problems.append(f"{where}: use_safetensors=False loads pickled weights")
        if (name[-2:] in torch_loads or name in torch_loads) and not _is_constant(_keyword(node, "weights_only"), True):
            problems.append(f"{where}: torch.load needs weights_only=True")
        if name[-2:] in PICKLE_LOADERS:
            problems.append(f"{where}: {'.'.join(name)} unpickles arbitrary objects; use safetensors or JSON")
        if name[-1:] == ("load",) and name[:-1] in {("np",), ("numpy",)} and not _is_constant(
                _keyword(node, "allow_pickle"), False) and _keyword(node, "allow_pickle") is not None:
            problems.append(f"{where}: numpy.load must not allow_pickle")
    for number, line in enumerate(source.splitlines(), start=1):  # **{"trust_remote_code": True} and friends
        if REMOTE_CODE_TEXT.search(line) and not line.lstrip().startswith("#") and "REMOTE_CODE_TEXT" not in line:
            problems.append(f"{label}, line {number}: trust_remote_code is set ({line.strip()[:80]})")
    return sorted(set(problems))


# ----------------------------------------------------------------------------- the checker itself
@pytest.mark.parametrize("snippet", [
    "AutoModel.from_pretrained(path, trust_remote_code=True)",
    "AutoModel.from_pretrained(path, trust_remote_code=flag)",
    "AutoModel.from_pretrained(path, **{'trust_remote_code': True})",
    "torch.load(path)",
    "torch.load(path, weights_only=False)",
    "state = torch.load(path, map_location='cpu')",
    "import torch as th\nstate = th.load(path)",
    "from torch import load\nstate = load(path)",
    "pickle.load(open(path, 'rb'))",
    "joblib.load(path)",
    "pd.read_pickle(path)",
    "np.load(path, allow_pickle=True)",
    "AutoModel.from_pretrained(path, use_safetensors=False)",
])
def test_the_checker_finds_each_unsafe_call(snippet):
    assert unsafe_calls(snippet), f"not caught: {snippet}"


@pytest.mark.parametrize("snippet", [
    "torch.load(path, map_location='cpu', weights_only=True)",
    "AutoModel.from_pretrained(path)",
    "AutoModel.from_pretrained(path, trust_remote_code=False)",
    "np.load(path)",
    "load_file(path)  # safetensors; torch.load(path) in a comment is fine",
    '"""torch.load(path) in a docstring is fine"""',
])
def test_the_checker_accepts_safe_calls(snippet):
    assert unsafe_calls(snippet) == []


# ----------------------------------------------------------------------------- the workbook
def test_the_workbook_is_scanned():
    labels = [label for label, _ in sources()]
    assert any(label.startswith("sbert_workbook/") for label in labels)
    assert any(label.startswith("sbert_workbook/encoding/encoder.py") for label in labels)


def test_no_remote_code_and_no_unpickling_anywhere():
    problems = [problem for label, source in sources() if label != "tests/test_safety.py"
                for problem in unsafe_calls(source, label)]
    assert problems == [], "Unsafe loading found:\n" + "\n".join(problems)
