"""Build the ptxas batch of issue 23 (SM120), or read its logs back.

    python tests/hardware/ptxas/build.py bundle DIR    # DIR/ptxas.tar.xz + DIR/run.sh
    python tests/hardware/ptxas/collect.py DIR         # run.sh's $OUT -> tests/data/ptxas_sm120.json

``bundle`` generates FlashInfer 0.7.4's SM120 cache with cutlint (`generate flashinfer 0.7.4
--sm 120 --jit-gemm`), takes the files of samples.py, derives each one's device compile flags as
`cutlint verify --device-code` does (cutlint.verify.device_flags: the module's include dirs and
defines) and writes, relative to the bundle, one plain `nvcc -cubin -arch=sm_120a -Xptxas -v`
command per file into ``commands.tsv``. The archive holds the generated files, FlashInfer's
header trees (as tests/hardware/h200/build.py carries them), the files of csrc/ that
``nvcc -M`` says a sample reads, cutlint's cuBLAS/cuRAND shims, and the commands: the GPU machine
needs nvcc and bash, no Python package.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from samples import FLASHINFER_VERSION, GENERATE_ARGS, SAMPLES, TARGET  # noqa: E402

from cutlint.producers.flashinfer.wheel import download_wheel  # noqa: E402
from cutlint.verify import cublas, curand  # noqa: E402
from cutlint.verify.device_flags import derive, without_pic  # noqa: E402

# Whole trees, as tests/hardware/h200/build.py's FI_DIRS (they compress to a few MB); of csrc/
# (389 MB unpacked) only what nvcc -M lists travels.
FI_DIRS = (
    Path("flashinfer/data/cutlass/include"),
    Path("flashinfer/data/cutlass/tools/util/include"),
    Path("flashinfer/data/cccl"),
    Path("flashinfer/data/include"),
    Path("flashinfer/data/spdlog/include"),
    Path("flashinfer/data/csrc/nv_internal"),
)
RUN_SH = HERE / "run.sh"


def generate(out: Path) -> Path:
    """FlashInfer's SM120 cache as cutlint generates it; returns `<out>/flashinfer/<version>`."""
    subprocess.run(
        [sys.executable, *GENERATE_ARGS, str(out)],
        check=True,
    )
    return out / "flashinfer" / FLASHINFER_VERSION


def _deps(cmd: list[str]) -> list[Path]:
    """The files one compile reads (nvcc -M)."""
    run = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"nvcc -M failed: {shlex.join(cmd)}\n{run.stderr[-3000:]}")
    words = run.stdout.replace("\\\n", " ").split()
    return [Path(w) for w in words if not w.endswith(":")]


def _relative(flags: list[str], mapping: dict[str, str]) -> list[str]:
    out = []
    for f in flags:
        for src, dst in mapping.items():
            f = f.replace(src, dst)
        out.append(f)
    return out


def bundle(dest: Path, nvcc: str) -> None:
    root = download_wheel(FLASHINFER_VERSION)
    with tempfile.TemporaryDirectory(prefix="ptxas-bundle-") as tmp:
        base = generate(Path(tmp) / "gen")
        stage = Path(tmp) / "ptxas"
        shim = stage / "shim"
        cublas.write_shim(shim)
        curand.write_shim(shim)
        for rel in FI_DIRS:
            shutil.copytree(root / rel, stage / "fi" / rel)
        mapping = {str(base): "gen", str(root): "fi", str(shim): "shim"}
        units: dict[str, list[str]] = {}
        for name, sample in SAMPLES.items():
            path = base / sample
            d = derive(path, root, Path(tmp) / "render", [shim])
            units[name] = [*without_pic(d.flags)]
            (stage / "gen" / sample).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, stage / "gen" / sample)

        def deps(name: str) -> list[Path]:
            return _deps([nvcc, f"-arch={TARGET}", *units[name], "-M", str(base / SAMPLES[name])])

        with ThreadPoolExecutor(2) as pool:
            read = [p for ps in pool.map(deps, units) for p in ps]
        csrc = root / "flashinfer" / "data" / "csrc"
        for p in read:
            if (
                p.resolve().is_relative_to(csrc.resolve())
                and not (stage / "fi" / p.resolve().relative_to(root.resolve())).exists()
            ):
                target = stage / "fi" / p.resolve().relative_to(root.resolve())
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(p, target)
            elif p.resolve().is_relative_to(base.resolve()):
                target = stage / "gen" / p.resolve().relative_to(base.resolve())
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(p, target)
        lines = []
        for name, flags in units.items():
            cmd = [
                "nvcc",
                "-cubin",
                f"-arch={TARGET}",
                "-Xptxas",
                "-v",
                *_relative(flags, mapping),
                "-o",
                f"cubin/{name}.cubin",
                f"gen/{SAMPLES[name]}",
            ]
            lines.append(f"{name}\t{shlex.join(cmd)}\n")
        (stage / "commands.tsv").write_text("".join(lines))
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(dest / "ptxas.tar.xz", "w:xz") as tar:
            tar.add(stage, arcname="ptxas")
        shutil.copy(RUN_SH, dest / "run.sh")
        size = (dest / "ptxas.tar.xz").stat().st_size
        print(f"{len(units)} files, {size:,} B -> {dest}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("command", choices=("bundle",))
    p.add_argument("dir", type=Path)
    p.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    a = p.parse_args()
    bundle(a.dir.resolve(), a.nvcc)


if __name__ == "__main__":
    main()
