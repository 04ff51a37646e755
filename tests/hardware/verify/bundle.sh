#!/bin/bash
# Everything `cutlint verify` needs for FlashInfer 0.7.4's whole 100a cache, for a machine with
# nvcc and Python 3.12 but no network (the H200 host): run here, copy DIR there, run
#   bash DIR/run.sh smoke | shard K/N | whole
# (docs/validation.md, "The whole 100a cache on 16 cores"). About 35 MB:
#   wheels/              cutlint (built from the checkout's HEAD) and what verify imports, cp312
#                        manylinux, without libclang-ng (below) - 11 MB
#   libclang-ng.tar.xz   libclang-ng's wheel unpacked and xz-compressed (check's #if evaluation
#                        needs it; 31 MB as a wheel, 20 MB so)
#   fi074-headers.tar.xz the wheel's CUTLASS, CCCL, spdlog and FlashInfer headers, csrc's own
#                        files and nv_internal launchers, its jit/ package (the JIT modules'
#                        flags) and version - 5 MB of the unpacked wheel's 715 MB
#   fi074-cache.tar.xz   `cutlint generate flashinfer 0.7.4 --sm 100 --jit-gemm` - 25 KB
#   run.sh               beside this file
# Needs: cutlint on PATH, the 0.7.4 wheel in $CUTLINT_CACHE/wheels (generate fetches it), a
# Python 3.12 with pip (PY, default python3.12) for the downloads.
set -eu
DIR=${1:?usage: bundle.sh DIR}
PY=${PY:-python3.12}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
WHEELS=${CUTLINT_CACHE:-$HOME/.cache/cutlint}/wheels
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DIR/wheels"
PLAT=(--only-binary=:all: --python-version 3.12 --implementation cp --abi cp312
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
      --platform manylinux_2_28_x86_64 --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64)
"$PY" -m pip download -q "${PLAT[@]}" -d "$DIR/wheels" "pydantic>=2.6,<3" "click>=8.1" \
  "tabulate>=0.9" "networkx>=3.2" "jinja2>=3.1" "distributed>=2024.1"
git -C "$REPO" archive HEAD | (mkdir -p "$TMP/cutlint" && tar -x -C "$TMP/cutlint")
"$PY" -m pip wheel -q --no-deps -w "$DIR/wheels" "$TMP/cutlint"
"$PY" -m pip download -q --no-deps "${PLAT[@]}" -d "$TMP/lc" libclang-ng==22.1.4.2
(mkdir "$TMP/lcx" && cd "$TMP/lcx" && unzip -q "$TMP"/lc/*.whl && tar -cf - . | xz -T0 -9e > "$DIR/libclang-ng.tar.xz")
(
  cd "$WHEELS"
  R=flashinfer-0.7.4/flashinfer
  {
    find $R/data/csrc -maxdepth 1 -type f
    echo $R/_build_meta.py
    echo flashinfer-0.7.4/flashinfer_python-0.7.4.dist-info/METADATA
    for d in data/cutlass/include data/cutlass/tools/util/include data/include \
             data/csrc/nv_internal data/spdlog data/cccl jit; do
      find $R/$d -type f -not -path '*__pycache__*'
    done
  } | sort | tar -cf - -T - | xz -T0 -6 > "$DIR/fi074-headers.tar.xz"
)
cutlint generate flashinfer 0.7.4 --sm 100 --jit-gemm --out "$TMP/fi074" -q > /dev/null
tar -cJf "$DIR/fi074-cache.tar.xz" -C "$TMP/fi074" flashinfer
cp "$HERE/run.sh" "$DIR/run.sh"
du -sh "$DIR"
