"""A flashinfer-python release's wheel: which releases PyPI has, and reading files out of one.

Everything goes through pip (`pip index versions`, `pip download --no-deps`). A wheel is read in
place (zipfile): nothing is unpacked. An unpacked tree that is already there
(`<cache>/flashinfer-<version>/flashinfer/...`, as `cutlint verify` and the tests leave them) is
read instead of the wheel.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from cutlint.producers.flashinfer.derive.cpp import DeriveError
from cutlint.producers.flashinfer.releases import version_key

PACKAGE = "flashinfer-python"
FIRST = "0.5.0"


class WheelTree:
    """The files of one release: a wheel read in place, or the tree it was unpacked into."""

    def __init__(self, version: str, origin: Path) -> None:
        self.version = version
        self.origin = origin
        """The .whl file or the unpacked root (the directory that holds `flashinfer/`)."""
        self._zip = None if origin.is_dir() else zipfile.ZipFile(origin)
        self._names: list[str] | None = None

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()

    def names(self) -> list[str]:
        if self._names is None:
            if self._zip is None:
                root = str(self.origin)
                self._names = sorted(
                    os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                    for d, _, files in os.walk(self.origin / "flashinfer")
                    for f in files
                )
            else:
                self._names = sorted(n for n in self._zip.namelist() if not n.endswith("/"))
        return self._names

    def read(self, path: str) -> str:
        try:
            if self._zip is None:
                return (self.origin / path).read_text(errors="replace")
            return self._zip.read(path).decode(errors="replace")
        except (OSError, KeyError) as e:
            raise DeriveError(
                f"flashinfer-python {self.version}: no {path} in {self.origin}"
            ) from e


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=False,
    )


def list_releases(first: str = FIRST) -> list[str]:
    """Every version of flashinfer-python that pip sees on the index, from `first` on, pre-releases
    included, oldest first. pip lists no yanked release; see docs/flashinfer-releases.md."""
    done = _pip("index", "versions", "--pre", PACKAGE)
    m = re.search(r"Available versions:\s*(.+)", done.stdout)
    if done.returncode != 0 or not m:
        raise DeriveError(f"pip index versions {PACKAGE} failed: {done.stderr.strip()[-500:]}")
    versions = [v.strip() for v in m[1].split(",") if v.strip()]
    low = version_key(first)
    return sorted((v for v in versions if version_key(v) >= low), key=version_key)


def open_release(version: str, cache: Path, download: bool = True) -> WheelTree:
    """The files of `version`: an unpacked tree in `cache`, else its wheel there, else (when
    `download`) the wheel pip downloads into `cache`."""
    tree = cache / f"flashinfer-{version}"
    if (tree / "flashinfer" / "data").is_dir():
        return WheelTree(version, tree)
    wheel = _wheel_in(cache, version)
    if wheel is not None:
        return WheelTree(version, wheel)
    if not download:
        raise DeriveError(f"no wheel or unpacked tree of flashinfer-python {version} in {cache}")
    cache.mkdir(parents=True, exist_ok=True)
    done = _pip(
        "download", "--no-deps", "--progress-bar", "off", "-d", str(cache), f"{PACKAGE}=={version}"
    )
    wheel = _wheel_in(cache, version)
    if done.returncode != 0 or wheel is None:
        raise DeriveError(
            f"pip download {PACKAGE}=={version} gave no wheel: {done.stderr.strip()[-500:]}"
        )
    if "yanked" in (done.stdout + done.stderr).lower():
        print(f"note: pip reports flashinfer-python {version} as yanked", file=sys.stderr)
    return WheelTree(version, wheel)


def _wheel_in(cache: Path, version: str) -> Path | None:
    found = sorted(cache.glob(f"flashinfer_python-{version}-*.whl"))
    return found[0] if found else None
