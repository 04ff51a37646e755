"""Fetch a producer's pure-Python wheel with pip and unpack it into cutlint's wheel cache
(cutlint.cache_dir): FlashInfer's (`flashinfer-python`) and CUTLASS's (`nvidia-cutlass`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path


class WheelError(Exception):
    """A wheel could not be fetched or unpacked; says why."""


def download_wheel(
    project: str,
    version: str,
    root: Path,
    ready: str,
    size_hint: str,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """`pip download --no-deps PROJECT==VERSION`, unpacked into `root`; returns `root`.

    Reuses an earlier download when `root / ready` exists; the .whl is deleted once unpacked, and
    an interrupted unpack leaves no half tree behind. `progress` hears what is about to happen."""
    if (root / ready).exists():
        return root
    dest = root.parent
    dest.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda _: None)
    say(f"downloading {project}=={version} with pip (--no-deps; {size_hint}) into {dest}")
    started = time.monotonic()
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(dest)]
    done = subprocess.run([*cmd, f"{project}=={version}"], capture_output=True, text=True)
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
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(partial)
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    for wheel in wheels:
        wheel.unlink(missing_ok=True)
    return root
