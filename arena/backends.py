"""Where matches are played: in this process, on a local process pool, or on a Dask cluster.

Every backend is a `concurrent.futures.Executor` running `arena.runner.play_match` on small
picklable MatchSpecs, so the coordinator's code (`play_all`) is the same for all three; Dask's comes from
`Client(address).get_executor()`.
"""
import concurrent.futures as cf
import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import signal

TASK_SECONDS = 0.05   # the work sent to a worker at once, when matches are quick


class MatchFailed(Exception):
    """A match raised inside the arena or an engine (agents' errors are faults, not this)."""


class SerialExecutor(cf.Executor):
    """Runs each call at once, in this process (--jobs 1: no pickling, no pool)."""

    def submit(self, fn, *args, **kwargs):
        future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            future.set_exception(e)
        return future


def exit_with(pid):
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
def stop_requests(immediate):
    """Ctrl-C, SIGTERM and SIGHUP ask the tournament to stop, while this lasts; yields a function
    that says whether one came. The loop then stops at its next safe point (within a tenth of a
    second). With `immediate` (matches played in this process) or at a second signal,
    KeyboardInterrupt is raised at once instead."""
    count = [0]

    def request(signum, frame):
        count[0] += 1
        if immediate or count[0] > 1:
            raise KeyboardInterrupt

    previous = {s: signal.signal(s, request) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield lambda: count[0] > 0
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


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
    pool.shutdown(wait=False, cancel_futures=True)


def preload_modules():
    """Modules every worker needs, imported once in the fork server instead of once per worker."""
    import agents.registry
    import engines.registry
    return (["arena.runner"] + sorted({spec.module for spec in engines.registry.GAMES.values()})
            + sorted({target.split(":")[0] for target in agents.registry.BUILTIN.values()}))


def default_jobs():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def check_backend(backend, address):
    """ValueError unless the backend is known and has what it needs (checked before a run starts)."""
    if backend not in ("local", "dask"):
        raise ValueError(f"unknown backend {backend!r}; choose local or dask")
    if backend == "dask" and not address:
        raise ValueError("--backend dask needs --address tcp://HOST:PORT (a running Dask scheduler)")


@contextlib.contextmanager
def executor(backend="local", jobs=None, address=None):
    """Yields (executor, number of parallel slots)."""
    check_backend(backend, address)
    if backend == "dask":
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--backend dask needs the dask[distributed] package") from None
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


def play_all(store, todo, total, already, backend, jobs, address, quiet):
    """Plays `todo` on the chosen backend, storing each result as it arrives; returns the run status."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from arena.cli_common import rich_console
    from arena.sandbox import POOL

    console = rich_console(stderr=True)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                        console=console, disable=quiet or not console.is_terminal, transient=False)
    specs = {s.match_id: s for s in todo}
    queue = list(todo)
    interrupted = False
    try:
        serial = backend == "local" and (jobs or default_jobs()) == 1
        with stop_requests(immediate=serial) as stop_requested, \
                executor(backend, jobs, address) as (pool, slots), progress:
            task = progress.add_task("matches", total=total, completed=already)
            _play(pool, slots, store, specs, queue, lambda: progress.advance(task), stop_requested)
    except KeyboardInterrupt:
        # The workers are killed already (executor()); further Ctrl-Cs would only interrupt the
        # cleanup, which takes no time, so they are ignored from here on.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        interrupted = True
        console.print("stopped: the matches in progress were abandoned and will be replayed on resume")
    finally:
        POOL.close()
    return "interrupted" if interrupted else "finished"


def _play(pool, slots, store, specs, queue, advance, stop_requested):
    """Submits `queue` in batches, at most 2 per slot in flight, and stores each result as it arrives."""
    from arena.bot_server import describe
    from arena.runner import play_matches

    window = 2 * slots   # tasks in flight: enough that no worker waits for the coordinator
    pending = {}         # future -> its batch of match ids
    durations = []
    chunk, next_up = 1, 0
    while next_up < len(queue) or pending:
        while next_up < len(queue) and len(pending) < window:
            batch = queue[next_up:next_up + chunk]
            next_up += len(batch)
            pending[pool.submit(play_matches, batch)] = [b.match_id for b in batch]
        finished, _ = cf.wait(list(pending), timeout=0.1, return_when=cf.FIRST_COMPLETED)
        if stop_requested():
            raise KeyboardInterrupt
        failed = None
        for future in sorted(finished, key=lambda f: pending[f][0]):
            ids = pending.pop(future)
            if future.cancelled():
                continue
            try:
                results, error = future.result()
            except Exception as e:
                results, error = [], (ids[0], describe(e))
            for result in results:
                store.record(specs[result.match_id], result)
                durations.append(result.duration)
                advance()
            if error and not failed:
                # A bug in an engine or the arena, not an agent's fault: stop, keep what is stored.
                spec = specs[error[0]]
                failed = MatchFailed(f"match {spec.match_id} ({spec.game_id}, seed {spec.seed}) "
                                     f"failed: {error[1]}")
        if failed:
            for future in pending:
                future.cancel()
            raise failed
        if slots > 1 and durations:
            # Cheap matches travel in batches of about TASK_SECONDS, fewer round trips; never so
            # large that the last batches leave a worker idle.
            mean = sum(durations[-100:]) / len(durations[-100:])
            left = len(queue) - next_up
            chunk = max(1, min(64, int(TASK_SECONDS / max(mean, 1e-6)), left // (2 * slots)))
