"""Every table says what produced it: model, pooling, aggregation and data split.

Introduced in ``00_start_here.ipynb``. A table carries its facts in
``table.attrs["provenance"]`` (pandas keeps ``attrs`` through ``round``, ``head``,
``sort_values``, column selection, ``drop`` and ``concat`` of tables with equal attrs);
:func:`show_provenance_captions` makes the notebook print them as the table's caption.
"""
from __future__ import annotations

import html

import pandas as pd

PROVENANCE_FIELDS = ("model", "pooling", "aggregation", "split")


def describe_model(encoder_or_embed) -> str:
    """Name and revision of an Encoder's model (its folder for a local model); else the function's name."""
    resolved = getattr(encoder_or_embed, "resolved", None)
    if resolved is None:
        return getattr(encoder_or_embed, "__name__", type(encoder_or_embed).__name__)
    if resolved.source == "local folder":
        return f"{resolved.model_id} (local folder {resolved.path})"
    return f"{resolved.model_id} ({resolved.source}, revision {resolved.revision})"


def describe_split(data) -> str:
    """Which data an StsData/NliData holds: name, split, size and where it was read from."""
    size = f", {len(data)} pairs" if hasattr(data, "__len__") else ""
    origin = f" ({data.origin})" if getattr(data, "origin", "") else ""
    return f"{data.name} {getattr(data, 'split', '')}{size}{origin}".replace("  ", " ")


def with_provenance(table: pd.DataFrame, *, model, pooling: str, aggregation: str, split: str, **more) -> pd.DataFrame:
    """Set ``table.attrs['provenance']`` (the four fields first, then ``more``, then facts it already had); return it.

    ``model`` may be an Encoder (described by :func:`describe_model`) or a sentence. For a
    table no model produced, say so, e.g. ``model="none (counts from the corpus)"``.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"with_provenance needs a pandas DataFrame, got {type(table).__name__}; "
                        "turn a Series into a table with .to_frame() first.")
    fields = {"model": model if isinstance(model, str) else describe_model(model), "pooling": pooling,
              "aggregation": aggregation, "split": split, **more}
    empty = [key for key in PROVENANCE_FIELDS if not str(fields[key]).strip()]
    if empty:
        raise ValueError(f"Provenance fields {empty} are empty; say what produced the table, or 'n/a' and why.")
    earlier = {key: value for key, value in table.attrs.get("provenance", {}).items() if key not in fields}
    table.attrs["provenance"] = {**{key: str(value) for key, value in fields.items()}, **earlier}
    return table


def inherit_provenance(table: pd.DataFrame, source: pd.DataFrame, facts: dict[str, str]) -> pd.DataFrame:
    """Give ``table`` the provenance of the ``source`` table it was derived from, with ``facts`` added or replaced; return it."""
    table.attrs["provenance"] = {**source.attrs.get("provenance", {}), **facts}
    return table


def table_caption(table: pd.DataFrame) -> str:
    """One line saying what produced a table: ``key: value`` for each fact in its provenance."""
    return "; ".join(f"{key}: {value}" for key, value in table.attrs.get("provenance", {}).items())


def _with_caption(table_html: str | None, caption: str) -> str | None:
    """``table_html`` with an escaped ``<caption>`` right after its first ``<table …>`` tag."""
    if not table_html or not caption:
        return table_html
    start = table_html.find("<table")
    end = table_html.find(">", start)
    if start < 0 or end < 0:
        return table_html
    return f"{table_html[:end + 1]}<caption>{html.escape(caption)}</caption>{table_html[end + 1:]}"


def dataframe_html(table: pd.DataFrame) -> str | None:
    """pandas' own HTML for ``table``, with its provenance as caption when it has one."""
    return _with_caption(table._repr_html_(), table_caption(table))


def styler_html(styler) -> str | None:
    """A Styler's HTML with the provenance of its data as caption (unless it already has a caption)."""
    caption = "" if getattr(styler, "caption", None) else table_caption(styler.data)
    return _with_caption(styler._repr_html_(), caption)


def _dataframe_text(table: pd.DataFrame, printer, cycle: bool) -> None:
    caption = table_caption(table)
    printer.text((caption + "\n" if caption else "") + repr(table))


def show_provenance_captions() -> bool:
    """Make this IPython session show each table's provenance as its caption (HTML and plain text).

    Tables without provenance look exactly as before. Calling it again changes nothing;
    outside IPython it does nothing and returns False.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(pd.DataFrame, dataframe_html)
    formatters["text/plain"].for_type(pd.DataFrame, _dataframe_text)
    try:
        from pandas.io.formats.style import Styler  # needs jinja2
    except ImportError:
        return True
    formatters["text/html"].for_type(Styler, styler_html)
    return True
