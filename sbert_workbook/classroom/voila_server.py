"""The classroom app's Voilà server: Voilà itself, with kernel replies taken within a second (issue 21) and a room's
preheated kernels kept for their visitors (issue 54).

Voilà executes each visitor's notebook on the server with nbclient, which can miss the wake-up for a reply
the kernel has already sent (:mod:`sbert_workbook.runner.replies`); the room then sees "Executing 6 of 8"
forever. ``python -m sbert_workbook.classroom.voila_server ARGS`` installs the fix in the server process and runs
``voila ARGS``, with :mod:`sbert_workbook.classroom.room_pool` in front of Voilà's preheating kernel manager and error
pages that render (:func:`install_error_pages`); :func:`sbert_workbook.classroom.room.classroom_command` starts it
(``./workbook classroom``).
"""
from __future__ import annotations

import html
import sys

#: Seconds after which the room-is-full page loads itself again (the HTTP ``Refresh`` header browsers honour).
COME_BACK_AFTER_S = 60


def error_page(status_code: int, reason: str) -> str:
    """A plain error page that needs nothing from the server's settings."""
    title = html.escape(f"{status_code}: {reason}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body style='font-family: sans-serif; text-align: center'><h1>{title}</h1></body></html>")


def install_error_pages() -> None:
    """Error pages that render under Voilà, and a room-is-full page that tries again by itself.

    jupyter_server's HTML error template needs a ``static_path`` Voilà does not set, so an error from one of its
    handlers (a page's kernel connection to a kernel that is gone: 404) ended in "Uncaught exception in write_error"
    and a broken reply; such a page is now the plain :func:`error_page`. A visitor turned away because the room is
    full (:data:`sbert_workbook.classroom.room.ROOM_FULL_TITLE`) gets a page that loads again after
    :data:`COME_BACK_AFTER_S` seconds."""
    from http.client import responses

    from jupyter_server.base.handlers import JupyterHandler

    from sbert_workbook.classroom.room import ROOM_FULL_TITLE

    original = JupyterHandler.write_error
    if getattr(original, "renders_without_static_path", False):
        return

    def write_error(self, status_code: int, **kwargs) -> None:
        error = (kwargs.get("exc_info") or (None, None, None))[1]
        reason = getattr(error, "reason", None) or responses.get(status_code, "Unknown HTTP Error")
        if status_code == 503 and reason == ROOM_FULL_TITLE:
            self.set_header("Refresh", str(COME_BACK_AFTER_S))
        try:
            original(self, status_code, **kwargs)
        except Exception:  # noqa: BLE001 - the template's own failure; the request's error is logged already
            self.clear_header("Content-Type")
            self.set_header("Content-Type", "text/html")
            self.write(error_page(status_code, reason))

    write_error.renders_without_static_path = True
    JupyterHandler.write_error = write_error


def main(argv: list[str] | None = None) -> None:
    import voila.app
    from voila.app import main as voila_main

    from sbert_workbook.runner import replies as kernel_replies
    from sbert_workbook.classroom.room_pool import room_pool_factory

    kernel_replies.install()
    install_error_pages()
    voila.app.voila_kernel_manager_factory = room_pool_factory(voila.app.voila_kernel_manager_factory)
    sys.argv = ["voila", *(sys.argv[1:] if argv is None else argv)]
    voila_main()


if __name__ == "__main__":
    main()
