"""A server's first load, begun before the MCP SDK is imported and run beside it.

Importing the MCP SDK costs about a second of CPU (it builds some 550 pydantic
models), and reading a large catalog costs about as much again; neither needs the
other. :class:`PendingLoad` takes the ``--watch`` snapshot, then, on Linux with a
second core free and no other thread running, forks: the child runs the loader and
pickles its :class:`~toolcat.loader.LoadResult` into a pipe while the parent imports
the SDK; :meth:`PendingLoad.result` unpickles it as the child writes. Elsewhere, or
when anything in the child fails, ``result`` runs the loader in this process, so what
the caller gets (the result, or the loader's own exception) is the same either way.
Only a result crosses the pipe, never an exception or a traceback.

The snapshot is taken before the child reads anything, so an edit made during the
first load is picked up by the first poll (as :meth:`McpServer.load` promises).
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ._watch import FileSnapshot, watched_names

if TYPE_CHECKING:
    from toolcat.loader import LoadResult

__all__ = ["PendingLoad"]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _may_fork() -> bool:
    # Linux only: macOS's system libraries are not fork-safe, and Windows has no fork.
    # One core gains nothing (the two halves would take turns) and pays for the pickle.
    return sys.platform == "linux" and threading.active_count() == 1 and _cores() >= 2


class PendingLoad:
    """The first load of ``paths`` by ``loader``: begun now (in a child process when
    that helps; see the module), its result read later.

    Use it as ``McpServer.load(pending)`` with the server's own PATHs and loader, and
    :meth:`close` it when done (a context manager does): a child still running is
    stopped. ``fork=False`` never forks (the loader then runs in ``result``).
    """

    def __init__(
        self,
        paths: Sequence[str],
        loader: Callable[[Sequence[str]], LoadResult],
        *,
        fork: bool | None = None,
    ) -> None:
        self.paths = tuple(str(p) for p in paths)
        self._loader = loader
        self.snapshot = FileSnapshot(watched_names(self.paths))  # before anything is read
        self._pid: int | None = None
        self._pipe: int | None = None
        self.forked = False  # whether a child process does the load
        if fork if fork is not None else _may_fork():
            self._fork()

    def _fork(self) -> None:
        sys.stdout.flush()  # nothing buffered before the fork is written twice
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        try:
            with warnings.catch_warnings():  # Python 3.12+ on fork=True with threads running:
                warnings.simplefilter("ignore", DeprecationWarning)  # the child only loads
                pid = os.fork()
        except OSError:  # no process to spare: load here instead
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:  # the child: load, pickle the result into the pipe, leave
            os.close(read_end)
            self._child(write_end)
        os.close(write_end)
        self._pid, self._pipe, self.forked = pid, read_end, True

    def _child(self, write_end: int) -> None:
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it at once
            result = self._loader(self.paths)
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(result, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        except BaseException as exc:  # noqa: BLE001 - the parent loads again, sees it itself
            logging.getLogger("toolcat.serve").debug(
                "the first load in a child process stopped (%s): loading in the server",
                type(exc).__name__,
            )
        finally:
            os._exit(status)  # no atexit hooks, no flush of buffers copied from the parent

    def result(self) -> LoadResult:
        """The load's result (unpickled from the child, or loaded here); the loader's
        exceptions propagate as if it ran here. Called once (again, it loads again)."""
        if self._pipe is not None:
            pipe, self._pipe = self._pipe, None
            try:
                with os.fdopen(pipe, "rb") as stream:
                    loaded = pickle.load(stream)
            except Exception:  # noqa: BLE001 - the child failed or stopped: load here
                loaded = None
            finally:  # all it will write is read (or this was interrupted): no child left
                self._reap()
            if loaded is not None:
                result: LoadResult = loaded
                return result
        return self._loader(self.paths)

    def _reap(self) -> None:
        """Stop the child if it still runs (it has written all it will, or is not
        wanted any more) and collect its exit, so no process is left behind."""
        pid, self._pid = self._pid, None
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass

    def close(self) -> None:
        """Stop a child that is still running and release the pipe (idempotent)."""
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
        self._reap()

    def __enter__(self) -> PendingLoad:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
