"""A page whose blocks a tool generates: rewrite them, or (``--check``) say whether the page is up to date.

Shared by ``tools/teaching_guide.py`` (TEACHING.md) and ``tools/package_map.py`` (docs/package.md).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable


def check_or_write(page: Path, render: Callable[[str], str], command: str, check: bool) -> int:
    """With ``check``: print whether ``page`` equals ``render(page)`` and return 1 if it does not (``command``
    rewrites it); otherwise write ``render(page)`` and return 0."""
    text = page.read_text(encoding="utf-8")
    fresh = render(text)
    if check:
        print(f"{page.name} is up to date" if fresh == text else f"{page.name} is stale: run {command}")
        return int(fresh != text)
    page.write_text(fresh, encoding="utf-8")
    print(f"wrote {page}")
    return 0
