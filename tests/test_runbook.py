"""The headless runner: quick mode reaches the kernel, figures survive into the exported HTML."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
import plotly.graph_objects as go
import pytest

from sbert_workbook.runner.notebooks import PLOTLY_MIME, run_notebook, with_plotly_as_html


def _figure_output(y):
    figure = go.Figure(go.Scatter(y=y)).to_plotly_json()
    return nbformat.v4.new_output("display_data", data={PLOTLY_MIME: figure, "text/plain": "Figure"})


def test_plotly_outputs_gain_html_with_plotly_js_embedded_once():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("fig")
    cell.outputs = [_figure_output([1, 2]), _figure_output([3, 4])]
    nb.cells = [cell]
    converted = with_plotly_as_html(nb)
    first, second = (output["data"]["text/html"] for output in converted.cells[0].outputs)
    assert "Plotly.newPlot" in first and "Plotly.newPlot" in second
    assert len(first) > 1_000_000 > len(second), "plotly.js is embedded in the first figure only"
    assert "text/html" not in nb.cells[0].outputs[0]["data"], "the executed notebook itself is left as it was"


def test_run_notebook_runs_quick_and_writes_html_with_the_figure(tmp_path, monkeypatch):
    monkeypatch.delenv("SBERT_WORKBOOK_QUICK", raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os, plotly.graph_objects as go\n"
                                          "print('quick', os.environ['SBERT_WORKBOOK_QUICK'])\n"
                                          "print(f\"set {os.environ.get('SBW_PROBE_SET')}, unset {os.environ.get('SBW_PROBE_UNSET')}\")\n"
                                          "go.Figure(go.Bar(y=[1, 2, 3]))")]
    source = tmp_path / "notebooks" / "99_probe.ipynb"
    source.parent.mkdir()
    nbformat.write(nb, source)
    monkeypatch.setenv("SBW_PROBE_UNSET", "inherited")
    run = run_notebook(source, build_dir=tmp_path / "build", env={"SBW_PROBE_SET": "given"}, unset=("SBW_PROBE_UNSET",))
    executed = nbformat.read(run.executed, as_version=4)
    assert "quick 1" in executed.cells[0].outputs[0]["text"]
    assert "set given, unset None" in executed.cells[0].outputs[0]["text"], "the kernel gets env and loses unset"
    assert "SBERT_WORKBOOK_QUICK" not in os.environ and "SBW_PROBE_SET" not in os.environ, \
        "this process's environment is untouched (runs from two threads share it)"
    assert os.environ["SBW_PROBE_UNSET"] == "inherited"
    assert "Plotly.newPlot" in run.html.read_text()


def test_run_all_two_at_a_time_returns_the_runs_in_lesson_order_on_one_thread_each(tmp_path):
    from sbert_workbook.runner.notebooks import run_all

    folder = tmp_path / "notebooks"
    folder.mkdir()
    for name in ("01_first", "02_second"):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(f"import os\nprint('{name}', os.environ.get('OMP_NUM_THREADS'))")]
        nbformat.write(nb, folder / f"{name}.ipynb")
    runs = run_all(build_dir=tmp_path / "build", parallel=2, folder=folder)
    assert [run.notebook.name for run in runs] == ["01_first.ipynb", "02_second.ipynb"]
    printed = [nbformat.read(run.executed, as_version=4).cells[0].outputs[0]["text"].strip() for run in runs]
    assert printed == ["01_first 1", "02_second 1"], "each kernel works on one thread while two run side by side"


def test_a_notebook_run_alone_sees_only_itself_in_a_folder_of_its_own_and_failures_come_back(tmp_path):
    """``alone_in``, as colab-check runs a notebook the way Colab does (alone in /content), and ``raise_failures``."""
    from sbert_workbook.runner.notebooks import run_all

    folder, scratch = tmp_path / "notebooks", tmp_path / "scratch"
    folder.mkdir(), scratch.mkdir()
    (folder / "beside.txt").write_text("a file of the checkout")
    ok, broken = nbformat.v4.new_notebook(), nbformat.v4.new_notebook()
    ok.cells = [nbformat.v4.new_code_cell("import os\nprint(os.getcwd())\nprint(sorted(os.listdir('.')))")]
    broken.cells = [nbformat.v4.new_code_cell("open('beside.txt')")]
    nbformat.write(ok, folder / "01_ok.ipynb")
    nbformat.write(broken, folder / "02_broken.ipynb")
    runs = run_all(build_dir=tmp_path / "build", folder=folder, alone_in=scratch, raise_failures=False)
    cwd, listing = nbformat.read(runs[0].executed, as_version=4).cells[0].outputs[0]["text"].splitlines()
    assert Path(cwd).parent == scratch and listing == "['01_ok.ipynb']", (cwd, listing)
    assert runs[0].error is None and list(scratch.iterdir()) == [], "each run's folder is removed afterwards"
    assert runs[1].error.startswith("FileNotFoundError: [Errno 2] No such file or directory: 'beside.txt'"), runs[1].error
    assert runs[1].executed.is_file(), "the failed run's executed copy is kept, to read the failure"
    with pytest.raises(Exception, match="beside.txt"):
        run_all(["02_"], build_dir=tmp_path / "build", folder=folder, alone_in=scratch)


def test_parameters_are_injected_after_the_parameters_cell_and_win():
    from sbert_workbook.runner.notebooks import with_parameters

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os"),
                nbformat.v4.new_code_cell("QUICK_PAIRS = 40\nMODEL = 'auto'", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("LIMIT = QUICK_PAIRS")]
    with_parameters(nb, {"QUICK_PAIRS": 16, "MODEL": "bert-base-uncased"})
    assert [cell.source.splitlines()[0] for cell in nb.cells] == ["import os", "QUICK_PAIRS = 40", "# Injected parameters",
                                                                  "LIMIT = QUICK_PAIRS"]
    namespace = {}
    for cell in nb.cells[1:]:
        exec(cell.source, namespace)
    assert (namespace["LIMIT"], namespace["MODEL"]) == (16, "bert-base-uncased")


class _SocketThatMissesItsWakeUp:
    """A channel whose reply is ready but whose waits end empty, as in the stall: only a fresh look finds it."""

    def __init__(self, empty_waits: int, wait_for_real: bool = False):
        self.empty_waits, self.wait_for_real, self.timeouts = empty_waits, wait_for_real, []

    async def get_msg(self, timeout=None):
        import asyncio
        from queue import Empty

        self.timeouts.append(timeout)
        if len(self.timeouts) <= self.empty_waits:
            if self.wait_for_real:
                await asyncio.sleep(timeout)
            raise Empty
        return {"msg_type": "execute_reply"}


def test_a_reply_whose_wake_up_was_lost_is_taken_at_the_next_slice_not_at_the_timeout():
    import asyncio

    from sbert_workbook.runner.replies import waiting_in_slices

    channel = _SocketThatMissesItsWakeUp(empty_waits=3)
    assert asyncio.run(waiting_in_slices(channel.get_msg, 0.01)(timeout=900)) == {"msg_type": "execute_reply"}
    assert len(channel.timeouts) == 4 and max(channel.timeouts) <= 0.01, "each wait lasts one slice, not the 900 s"
    assert asyncio.run(waiting_in_slices(_SocketThatMissesItsWakeUp(2).get_msg, 0.01)()) == {"msg_type": "execute_reply"}


def test_waiting_in_slices_keeps_the_overall_timeout():
    import asyncio
    import time
    from queue import Empty

    from sbert_workbook.runner.replies import waiting_in_slices

    channel = _SocketThatMissesItsWakeUp(empty_waits=10**9, wait_for_real=True)
    started = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(waiting_in_slices(channel.get_msg, 0.05)(timeout=0.3))
    assert 0.3 <= time.monotonic() - started < 0.6 and 6 <= len(channel.timeouts) <= 8


def test_install_cuts_every_async_kernel_channel_wait_into_slices_once():
    from jupyter_client.channels import AsyncZMQSocketChannel

    from sbert_workbook.runner import replies as kernel_replies

    kernel_replies.install()
    patched = AsyncZMQSocketChannel.get_msg
    kernel_replies.install()
    assert AsyncZMQSocketChannel.get_msg is patched and getattr(patched, kernel_replies._MARK)


class _ScriptedChannel:
    """A channel that follows a script on a fake clock: each look takes its seconds, then returns a message or Empty."""

    def __init__(self, clock, script: list[tuple[float, bool]]):
        self.clock, self.script = clock, list(script)

    async def get_msg(self, timeout=None):
        from queue import Empty

        took, found = self.script.pop(0)
        self.clock.now += took
        if not found:
            raise Empty
        return {"msg_type": "execute_reply"}


@pytest.mark.parametrize("caller_timeout, script, rescued, control", [
    (900, [(1.0, False), (0.0005, True)], 1, 0),   # a slice ended empty and the next look found the reply at once
    (900, [(1.0, True)], 1, 0),                    # found by the look at the slice's end, not by a wake-up
    (None, [(1.003, True)], 1, 0),                 # the same, a little late (the event loop's timer), on an endless wait
    (900, [(0.4, True)], 0, 0),                    # woken mid-slice: the wake-up worked
    (900, [(1.0, False), (0.4, True)], 0, 0),      # an empty slice, then a wake-up
    (900, [(0.0005, True)], 0, 0),                 # there at the first look: no slice ended before it
    (900, [(0.995, True)], 0, 1),                  # a wake-up 5 ms before the end: the control window
    (0.5, [(0.5, True)], 0, 0),                    # the caller's last slice: an unsliced wait would end there too
])
def test_a_rescue_is_a_message_taken_by_a_look_at_a_slice_edge_not_by_a_wake_up(monkeypatch, caller_timeout, script,
                                                                                 rescued, control):
    import asyncio
    from types import SimpleNamespace

    from sbert_workbook.runner import replies as kernel_replies

    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(kernel_replies, "time", SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(kernel_replies, "counts", type(kernel_replies.counts)())
    channel = _ScriptedChannel(clock, script)
    wait = kernel_replies.waiting_in_slices(channel.get_msg, 1.0, "shell")
    assert asyncio.run(wait(timeout=caller_timeout)) == {"msg_type": "execute_reply"} and not channel.script
    assert (kernel_replies.counts["shell rescued"], kernel_replies.counts["shell control"]) == (rescued, control)
    assert kernel_replies.rescued() == rescued


def _fake_jupyter_client_channels(monkeypatch):
    """jupyter_client.channels with a fresh asyncio channel class, so install() patches that one, not the real one."""
    from jupyter_client import channels

    class Fresh:
        async def get_msg(self, timeout=None): ...

    monkeypatch.setattr(channels, "AsyncZMQSocketChannel", Fresh)
    return Fresh


@pytest.mark.parametrize("value, slices", [(None, True), ("1", True), ("0", False), ("off", False), (" False ", False)])
def test_sbert_workbook_reply_slices_0_leaves_the_kernel_channels_as_they_are(monkeypatch, value, slices):
    from sbert_workbook.runner import replies as kernel_replies

    channel_class = _fake_jupyter_client_channels(monkeypatch)
    original = channel_class.get_msg
    if value is None:
        monkeypatch.delenv(kernel_replies.SLICES_ENV, raising=False)
    else:
        monkeypatch.setenv(kernel_replies.SLICES_ENV, value)
    assert kernel_replies.install() is slices
    assert (channel_class.get_msg is not original) is slices
    assert getattr(channel_class.get_msg, kernel_replies._MARK, False) is slices


def test_the_async_channel_is_found_in_jupyter_client_7_and_8():
    """Colab's jupyter_client 7.4.9 has only ZMQSocketChannel, with a coroutine get_msg; 8.x adds AsyncZMQSocketChannel
    beside a blocking ZMQSocketChannel (shapes copied from both releases' channels.py)."""
    from types import SimpleNamespace

    from sbert_workbook.runner.replies import async_channel_class

    class Blocking:
        def get_msg(self, timeout=None): ...

    class Async:
        async def get_msg(self, timeout=None): ...

    assert async_channel_class(SimpleNamespace(__name__="v7", ZMQSocketChannel=Async)) is Async
    assert async_channel_class(SimpleNamespace(__name__="v8", ZMQSocketChannel=Blocking, AsyncZMQSocketChannel=Async)) is Async
    with pytest.raises(RuntimeError, match="no asyncio kernel channel"):
        async_channel_class(SimpleNamespace(__name__="v6", ZMQSocketChannel=Blocking))
