"""verify's compiles on Dask (verify/dask_runner.py), with a real LocalCluster and a fake probe:
no nvcc. A compile error is its file's result; a lost worker's task runs again on another; a
cluster given by address runs the compiles and the results land in the store a later plain run
reads."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from distributed import LocalCluster

from cutlint.cli import main
from cutlint.verify import dask_runner
from cutlint.verify import run as verify_run
from tests.verify.test_verify_pipeline import fake_probe


def _boom(x: int) -> int:
    if x == 2:
        raise ValueError("nvcc said no")
    return x * 10


def test_the_local_cluster_runs_tasks_and_errors_are_values() -> None:
    with dask_runner.executor(jobs=2) as pool:
        got = [pool.submit(dask_runner.outcome, _boom, x).result() for x in range(4)]
    assert got[:2] == [0, 10] and got[3] == 30
    assert isinstance(got[2], ValueError) and str(got[2]) == "nvcc said no"


def _die_once(marker: str) -> int:
    """Ends its worker's process the first time it runs (as an OOM kill or a lost machine
    would), and answers its own pid the second."""
    if not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)
    return os.getpid()


def test_a_lost_workers_task_runs_again_on_another(tmp_path: Path) -> None:
    marker = tmp_path / "died"
    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as c,
        dask_runner.executor(jobs=0, scheduler=c.scheduler_address) as pool,
    ):
        pid = pool.submit(dask_runner.outcome, _die_once, str(marker)).result(timeout=120)
    assert marker.exists()  # the first run's worker died
    assert isinstance(pid, int) and pid != os.getpid()  # a worker process answered it


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    """A scheduler with one worker thread, reachable by its address, in this process (so that
    the fake probe monkeypatched here is the one its worker runs)."""
    with LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as c:
        yield c


def test_verify_on_a_scheduler_writes_the_store_a_plain_run_reads(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_nvcc: Path,
    flashinfer_root: Callable[[str], Path],
    generated_file: Callable[..., Path],
    cluster: LocalCluster,
) -> None:
    good, bad = generated_file("0.6.3", "good"), generated_file("0.6.3", "bad")
    calls: list[Path] = []
    monkeypatch.setattr(verify_run, "run_probe", fake_probe("/bad/", calls))
    args = ["verify", str(good), str(bad), "--nvcc", str(fake_nvcc)]
    args += ["--headers", str(flashinfer_root("0.6.3")), "--cache-dir", str(tmp_path / "cache")]
    args += ["--format", "json"]
    first = CliRunner().invoke(main, [*args, "--scheduler", cluster.scheduler_address])
    assert first.exit_code == 2, first.output  # the bad file: a compiler error, not a crash
    data = json.loads(first.stdout)
    by_status = {Path(r["path"]).parts[-10]: r["status"] for r in data["instantiations"]}
    assert by_status == {"good": "agree", "bad": "compiler error"}
    assert sorted(p.parts[-10] for p in calls) == ["bad", "good"]
    calls.clear()
    again = CliRunner().invoke(main, [*args, "--workers", "1"])  # a plain run: the local cluster
    assert json.loads(again.stdout)["instantiations"][0]["status"] in ("agree", "compiler error")
    assert "good" not in [p.parts[-10] for p in calls]  # its numbers came from the store
