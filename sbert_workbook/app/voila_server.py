"""The classroom app's Voilà server: Voilà itself, with kernel replies taken within a second (issue 21).

Voilà executes each visitor's notebook on the server with nbclient, which can miss the wake-up for a reply
the kernel has already sent (:mod:`sbert_workbook.app.kernel_replies`); the room then sees "Executing 6 of 8"
forever. ``python -m sbert_workbook.app.voila_server ARGS`` installs the fix in the server process and runs
``voila ARGS``; :func:`sbert_workbook.app.room.classroom_command` starts it (``./workbook classroom``).
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    from voila.app import main as voila_main

    from sbert_workbook.app import kernel_replies

    kernel_replies.install()
    sys.argv = ["voila", *(sys.argv[1:] if argv is None else argv)]
    voila_main()


if __name__ == "__main__":
    main()
