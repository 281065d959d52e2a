"""The JavaScript the read-only edition's pages load from its own ``assets/`` folder, never from a CDN
(the book is named in ``00_start_here.ipynb``).

``./workbook book`` (:mod:`sbert_workbook.app.book`) writes pages whose widgets, figures and equations
render with no network: plotly.js comes from the installed ``plotly`` package; require.js, the Jupyter
widgets HTML manager (which draws the stored widget state: sliders and dropdowns at their values) and
MathJax 3 come from the npm registry, each tarball fetched once, checked against the sha512 the registry
published for it, and kept in ``~/.cache/sbert-workbook/npm`` (``$XDG_CACHE_HOME`` is honoured).
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"


@dataclass(frozen=True)
class NpmAsset:
    """Files to take from one npm package at one version: ``{path in the tarball: name in assets/}``."""

    package: str
    version: str
    integrity: str  # the registry's dist.integrity: "sha512-" + base64 digest of the tarball
    files: dict[str, str]

    @property
    def tarball_url(self) -> str:
        return f"{REGISTRY}/{self.package}/-/{self.package.split('/')[-1]}-{self.version}.tgz"


#: html-manager 1.x renders ipywidgets 8 state; its dist/ holds the fonts its CSS asks for by relative URL.
HTML_MANAGER = NpmAsset("@jupyter-widgets/html-manager", "1.0.15",
                        "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
                        {"package/dist/embed-amd.js": "embed-amd.js"})
REQUIREJS = NpmAsset("requirejs", "2.3.8",
                     "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
                     {"package/require.js": "require.js"})
#: MathJax 3's SVG build is one file that needs no font files.
MATHJAX = NpmAsset("mathjax", "3.2.2",
                   "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
                   {"package/es5/tex-svg-full.js": "tex-svg-full.js"})
NPM_ASSETS = (HTML_MANAGER, REQUIREJS, MATHJAX)
FONT_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")  # html-manager's dist/: Font Awesome, by relative URL
PLOTLY_JS = "plotly.min.js"


def cache_folder() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sbert-workbook" / "npm"


def tarball(asset: NpmAsset) -> bytes:
    """The package tarball, from the cache or the registry, checked against its published sha512."""
    cached = cache_folder() / f"{asset.package.replace('/', '__')}-{asset.version}.tgz"
    if cached.is_file():
        data = cached.read_bytes()
    else:
        try:
            with urllib.request.urlopen(asset.tarball_url, timeout=60) as response:
                data = response.read()
        except OSError as error:
            raise RuntimeError(
                f"The book's page assets come from the npm registry once, then from {cache_folder()}: "
                f"{asset.package} {asset.version} is not cached and {asset.tarball_url} could not be fetched "
                f"({error}). Run `./workbook book` once on a machine that reaches {REGISTRY}, or copy that "
                f"folder from one.") from error
    if integrity_of(data) != asset.integrity:
        raise RuntimeError(f"{asset.package} {asset.version}: the tarball's sha512 is not the one the registry published "
                           f"({asset.integrity}); remove {cached} and build again.")
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(data)
    return data


def integrity_of(data: bytes) -> str:
    """npm's Subresource-Integrity string for ``data``."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def write_assets(folder: Path) -> Path:
    """Put every file the pages load into ``folder`` (made if needed) and return it."""
    import plotly

    folder.mkdir(parents=True, exist_ok=True)
    for asset in NPM_ASSETS:
        with tarfile.open(fileobj=io.BytesIO(tarball(asset)), mode="r:gz") as archive:
            for member in archive.getmembers():
                name = asset.files.get(member.name)
                if name is None and asset is HTML_MANAGER and member.name.startswith("package/dist/") \
                        and member.name.endswith(FONT_SUFFIXES):
                    name = Path(member.name).name
                if name is not None:
                    (folder / name).write_bytes(archive.extractfile(member).read())
        missing = [name for name in asset.files.values() if not (folder / name).is_file()]
        if missing:
            raise RuntimeError(f"{asset.package} {asset.version} holds no {missing}: the package changed its layout.")
    shutil.copy(Path(plotly.__file__).parent / "package_data" / PLOTLY_JS, folder / PLOTLY_JS)
    return folder
