"""Where matches are played: in this process, on a local process pool, or on a Dask cluster.

Every backend is a `concurrent.futures.Executor` running `arena.runner.play_match` on small
picklable MatchSpecs, so the coordinator's code is the same for all three; Dask's comes from
`Client(address).get_executor()`.
"""
import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import signal


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


def _ignore_sigint():
    # Ctrl-C is the coordinator's to handle: it stops submitting and shuts the pool down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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


@contextlib.contextmanager
def executor(backend="local", jobs=None, address=None):
    """Yields (executor, number of parallel slots)."""
    if backend == "dask":
        if not address:
            raise ValueError("--backend dask needs --address tcp://HOST:PORT (a running scheduler)")
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
    if backend != "local":
        raise ValueError(f"unknown backend {backend!r}; choose local or dask")
    jobs = jobs or default_jobs()
    if jobs == 1:
        yield SerialExecutor(), 1
        return
    # forkserver, not fork: workers start while the progress bar's thread runs, and forking a
    # threaded process can copy a held lock into the child.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preload_modules())
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_ignore_sigint)
    try:
        yield pool, jobs
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
