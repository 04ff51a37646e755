"""Where `cutlint verify --device-code` leaves ptxas's report of a file for `cutlint check`.

The report's own entry is keyed by the file, its flags, the target and nvcc (verify/device_code.py);
check knows no flags, so each report is also kept under the hash of the file's bytes and the
target: `<cache>/verify/device/by-source/<sha[:2]>/<sha>-<target>.json`, the latest compile's."""

from __future__ import annotations

import hashlib
from pathlib import Path


def index_dir(cache: Path) -> Path:
    return cache / "verify" / "device" / "by-source"


def by_source(cache: Path, source: bytes, target: str) -> Path:
    digest = hashlib.sha256(source).hexdigest()
    return index_dir(cache) / digest[:2] / f"{digest}-{target}.json"
