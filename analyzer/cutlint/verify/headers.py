"""Find what the compiler probe needs, or say exactly what is missing.

The probe compiles a generated file against the headers and the launcher of the FlashInfer
release that wrote it (the launcher recipe and the vendored CUTLASS both change between
releases), so a file's release decides its headers. They are looked for, in this order:

1. `--headers DIR`: a FlashInfer root, the directory that holds `flashinfer/data` (an unpacked
   `flashinfer-python` wheel, or a site-packages). Its release is read from
   `flashinfer/_build_meta.py` or the wheel's `.dist-info`, its CUTLASS from
   `flashinfer/data/cutlass/include/cutlass/version.h`; both must match what the file's release
   vendors (producers/flashinfer/data/releases.toml).
2. an installed `flashinfer-python` of that release (importlib.metadata, importlib.util.find_spec).
3. a wheel fetched earlier by `--download` into the wheel cache (`<cache>/wheels`).
4. with `--download`, `pip download --no-deps flashinfer-python==<release>` into that cache.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.cutlass.versions import Version, format_version, read_version_h
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.producers.flashinfer.wheel import FlashInferError, download_wheel
from cutlint.verify.nvcc_probe import LAUNCHER_REL

DISTRIBUTION = "flashinfer-python"


class SetupError(Exception):
    """Something the probe needs is missing or does not match; the message says what and how to
    get it. The CLI prints it and exits 2."""


# --- nvcc --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Nvcc:
    path: str
    version_text: str  # `nvcc --version`, whole: part of the cache key

    @property
    def release(self) -> str:
        """`13.0.88` from `Cuda compilation tools, release 13.0, V13.0.88`."""
        m = re.search(r"\bV(\d+\.\d+\.\d+)", self.version_text)
        return m.group(1) if m else self.version_text.strip().splitlines()[-1]


NVCC_CANDIDATES = ("/usr/local/cuda/bin/nvcc",)
MIN_NVCC = (12, 8)
"""The first CUDA with sm_120 (CUDA 12.8 release notes)."""


def find_nvcc(given: str | None) -> Nvcc:
    """`--nvcc PATH`, else `nvcc` on PATH, else $CUDA_HOME/bin/nvcc or /usr/local/cuda/bin/nvcc."""
    if given is not None:
        found = shutil.which(given)
        if found is None:
            raise SetupError(f"nvcc not found: --nvcc {given} is not an executable")
    else:
        cuda_home = [
            f"{os.environ[v]}/bin/nvcc" for v in ("CUDA_HOME", "CUDA_PATH") if v in os.environ
        ]
        candidates = [
            shutil.which("nvcc"),
            *(shutil.which(c) for c in (*cuda_home, *NVCC_CANDIDATES)),
        ]
        found = next((c for c in candidates if c), None)
        if found is None:
            raise SetupError(
                "nvcc not found: cutlint verify asks the CUDA compiler (12.8 or newer, for sm_120) "
                "for the numbers; put nvcc on PATH, set CUDA_HOME, or pass --nvcc PATH"
            )
    try:
        proc = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    except OSError as e:
        raise SetupError(f"nvcc not usable: {found} --version: {e}") from e
    if proc.returncode != 0 or "Cuda compilation tools" not in proc.stdout:
        raise SetupError(
            f"nvcc not usable: `{found} --version` printed {proc.stdout.strip()[-200:]!r}"
        )
    nvcc = Nvcc(found, proc.stdout.strip())
    release = tuple(int(x) for x in nvcc.release.split(".")[:2] if x.isdigit())
    if len(release) == 2 and release < MIN_NVCC:
        raise SetupError(
            f"nvcc too old: {found} is CUDA {nvcc.release}; sm_120a needs CUDA "
            f"{'.'.join(map(str, MIN_NVCC))} or newer"
        )
    return nvcc


# --- FlashInfer headers ------------------------------------------------------------------------


@dataclass(frozen=True)
class Headers:
    """A FlashInfer root the probe can compile against."""

    root: Path  # holds flashinfer/data
    flashinfer_version: str | None  # as the root says, when it says
    cutlass_version: Version | None  # cutlass/version.h under flashinfer/data
    origin: str  # how it was found, for the report

    @property
    def launcher(self) -> Path:
        return self.root / "flashinfer" / "data" / "csrc" / "nv_internal" / LAUNCHER_REL

    @property
    def cutlass_include(self) -> Path:
        return self.root / "flashinfer" / "data" / "cutlass" / "include"

    @property
    def label(self) -> str:
        cutlass = format_version(self.cutlass_version) if self.cutlass_version else "unknown"
        return f"FlashInfer {self.flashinfer_version or '(version unknown)'}, CUTLASS {cutlass}"


def root_version(root: Path) -> str | None:
    """The FlashInfer release of a root: `flashinfer/_build_meta.py`, else its `.dist-info`."""
    meta = root / "flashinfer" / "_build_meta.py"
    if meta.is_file():
        m = re.search(
            r"""^__version__\s*=\s*["']([^"']+)["']""", meta.read_text(errors="replace"), re.M
        )
        if m:
            return m.group(1)
    for info in sorted(root.glob("flashinfer_python-*.dist-info")):
        metadata = info / "METADATA"
        if metadata.is_file():
            m = re.search(r"^Version:\s*(\S+)", metadata.read_text(errors="replace"), re.M)
            if m:
                return m.group(1)
    return None


def open_root(directory: Path, origin: str) -> Headers:
    """A FlashInfer root at `directory` (or its parent, when given the `flashinfer` package)."""
    root = directory
    if (
        not (root / "flashinfer" / "data").is_dir()
        and (root / "data").is_dir()
        and root.name == "flashinfer"
    ):
        root = root.parent
    headers = Headers(root, root_version(root), None, origin)
    if not headers.launcher.is_file():
        raise SetupError(
            f"headers not usable: {origin} {directory} is not a FlashInfer root (no "
            f"flashinfer/data/csrc/nv_internal/{LAUNCHER_REL}); pass the directory that holds "
            "flashinfer/data: an unpacked flashinfer-python wheel or a site-packages"
        )
    return Headers(
        root, headers.flashinfer_version, read_version_h(headers.cutlass_include), origin
    )


def installed() -> Headers | None:
    """The installed flashinfer-python, if any (its package is located, never imported)."""
    try:
        importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    spec = importlib.util.find_spec("flashinfer")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    try:
        return open_root(package.parent, f"installed {DISTRIBUTION}")
    except SetupError:
        return None  # a build without the JIT sources (flashinfer/data): not usable


def _expected_cutlass(version: str) -> Version | None:
    release = flashinfer_releases().get(version)
    return release.cutlass if release else None


def _mismatch(headers: Headers, version: str) -> str | None:
    """Why these headers are not the ones `version` wrote its files against, or None."""
    if headers.flashinfer_version is not None and headers.flashinfer_version != version:
        return f"they are FlashInfer {headers.flashinfer_version}, the file's release is {version}"
    expected = _expected_cutlass(version)
    if expected is not None and headers.cutlass_version != expected:
        found = (
            format_version(headers.cutlass_version) if headers.cutlass_version else "no version.h"
        )
        return (
            f"FlashInfer {version} vendors CUTLASS {format_version(expected)}, their "
            f"{headers.cutlass_include}/cutlass/version.h says {found}"
        )
    if headers.flashinfer_version is None and expected is None:
        return (
            f"neither they nor cutlint's table say which FlashInfer release they are "
            f"({version} is unknown)"
        )
    return None


@dataclass(frozen=True)
class HeaderSearch:
    """Where to look: `--headers` roots, whether `--download` may fetch, the wheel cache."""

    given: tuple[Headers, ...]
    download: bool
    wheel_dir: Path

    @classmethod
    def from_options(cls, headers: Sequence[Path], download: bool, wheel_dir: Path) -> HeaderSearch:
        return cls(tuple(open_root(Path(d), "--headers") for d in headers), download, wheel_dir)

    def single_version(self) -> str | None:
        """The release of the one `--headers` root, for files whose path does not say."""
        if len(self.given) == 1:
            return self.given[0].flashinfer_version
        return None

    def for_version(self, version: str | None, path: str) -> Headers:
        """The headers for files written by FlashInfer `version` (None: the path does not say)."""
        if version is None:
            if len(self.given) == 1:
                return self.given[0]
            if not self.given:
                raise SetupError(
                    f"headers not found for {path}: its path does not say which FlashInfer release "
                    "wrote it (no flashinfer/<version>/.../generated/ in it); pass --headers DIR"
                )
            raise SetupError(
                f"headers ambiguous for {path}: its path does not say which FlashInfer release "
                "wrote it, and several --headers were given; verify it with one --headers"
            )
        rejected: list[str] = []
        for h in self.given:
            why = _mismatch(h, version)
            if why is None:
                return h
            rejected.append(f"--headers {h.root}: {why}")
        found = installed()
        if found is not None:
            why = _mismatch(found, version)
            if why is None:
                return found
            rejected.append(f"installed {DISTRIBUTION} at {found.root}: {why}")
        cached = self.wheel_dir / f"flashinfer-{version}"
        if (cached / "flashinfer" / "data").is_dir():
            h = open_root(cached, "downloaded wheel")
            why = _mismatch(h, version)
            if why is None:
                return h
            rejected.append(f"downloaded wheel {cached}: {why}")
        if self.download:
            try:
                root = download_wheel(version, self.wheel_dir)
            except FlashInferError as e:
                raise SetupError(f"headers not found for FlashInfer {version}: {e}") from e
            h = open_root(root, "downloaded wheel")
            why = _mismatch(h, version)
            if why is None:
                return h
            rejected.append(f"downloaded wheel {root}: {why}")
        lines = [f"headers not found for FlashInfer {version} (which wrote {path})"]
        lines += [f"  version mismatch: {r}" for r in rejected]
        lines.append(
            f"  pass --headers DIR (an unpacked {DISTRIBUTION} {version} wheel, or a site-packages "
            f"holding it), `pip install {DISTRIBUTION}=={version}`, or --download (fetches the "
            f"wheel into {self.wheel_dir})"
        )
        raise SetupError("\n".join(lines))
