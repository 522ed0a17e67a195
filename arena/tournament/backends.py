"""Where matches are played: in this process, on a local process pool, or on a Dask cluster.

Every backend is a `concurrent.futures.Executor` running `arena.tournament.runner.play_matches` on small
picklable MatchSpecs, so the coordinator's code (`arena.tournament.coordinator.play_specs`) is the same for all
three; Dask's comes from `Client(address).get_executor()`. A local pool's workers end with the
coordinator however it ends, and are killed at once when the tournament is interrupted.
"""
import concurrent.futures as cf
import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import urllib.parse
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

from arena.extras import require

P = ParamSpec("P")
T = TypeVar("T")

class SerialExecutor(cf.Executor):
    """Runs each call at once, in this process (--jobs 1: no pickling, no pool)."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> "cf.Future[T]":
        future: cf.Future[T] = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            future.set_exception(e)
        return future


def exit_with(pid: int) -> None:
    """Ends this process as soon as process `pid` ends (a thread waits on its pidfd). A worker's
    parent is the fork server, which outlives a killed coordinator, so its death signal is not enough."""
    import select
    import threading
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None

    def watch():
        if fd is not None:
            select.select([fd], [], [])
        else:
            while os.path.exists(f"/proc/{pid}"):
                select.select([], [], [], 0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-coordinator").start()


def _worker_init(coordinator):
    # Ctrl-C and SIGTERM are the coordinator's to handle: it stops submitting and kills the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    exit_with(coordinator)


@contextlib.contextmanager
def _stderr_to_devnull():
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _kill_workers(pool):
    """Stops a process pool now: the matches in progress are abandoned (resume replays them)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.kill()
        except (OSError, AttributeError):
            pass
    # With its workers dead the pool's manager thread ends at once; waiting for it here keeps it from
    # failing later in the interpreter's exit (a traceback over our last line).
    pool.shutdown(wait=True, cancel_futures=True)


def preload_modules() -> list[str]:
    """Modules every worker needs, imported once in the fork server instead of once per worker."""
    import agents.registry
    import engines.registry
    return (["arena.tournament.runner"] + sorted({spec.module for spec in engines.registry.GAMES.values()})
            + sorted({target.split(":")[0] for target in agents.registry.BUILTIN.values()}))


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def check_backend(backend: str, address: str | None) -> None:
    """ValueError unless the backend is known and has what it needs (checked before a run starts)."""
    if backend not in ("local", "dask"):
        raise ValueError(f"unknown backend {backend!r}; choose local or dask")
    if backend == "dask":
        require("--backend dask", "distributed")
        if not address:
            raise ValueError("--backend dask needs --address tcp://HOST:PORT (a running Dask scheduler)")
        parts = urllib.parse.urlsplit(address)
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme not in ("tcp", "tls", "ws", "wss") or not parts.hostname or port is None \
                or parts.path not in ("", "/"):
            raise ValueError(f"--address must be like tcp://HOST:PORT, not {address!r}")


@contextlib.contextmanager
def executor(backend: str = "local", jobs: int | None = None, address: str | None = None
             ) -> Iterator[tuple[cf.Executor, int]]:
    """Yields (executor, number of parallel slots)."""
    check_backend(backend, address)
    if backend == "dask":
        from distributed import Client
        try:
            client = Client(address, timeout=20)
        except (OSError, TimeoutError) as e:
            raise ValueError(f"cannot reach the Dask scheduler at {address}: {e}") from None
        try:
            slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()) or 1
            yield client.get_executor(pure=False), slots
        finally:
            client.close()
        return
    jobs = jobs or default_jobs()
    if jobs == 1:
        yield SerialExecutor(), 1
        return
    # forkserver, not fork: workers start while the progress bar's thread runs, and forking a
    # threaded process can copy a held lock into the child.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preload_modules())
    with _stderr_to_devnull():
        # The fork server and the workers it forks inherit this stderr: a worker that is being
        # started when the run stops would print a traceback of its failed start over our output.
        multiprocessing.forkserver.ensure_running()
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_init,
                                  initargs=(os.getpid(),))
    try:
        yield pool, jobs
    except BaseException:
        _kill_workers(pool)
        raise
    else:
        pool.shutdown(wait=True, cancel_futures=True)
