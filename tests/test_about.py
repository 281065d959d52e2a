"""One address and one version (sbert_workbook/about.py): both live in pyproject.toml, and every copy of them in the
repository (the notebooks' badges and setup cells, Binder and nbgitpuller links in the docs, CITATION.cff, the
CHANGELOG) is what about.py makes; an installed wheel reports the same from its metadata."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sbert_workbook import about

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = (REPO / "pyproject.toml").read_text(encoding="utf-8")
#: Text files whose addresses the test reads: what git tracks (or would add), not build/ or .venv.
TEXT_SUFFIXES = {".md", ".py", ".ipynb", ".toml", ".txt", ".cff", ".yaml", ".yml", ".json", ".sh", ""}


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return [REPO / name for name in filter(None, listed)
            if (REPO / name).is_file() and (REPO / name).suffix in TEXT_SUFFIXES and not name.startswith("data/")]


def test_the_version_lives_once_in_pyproject_and_the_package_reports_it():
    (typed,) = re.findall(r'(?m)^version = "([^"]+)"', PYPROJECT)
    import sbert_workbook

    assert about.version() == typed == sbert_workbook.__version__
    assert about.git_ref() == f"v{typed}"
    versions = [path.relative_to(REPO).as_posix() for path in tracked_text_files() if path.suffix == ".py"
                and re.search(rf'(?m)^\s*(__version__|VERSION|version)\s*=\s*["\']{re.escape(typed)}["\']', path.read_text(encoding="utf-8"))]
    assert versions == [], f"the version is typed again in {versions}: read it from sbert_workbook.about.version()"


def test_python_m_sbert_workbook_version_prints_it(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sbert_workbook", "--version"], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    assert done.stdout.strip() == f"sbert-workbook {about.version()}"


def test_citation_and_changelog_name_the_same_version_and_address():
    citation = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"(?m)^version: (\S+)$", citation)[1] == about.version()
    assert re.search(r'(?m)^repository-code: "([^"]+)"$', citation)[1] == about.repository()
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"(?m)^## \[(\d[^\]]*)\]", changelog)
    assert releases and releases[0] == about.version(), ("CHANGELOG.md's newest version heading should be pyproject's "
                                                        f"version {about.version()}: {releases[:1]}")
    assert "## [Unreleased]" in changelog.split(f"## [{releases[0]}]")[0], "Keep a Changelog: [Unreleased] on top"


def test_the_installed_wheel_reads_the_same_version_and_address_from_its_metadata(installed_workbook, tmp_path):
    from installed import run_elsewhere

    seen = run_elsewhere("import json, sbert_workbook\nfrom sbert_workbook import about\n"
                         "print(json.dumps([sbert_workbook.__file__, about.version(), about.repository()]))",
                         installed_workbook, tmp_path)
    assert Path(seen[0]).is_relative_to(installed_workbook)
    assert seen[1:] == [about.version(), about.repository()]


#: Addresses of the repository as text holds them: GitHub (also inside Colab's and Binder's paths) and nbgitpuller's
#: percent-encoded repo= parameter.
GITHUB = re.compile(r"github\.com/([\w.-]+/[\w.-]+?)(?=[/)\"'\s`>]|\.git\b|$)")
ENCODED_REPO = re.compile(r"repo=https%3A%2F%2Fgithub\.com%2F([\w.-]+)%2F([\w.-]+)")
COLAB = re.compile(r"https://colab\.research\.google\.com/github/[^)\s\"'`]+")
BINDER = re.compile(r"https://mybinder\.org/v2/gh/[^)\s\"'`]+")
PULLER = re.compile(r"https://[\w.-]+/hub/user-redirect/git-pull\?[^)\s\"'`]+")


def addresses(text: str) -> dict[str, list[str]]:
    return {"github": [m for m in GITHUB.findall(text)] + ["/".join(m) for m in ENCODED_REPO.findall(text)],
            "colab": COLAB.findall(text), "binder": BINDER.findall(text), "nbgitpuller": PULLER.findall(text)}


def test_the_address_scan_finds_each_kind_of_link():
    text = (f"{about.colab_badge('notebooks/00_start_here.ipynb')} {about.binder_url('notebooks/00_start_here.ipynb')}\n"
            f"{about.nbgitpuller_url('https://hub.example.org', 'notebooks/00_start_here.ipynb')}")
    found = addresses(text)
    assert found["colab"] and found["binder"] and found["nbgitpuller"]
    assert set(found["github"]) == {about.github_slug()}


def test_every_address_of_the_workbook_in_the_repository_is_the_one_in_pyproject():
    """A Colab, Binder or nbgitpuller link, or a GitHub address, that names the workbook is what about.py makes from
    pyproject.toml, at this version's tag; links to other projects are left alone."""
    slug, ref, wrong, counted = about.github_slug(), about.git_ref(), [], 0
    for path in tracked_text_files():
        if path.resolve() == Path(__file__).resolve():
            continue  # this file's own patterns and fragments
        text = path.read_text(encoding="utf-8", errors="replace")
        name = path.relative_to(REPO).as_posix()
        found = {kind: [url for url in urls if "{" not in url] for kind, urls in addresses(text).items()}  # not templates
        for github in found["github"]:
            if "workbook" in github.lower():  # the workbook's, this address or an old one (not a cited library's)
                counted += 1
                if github != slug:
                    wrong.append(f"{name}: github.com/{github} is not {about.repository()}")
        for url in found["colab"]:
            counted += 1
            path_in_repo = url.split(f"/blob/{ref}/", 1)[-1]
            if url != about.colab_url(path_in_repo) or not (REPO / path_in_repo).is_file():
                wrong.append(f"{name}: {url} is not {about.colab_url(path_in_repo)} (of a notebook that exists)")
        for url in found["binder"]:
            counted += 1
            app = "voila" if "urlpath=voila" in url else "lab"
            path_in_repo = url.split("/render/" if app == "voila" else "/tree/", 1)[-1]
            if url != about.binder_url(path_in_repo, app) or not (REPO / path_in_repo).is_file():
                wrong.append(f"{name}: {url} is not {about.binder_url(path_in_repo, app)}")
        for url in found["nbgitpuller"]:
            counted += 1
            hub = url.split("/hub/", 1)[0]
            expected = {about.nbgitpuller_url(hub, p, app) for p in ("notebooks/00_start_here.ipynb",
                                                                     "classroom/embedding_explorer.ipynb")
                        for app in ("lab", "voila")}
            if url not in expected:
                wrong.append(f"{name}: {url} is not an nbgitpuller link about.nbgitpuller_url makes")
    assert counted > 10, "the scan found almost no addresses: is it still reading the repository?"
    assert not wrong, "run python tools/add_colab_badges.py, or write the link from sbert_workbook.about:\n" + "\n".join(wrong)


def test_the_setup_cell_installs_this_versions_tag_from_the_repository():
    assert about.pip_requirement() == f"sbert-workbook @ git+{about.repository()}@v{about.version()}"
    assert about.colab_url("notebooks/x.ipynb").endswith(f"/blob/v{about.version()}/notebooks/x.ipynb")


def test_links_lists_colab_binder_and_nbgitpuller_for_a_hub(capsys):
    from sbert_workbook.cli import main

    assert main(["links", "--hub", "https://hub.example.org/"]) == 0
    printed = capsys.readouterr().out
    from sbert_workbook.lessons.manifest import all_manifests

    assert printed.count("colab.research.google.com") == len(all_manifests()) and printed.count("mybinder.org") == 2
    assert "https://hub.example.org/hub/user-redirect/git-pull?repo=" in printed and "&branch=v" in printed


def test_a_repository_that_is_not_on_github_is_refused_with_what_to_do(monkeypatch):
    monkeypatch.setattr(about, "repository", lambda: "https://gitlab.example.org/a/b")
    with pytest.raises(ValueError, match="https://github.com/OWNER/NAME"):
        about.github_slug()


def test_links_for_a_course_repository_open_the_release_there_and_offer_no_colab_badge(capsys):
    from sbert_workbook.cli import main

    assert main(["links", "--hub", "https://hub.example.org", "--repo", "https://github.com/teacher/course"]) == 0
    printed = capsys.readouterr().out
    assert "colab.research.google.com" not in printed and "sbert-workbook%2Fsbert-workbook" not in printed
    assert "https://mybinder.org/v2/gh/teacher/course/main?urlpath=lab/tree/notebooks/00_start_here.ipynb" in printed
    assert "repo=https%3A%2F%2Fgithub.com%2Fteacher%2Fcourse&branch=main&urlpath=lab%2Ftree%2Fcourse%2Fnotebooks" in printed
