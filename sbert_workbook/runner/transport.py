"""How every kernel the workbook starts talks to its client: one setting, used by the runner, the classroom app
and colab-check.

jupyter_client offers two transports (``KernelManager.transport``):

- ``"tcp"``: five loopback ports per kernel, picked free and bound later by the kernel, so another process can
  take one in between and a client then waits on a reply that never comes.
- ``"ipc"``: five Unix socket files per kernel, named ``<ip>-1`` … ``<ip>-5``. jupyter_client picks the
  numbers by looking for files not yet present, so kernels that share one ``ip`` and start at the same moment
  pick the same files before either binds, and their messages cross (``Invalid Signature`` in the server log).
  With no ``ip`` set, jupyter_client derives it from the kernel's own connection file
  (``kernel-<id>.json`` → ``kernel-<id>-ipc``), which is unique per kernel: that is what :func:`kernel_settings`
  asks for, and why it never sets ``ip``.

``tools/classroom_load.py`` measured them (docs/classroom_load.md): ten, twenty and thirty pages opened at once drew
none with a shared ``ip``, every one with a per-kernel ``ip``, and ten of ten over TCP. Sockets are POSIX only;
elsewhere TCP is used.
"""
from __future__ import annotations

import os
import tempfile

TRANSPORTS = ("ipc", "tcp")
#: A Unix socket's path holds at most 107 bytes (sockaddr_un); a kernel's is its folder plus about 50 characters
#: (``/kernel-<36-character id>-ipc-5``), so its folder may take 50.
SOCKET_FOLDER_MAX = 50


def socket_folder_root() -> str:
    """Where to make the folders that hold kernels' socket files: the system's temporary folder if its path is short
    enough for a socket path, else ``/tmp``."""
    root = tempfile.gettempdir()
    return root if len(root) + len("/voila_12345678") <= SOCKET_FOLDER_MAX or os.name != "posix" else "/tmp"


def default_transport() -> str:
    """``"ipc"`` where Unix sockets exist, else ``"tcp"``."""
    return "ipc" if os.name == "posix" else "tcp"


def kernel_settings(transport: str | None = None, connection_file: str | None = None) -> dict[str, str]:
    """``KernelManager`` traits for ``transport`` (the default one when None).

    ``connection_file``: where a lone kernel manager (nbclient's) writes its connection file; its sockets are named
    after it, so give each run its own short folder (socket paths are limited to about 100 characters). A server
    (Voilà, JupyterLab) names each kernel's connection file itself, in its own connection folder.
    """
    transport = transport or default_transport()
    if transport not in TRANSPORTS:
        raise ValueError(f"Unknown kernel transport {transport!r}: use one of {TRANSPORTS}.")
    if transport == "ipc" and os.name != "posix":
        raise ValueError("The 'ipc' kernel transport needs Unix sockets, which this system lacks: use 'tcp'.")
    settings = {"transport": transport}
    if connection_file is not None:
        settings["connection_file"] = connection_file
    return settings


def kernel_config(transport: str | None = None, connection_file: str | None = None):
    """:func:`kernel_settings` as a traitlets ``Config``, for ``nbclient.NotebookClient(config=...)``."""
    from traitlets.config import Config

    return Config({"KernelManager": kernel_settings(transport, connection_file)})


def kernel_options(transport: str | None = None) -> list[str]:
    """:func:`kernel_settings` as command-line options for Voilà (``--KernelManager.transport=ipc``), with its
    connection folder where socket paths stay short (:func:`socket_folder_root`)."""
    return ([f"--KernelManager.{name}={value}" for name, value in kernel_settings(transport).items()]
            + [f"--Voila.connection_dir_root={socket_folder_root()}"])
