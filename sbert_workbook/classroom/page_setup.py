"""The classroom app as the room sees it (``classroom/*.ipynb``, served by ``./workbook classroom``).

On a projector only the explorer, its explanation and one line naming the model belong on
screen. The set-up's developer output (quick mode, device, why ``auto`` chose a model, the
libraries' progress bars and log lines, file paths) is kept off the page here; the teacher
finds it with ``python -m sbert_workbook doctor``, in the lesson notebooks, and in
``encoder.resolved.describe()``.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys

#: Environment switches that keep the Hugging Face libraries' progress bars and logs off the page.
QUIET_LIBRARY_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
                     "TRANSFORMERS_VERBOSITY": "error", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}
TEACHERS_NOTES = "see the teacher's notes"
#: Which model the classroom pages load (``./workbook classroom --model``); the server sets it for every kernel.
CLASSROOM_MODEL_ENV_VAR = "SBERT_WORKBOOK_CLASSROOM_MODEL"


def silence_library_output() -> None:
    """Switch off the progress bars and log lines of transformers, huggingface_hub and datasets for this kernel."""
    os.environ.update(QUIET_LIBRARY_ENV)
    from huggingface_hub.utils import disable_progress_bars
    from transformers.utils import logging as transformers_logging

    disable_progress_bars()
    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()
    if "datasets" in sys.modules:  # not imported yet: it reads HF_DATASETS_DISABLE_PROGRESS_BARS when it is
        from datasets.utils import logging as datasets_logging

        datasets_logging.disable_progress_bar()
        datasets_logging.set_verbosity_error()


@contextlib.contextmanager
def quiet_setup():
    """Run set-up code (the classroom notebooks' resolve cell, the model load) with nothing printed.

    Library progress bars and logs stay off afterwards too; what the block printed is dropped,
    since the teacher can read it from ``python -m sbert_workbook doctor``. Errors still show.
    """
    silence_library_output()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def model_line(resolved) -> str:
    """The one line a classroom app shows about its model: its short name and, for a copy, what it is.

    ``resolved`` is a :class:`~sbert_workbook.encoding.resolve.ResolvedModel`; no path is shown.
    """
    name = resolved.model_id.rstrip("/").rsplit("/", 1)[-1]
    if resolved.source == "embedded package":
        return f"model: {name}, offline copy — {TEACHERS_NOTES}"
    if resolved.source == "local folder":
        return f"model: {name}, a local copy — {TEACHERS_NOTES}"
    return f"model: {name}"


def classroom_encoder(model: str = "auto", device=None):
    """The encoder a classroom app runs, loaded quietly; prints only :func:`model_line`.

    ``./workbook classroom --model NAME`` (the ``SBERT_WORKBOOK_CLASSROOM_MODEL`` variable it
    sets) overrides ``model`` for the whole room.
    """
    from sbert_workbook.encoding.encoder import load_encoder

    with quiet_setup():
        encoder = load_encoder(os.environ.get(CLASSROOM_MODEL_ENV_VAR, model), device=device)
    print(model_line(encoder.resolved))
    return encoder
