"""Where verify's probe compiles run: Dask (`distributed`), as a `concurrent.futures.Executor`.

    with executor(jobs=16) as pool:                  # a LocalCluster on this machine
    with executor(jobs=16, scheduler="tcp://h:8786") as pool:   # a running cluster's scheduler

A compile is an nvcc subprocess: on this machine the cluster's workers are threads of this
process (`processes=False`), each waiting on its nvcc, so the progress and log callbacks run
here and nothing is pickled. Given a scheduler, the tasks and their inputs (the file's result,
the headers' path) go to the cluster's workers; the generated files and headers must be at the
same paths there (a shared file system), as `--shard` already asks of each machine.

A task whose worker is lost is run again on another one by the scheduler
(`distributed.scheduler.allowed-failures`, 3 by default); `retries` re-runs a task that raised,
which a probe never does: `outcome` returns a compile error as its value, so an nvcc that
rejects a file is a result for that file and is not compiled three more times.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

RETRIES = 1
"""Re-runs of a task that raised outside the probe's own error handling (a worker's disk full,
an OSError starting nvcc): once, possibly elsewhere, then it is that file's error."""


@contextlib.contextmanager
def executor(jobs: int, scheduler: str | None = None) -> Iterator[Executor]:
    """An Executor whose tasks Dask runs: on `scheduler`'s cluster, else on a LocalCluster of
    `jobs` workers of one thread each in this process. Closed (and the local cluster stopped)
    on leaving."""
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            client = stack.enter_context(Client(scheduler, set_as_default=False))  # type: ignore[no-untyped-call]
        else:
            cluster = stack.enter_context(
                LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=max(1, jobs),
                    threads_per_worker=1,
                    processes=False,
                    # a port of its own for the scheduler's HTTP routes: 8787, the default, is
                    # another cluster's on a shared machine (a warning on stderr, over the bar)
                    dashboard_address=":0",
                )
            )
            client = stack.enter_context(Client(cluster, set_as_default=False))  # type: ignore[no-untyped-call]
        pool = client.get_executor(pure=False, retries=RETRIES)
        try:
            yield pool
        finally:
            pool.shutdown(wait=True)


def outcome(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R | BaseException:
    """`fn(*args)`, or the exception it raised, as a value: a probe that fails is its file's
    result (run._finish records it), not a task for Dask to retry."""
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # the probe's ProbeError, an OSError from nvcc: the file's error
        return err
