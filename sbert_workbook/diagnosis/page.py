"""The one-page report a student keeps: a :class:`~sbert_workbook.diagnosis.run.Diagnosis` as HTML and as JSON (``07``).

The HTML page stands alone (no script, no network: tables and one inline SVG forest of the ladder's intervals), so it
opens anywhere and prints on one page; the JSON holds the same figures for a program. Both say which model ran and how
it pools, the sizes, and why any part was skipped.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from sbert_workbook.evaluation.uncertainty import Interval

SOURCES = ("IsoScore: Rudman et al., Findings of ACL 2022 (arXiv 2108.07344). Rogue dimensions and standardisation: "
           "Timkey & van Schijndel, EMNLP 2021 (arXiv 2109.04404). Frequency buckets: Li et al., BERT-flow, EMNLP 2020, "
           "Table 1. Alignment and uniformity: Wang & Isola, ICML 2020, as SimCSE §5 reads them. Fixes: SN and the flow "
           "(BERT-flow), all-but-the-top (Mu & Viswanath, ICLR 2018), whitening-k (Su et al. 2021), per-cluster "
           "all-but-the-top (Rajaee & Pilehvar, ACL 2021, arXiv 2106.01183). Intervals: 95 % paired bootstrap over the "
           "test pairs (the plane's: over the positive pairs and the sentences, as notebook 06).")
STYLE = ("body{font:14px/1.4 system-ui,sans-serif;max-width:60em;margin:1.5em auto;color:#222}"
         "table{border-collapse:collapse;margin:.4em 0 1em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
         "th:first-child,td:first-child{text-align:left}.headline{background:#f3f6fb;padding:.6em 1em;border-radius:6px}"
         "h1{font-size:1.4em}h2{font-size:1.1em;margin-bottom:.2em}.note{color:#666;font-size:12px}")


def interval_dict(interval: Interval | None) -> dict | None:
    return None if interval is None else {"difference": interval.difference, "low": interval.low, "high": interval.high,
                                          "verdict": interval.verdict, "method": interval.method}


def as_json(found) -> dict:
    """Every figure of the diagnosis as plain JSON values."""
    table = lambda frame: None if frame is None else json.loads(frame.to_json(orient="index"))  # noqa: E731
    ladder = found.ladder
    return {"headline": found.headline(), "model": found.subject, "which ran": found.described, "kind": found.kind,
            "sizes": found.settings, "seconds": round(found.seconds, 1), "cone": found.cone,
            "rogue dimensions": table(found.rogue), "cosine contribution per dimension": found.contributions.tolist(),
            "order without the rogue dimensions (Spearman)": None if found.informativity is None else
            {"value": found.informativity.value, "low": found.informativity.low, "high": found.informativity.high,
             "method": found.informativity.method},
            "STS change when standardised": interval_dict(found.standardisation), "frequency": table(found.frequency),
            "fix ladder (Spearman x 100)": table(None if ladder is None else ladder.table),
            "fix intervals": None if ladder is None else {k: interval_dict(v) for k, v in ladder.intervals.items()},
            "alignment and uniformity": table(found.plane),
            "plane moves (fixed - model)": None if found.plane_moves is None else
            {name: {axis: interval_dict(i) for axis, i in move.items()} for name, move in found.plane_moves.items()},
            "skipped": found.skipped, "sources": SOURCES}


def forest_svg(intervals: dict[str, Interval], width: int = 640, row: int = 24) -> str:
    """Each interval as a bar with its difference as a dot and a dotted zero line: an inline SVG, no script."""
    low = min(0.0, *(i.low for i in intervals.values()))
    high = max(0.0, *(i.high for i in intervals.values()))
    left, span = 260, (high - low) or 1.0
    x = lambda value: left + (width - left - 20) * (value - low) / span  # noqa: E731
    height = row * len(intervals) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-size="12">',
             f'<line x1="{x(0):.1f}" y1="0" x2="{x(0):.1f}" y2="{height - 20}" stroke="#000" stroke-dasharray="3,3"/>']
    for index, (name, interval) in enumerate(intervals.items()):
        y, colour = row * index + 15, "#1f77b4" if interval.apart else "#9a9a9a"
        parts += [f'<text x="0" y="{y + 4}">{html.escape(name)}</text>',
                  f'<line x1="{x(interval.low):.1f}" y1="{y}" x2="{x(interval.high):.1f}" y2="{y}" stroke="{colour}" stroke-width="3"/>',
                  f'<circle cx="{x(interval.difference):.1f}" cy="{y}" r="4" fill="{colour}"/>']
    parts.append(f'<text x="{left}" y="{height - 4}">{low:+.1f}</text><text x="{width - 60}" y="{height - 4}">{high:+.1f}'
                 ' (Spearman × 100)</text></svg>')
    return "".join(parts)


def as_html(found) -> str:
    """The diagnosis as one standalone HTML page."""
    head, ladder = found.headline(), found.ladder
    rounded = lambda frame, digits=3: frame.round(digits).to_html(border=0)  # noqa: E731
    sections = [f"<h1>Diagnosis: {html.escape(found.subject)}</h1><p>{html.escape(found.described)}</p>",
                f'<div class="headline"><b>Verdict: this model {html.escape(found.verdict())}.</b><br>'
                f"IsoScore {head['IsoScore']:.3f} (isotropic data of this size: "
                f"{found.cone['IsoScore of isotropic data this size']:.3f}); rogue dimensions {head['rogue dimensions']} "
                + (f"carry {head['their share of E cos']:.0%} of the expected cosine "
                   if head["their share of E cos"] is not None else "(a share of the expected cosine is undefined here, "
                   "E cos being near 0; ")
                + f"{found.cone['mean cosine of random pairs']:.3f}"
                + ("" if head["their share of E cos"] is not None else ")")
                + (f"; without them the pairs' order correlates {html.escape(found.informativity.described())} with the order with "
                   "them" if found.informativity is not None else "")
                + (f"; best fix {html.escape(head['best fix'])}: {html.escape(head['its change'])}" if head["best fix"] else "")
                + "</div>",
                "<h2>The cone</h2>" + rounded(pd.Series(found.cone, name="value").to_frame()),
                "<h2>Rogue dimensions</h2>" + rounded(found.rogue, 4)]
    if found.standardisation is not None:
        sections.append(f"<p>STS when every dimension is standardised: {html.escape(found.standardisation.described())}</p>")
    if found.frequency is not None:
        sections.append("<h2>Frequency (word vectors by frequency rank)</h2>" + rounded(found.frequency))
    if ladder is not None:
        sections += ["<h2>The fix ladder (Spearman × 100 of cosine)</h2>" + rounded(ladder.table, 2),
                     forest_svg(ladder.intervals)]
    if found.plane is not None:
        sections.append("<h2>Alignment and uniformity (lower is better)</h2>" + rounded(found.plane))
    sections += [f"<h2>Skipped</h2><p>{html.escape('; '.join(f'{k}: {v}' for k, v in found.skipped.items()))}</p>"
                 if found.skipped else "",
                 f'<p class="note">Sizes: {html.escape(json.dumps(found.settings))}'
                 + (f"; diagnosed in {found.seconds:.0f} s" if found.seconds else "") + f". {html.escape(SOURCES)}</p>"]
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Diagnosis: {html.escape(found.subject)}</title>"
            f"<style>{STYLE}</style></head><body>{''.join(sections)}</body></html>")


def write_report(found, folder: str | Path = ".") -> tuple[Path, Path]:
    """Write ``diagnosis-<model>.html`` and ``.json`` into ``folder``; returns both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stem = "diagnosis-" + (re.sub(r"[^A-Za-z0-9._-]+", "-", found.subject).strip("-") or "model")
    page, data = folder / f"{stem}.html", folder / f"{stem}.json"
    page.write_text(as_html(found), encoding="utf-8")
    data.write_text(json.dumps(as_json(found), indent=1, default=_plain), encoding="utf-8")
    return page, data


def _plain(value):
    return value.item() if isinstance(value, np.generic) else str(value)
