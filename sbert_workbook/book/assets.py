"""The JavaScript the read-only edition's pages load from its own ``assets/`` folder, never from a CDN
(the book is named in ``00_start_here.ipynb``).

``./workbook book`` (:mod:`sbert_workbook.book.build`) writes pages whose widgets, figures and equations
render with no network: plotly.js comes from the installed ``plotly`` package; require.js, the Jupyter
widgets HTML manager (which draws the stored widget state: sliders and dropdowns at their values) and
MathJax 3 are pinned in ``book/package.json`` and ``book/package-lock.json`` at the checkout's root. npm
installs them (``npm ci --ignore-scripts``: every tarball checked against the sha512 in the lock, from the
registry or mirror npm is configured with, or from npm's own cache), and the files the pages load are copied
out of ``book/node_modules``.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from sbert_workbook.data.finding import repo_root

NPM_FOLDER = "book"  # at the checkout's root: package.json, package-lock.json and (git-ignored) node_modules/
NPM_CI = ("ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund")
#: Per npm package, ``{path inside the package: name in assets/}``.
HTML_MANAGER = "@jupyter-widgets/html-manager"  # 1.x renders ipywidgets 8 state
PAGE_FILES = {
    HTML_MANAGER: {"dist/embed-amd.js": "embed-amd.js"},
    "requirejs": {"require.js": "require.js"},
    "mathjax": {"es5/tex-svg-full.js": "tex-svg-full.js"},  # MathJax 3's SVG build: one file, no font files
}
NPM_ERROR = re.compile(r"npm (?:error|ERR!)\s+(.*)")  # npm 10+ and npm 7-9
FONT_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")  # html-manager's dist/: Font Awesome, by relative URL
PLOTLY_JS = "plotly.min.js"


def npm_folder() -> Path:
    """``book/`` in the checkout: where package.json and package-lock.json live."""
    root = repo_root()
    if root is None:
        raise FileNotFoundError("The book is built from a checkout of the workbook: no pyproject.toml and notebooks/ "
                                "were found. Run `./workbook book` in the cloned repository.")
    return root / NPM_FOLDER


def installed(folder: Path) -> bool:
    """Whether ``folder/node_modules`` holds exactly what ``folder/package-lock.json`` pins (npm records what it
    installed in ``node_modules/.package-lock.json``)."""
    def pinned(lock: Path) -> dict:
        packages = json.loads(lock.read_text(encoding="utf-8")).get("packages", {})
        return {path: (entry.get("version"), entry.get("integrity")) for path, entry in packages.items() if path}

    done = folder / "node_modules" / ".package-lock.json"
    return done.is_file() and pinned(done) == pinned(folder / "package-lock.json")


def npm_ci(folder: Path) -> None:
    """``npm ci --ignore-scripts`` in ``folder``, or an error that says what to do."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise RuntimeError(
            f"The book's JavaScript (require.js, the Jupyter widgets HTML manager, MathJax) is installed by npm from "
            f"{folder / 'package-lock.json'}, and no `npm` or `node` is on PATH. Install Node.js >= 18 with npm "
            "(https://nodejs.org, or `sudo apt-get install nodejs npm`) and build again, or run "
            f"`npm ci --ignore-scripts` in {folder} on a machine that has it and copy its node_modules/ here.")
    result = subprocess.run([npm, *NPM_CI], cwd=folder, capture_output=True, text=True)
    if result.returncode != 0:
        said = [line for line in (result.stderr + result.stdout).splitlines()
                if NPM_ERROR.match(line) and not NPM_ERROR.match(line).group(1).startswith("at ")][:4]
        advice = ("a downloaded tarball is not the one package-lock.json records: check the registry or mirror npm "
                  "uses (`npm config get registry`) and npm's cache (`npm cache verify`); do not edit the lock by hand"
                  if "EINTEGRITY" in result.stderr else
                  "if npm could not reach its registry, point it at one this machine reaches (`npm config set registry "
                  "URL`), or copy node_modules/ from a machine that ran the same command there")
        raise RuntimeError(f"`npm {' '.join(NPM_CI)}` in {folder} failed (exit {result.returncode}):\n"
                           + "\n".join(said) + f"\nWhat to do: {advice}.")


def node_modules(folder: Path | None = None) -> Path:
    """``folder/node_modules`` (``book/`` by default), installed by ``npm ci`` first when missing or stale."""
    folder = Path(folder or npm_folder())
    if not installed(folder):
        npm_ci(folder)
    return folder / "node_modules"


def page_files(modules: Path) -> dict[Path, str]:
    """``{file in node_modules: name in assets/}``: the files the pages load and the fonts the widgets' CSS names."""
    files = {modules / package / path: name for package, paths in PAGE_FILES.items() for path, name in paths.items()}
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise RuntimeError(f"node_modules holds no {missing}: a package changed its layout; pin the version "
                           f"PAGE_FILES in {__name__} expects in {NPM_FOLDER}/package.json.")
    fonts = sorted(path for path in (modules / HTML_MANAGER / "dist").iterdir() if path.name.endswith(FONT_SUFFIXES))
    return files | {font: font.name for font in fonts}


def write_assets(folder: Path, npm: Path | None = None) -> Path:
    """Put every file the pages load into ``folder`` (made if needed) and return it; ``npm`` is the folder holding
    package.json and package-lock.json (``book/`` by default)."""
    import plotly

    folder.mkdir(parents=True, exist_ok=True)
    for source, name in page_files(node_modules(npm)).items():
        shutil.copyfile(source, folder / name)
    shutil.copy(Path(plotly.__file__).parent / "package_data" / PLOTLY_JS, folder / PLOTLY_JS)
    return folder
