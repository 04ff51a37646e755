"""Directory mode reads the headers that hold kernels (.cuh, .h, .hpp) and leaves vendored
CUTLASS and CCCL trees alone (sources/kernel_headers.py, parse/walk.py)."""

from __future__ import annotations

from pathlib import Path

from cutlint import api
from cutlint.parse import walk
from cutlint.records import Verdict

FIXTURE = Path(__file__).parent.parent.parent / "fixtures/sm120-collective-builder"
CHAIN = (FIXTURE / "blockscaled-mxf4-zero-slack-cutlass-4.2.0.cu").read_text()


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "entry.cu").write_text('#include "configs.cuh"\nint main() { return 0; }\n')
    (root / "src" / "configs.cuh").write_text("#pragma once\n" + CHAIN)
    (root / "src" / "util.h").write_text(
        "#pragma once\n#ifndef TORCH_EXTENSION_NAME\n#error needs torch\n#endif\n"
        "template class std::vector<int>;\ninline int twice(int x) { return 2 * x; }\n"
    )
    (root / "src" / "empty.hpp").write_text("#pragma once\n")
    vendored = root / "third_party" / "cutlass"
    (vendored / "include" / "cutlass").mkdir(parents=True)
    (vendored / "include" / "cutlass" / "cutlass.h").write_text("#pragma once\n")
    (vendored / "examples").mkdir()
    (vendored / "examples" / "example.cuh").write_text(CHAIN)
    cccl = root / "third_party" / "cccl" / "cub"
    (cccl / "cub").mkdir(parents=True)
    (cccl / "cub" / "cub.cuh").write_text("#pragma once\n")


def test_the_walk_reads_headers_and_leaves_vendored_trees(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = [Path(e.path).relative_to(tmp_path).as_posix() for e in walk.expand([tmp_path])]
    assert found == ["src/configs.cuh", "src/empty.hpp", "src/entry.cu", "src/util.h"]
    # named on the command line, a CUTLASS tree is checked
    named = walk.expand([tmp_path / "third_party" / "cutlass"])
    assert [Path(e.path).name for e in named] == ["example.cuh", "cutlass.h"]


def test_headers_without_a_kernel_say_nothing(tmp_path: Path) -> None:
    _tree(tmp_path)
    result = api.check([tmp_path], api.CheckOptions(arch="sm_120", cutlass_version="4.2.0"))
    by_name = {Path(f.path).name: f for f in result.files}
    assert set(by_name) == {"configs.cuh", "entry.cu"}
    kernels = by_name["configs.cuh"].instantiations
    assert [k.verdict for k in kernels] == [Verdict.ZERO_SLACK, Verdict.FAILS_INITIALIZE]
    assert sorted(Path(p).name for p in result.skipped) == ["empty.hpp", "util.h"]
    # no CUT006 and no CUT009 (its #error) for the header without a kernel
    assert not any(Path(d.path).name == "util.h" for f in result.files for d in f.diagnostics)
