"""Fetch a producer's pure-Python wheel with pip and unpack it into cutlint's wheel cache
(cutlint.cache_dir): FlashInfer's (`flashinfer-python`) and CUTLASS's (`nvidia-cutlass`).

How far it is goes to a `Meter` (report/progress.py draws it): the bytes pip has downloaded so
far, read off the file it writes into a temporary directory of its own (pip 23 has no
machine-readable progress: `--progress-bar raw` came with 24.1), then the files unpacked of the
wheel's total. Each finished step is also one line for `progress` (a log's line per unit)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

Meter = Callable[[str, int, int], None]
"""`meter(unit, done, total)`: "bytes" downloaded (total 0: not known) or "files" unpacked."""

POLL = 0.2
"""Seconds between two looks at the size of pip's download."""


class WheelError(Exception):
    """A wheel could not be fetched or unpacked; says why."""


def download_wheel(
    project: str,
    version: str,
    root: Path,
    ready: str,
    size_hint: str,
    progress: Callable[[str], None] | None = None,
    meter: Meter | None = None,
) -> Path:
    """`pip download --no-deps PROJECT==VERSION`, unpacked into `root`; returns `root`.

    Reuses an earlier download when `root / ready` exists; the .whl is deleted once unpacked, and
    an interrupted unpack leaves no half tree behind. `progress` hears what is about to happen
    and each step done, `meter` how far a step is."""
    if (root / ready).exists():
        return root
    dest = root.parent
    dest.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda _: None)
    say(f"downloading {project}=={version} with pip (--no-deps; {size_hint}) into {dest}")
    started = time.monotonic()
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(dest)]
    done = _pip(
        [*cmd, f"{project}=={version}"],
        dest,
        None if meter is None else lambda n: meter("bytes", n, 0),
    )
    if done.returncode != 0:
        raise WheelError(f"pip download {project}=={version} failed: {done.stderr.strip()[-500:]}")
    stem = project.replace("-", "_")
    wheels = sorted(dest.glob(f"{stem}-{version}-*.whl"))
    if not wheels:
        raise WheelError(f"no wheel for {project}=={version} in {dest}")
    size = wheels[0].stat().st_size
    say(
        f"unpacking {wheels[0].name} ({size / 1e6:.0f} MB, {time.monotonic() - started:.0f} s) "
        f"into {root}"
    )
    partial = dest / f".{root.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    started = time.monotonic()
    with zipfile.ZipFile(wheels[0]) as z:
        members = z.infolist()
        for n, member in enumerate(members, 1):
            z.extract(member, partial)
            if meter is not None:
                meter("files", n, len(members))
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    for wheel in wheels:
        wheel.unlink(missing_ok=True)
    say(f"unpacked {len(members):,} files ({time.monotonic() - started:.0f} s)")
    return root


def _pip(
    cmd: list[str], dest: Path, downloaded: Callable[[int], None] | None
) -> subprocess.CompletedProcess[str]:
    """Run pip; with `downloaded`, tell it the bytes pip has written so far, every POLL seconds.
    pip downloads into a directory under TMPDIR and copies the wheel into `dest` at the end, so
    the size is read under a TMPDIR of this run's own."""
    if downloaded is None:
        return subprocess.run(cmd, capture_output=True, text=True)
    with tempfile.TemporaryDirectory(prefix=".pip-", dir=dest) as tmp:
        env = {**os.environ, "TMPDIR": tmp}
        most = 0
        with subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        ) as proc:
            while True:
                try:
                    out, err = proc.communicate(timeout=POLL)
                    break
                except subprocess.TimeoutExpired:
                    # never back: pip removes its copy once the wheel is in `dest`
                    most = max(most, _largest_under(Path(tmp)))
                    downloaded(most)
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _largest_under(directory: Path) -> int:
    """The size of the largest file under `directory`: the wheel being downloaded (a sum would
    count it twice while pip copies it at the end)."""
    largest = 0
    for parent, _, names in os.walk(directory):
        for name in names:
            try:
                largest = max(largest, os.stat(os.path.join(parent, name)).st_size)
            except OSError:  # pip moved or removed it meanwhile
                continue
    return largest
