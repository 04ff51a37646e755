"""One directory for everything cutlint downloads or keeps between runs.

`$CUTLINT_CACHE`, else `~/.cache/cutlint`. Never inside an output tree (`generate --out`), and
never FlashInfer's own JIT cache (`~/.cache/flashinfer`):

    wheels/flashinfer-<version>/   unpacked flashinfer-python wheels: FlashInfer's generator,
                                   headers and launchers (0.6.3: 8 MB download, 48 MB unpacked;
                                   0.7.2.post1: 62 MB, 427 MB; the .whl is deleted once
                                   unpacked). `generate`, `pregen`, `verify --download` and the
                                   tests fetch into it and share it.
    verify/results/                the compiler's answers (`cutlint verify`), ~2 KB each
    verify/build/                  probe builds, only with `verify --keep-build`
    generated/                     `cutlint generate`'s output when no --out is given

Delete any of it at any time: it is fetched or computed again when needed.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "CUTLINT_CACHE"

ENV_OFF = "CUTLINT_NO_CACHE"
"""Set (to anything but empty) to bypass the cache, as `--no-cache` does (the test suite sets it:
tests that replace a stage in-process must not be answered from disk)."""


def cache_dir() -> Path:
    """`$CUTLINT_CACHE`, else `~/.cache/cutlint`."""
    env = os.environ.get(ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "cutlint"


def wheels_dir() -> Path:
    """Where flashinfer-python wheels are downloaded and unpacked."""
    return cache_dir() / "wheels"


def generated_dir() -> Path:
    """`cutlint generate`'s default --out."""
    return cache_dir() / "generated"
