#!/bin/bash
# cutlint verify of FlashInfer 0.7.4's 100a cache on the device machine (no network).
#   bash DIR/run.sh smoke            install, then verify 2 files (own cache)
#   bash DIR/run.sh shard K/N        verify the K-th of N parts of the whole cache
#   bash DIR/run.sh whole            verify the whole cache (compiles what the cache lacks)
# Everything it needs is beside it (tests/hardware/verify/bundle.sh DIR writes it): wheels/,
# libclang-ng.tar.xz, fi074-headers.tar.xz, fi074-cache.tar.xz, and optionally results-*.tar.xz (a cold machine's earlier results, merged into the cache).
set -u
W=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/daskdev-out}
mkdir -p "$OUT"
MODE=${1:-smoke}
P=${PREFIX:-/tmp}
SITE=$P/cutlint-site
FI=$P/fi074            # the generated cache (paths in the report are relative to it)
HDR=$P/fi-headers      # holds flashinfer-0.7.4/
CACHE=$P/cutlint-cache # verify results (kept while the machine is warm)
JOBS=${JOBS:-16}
LIMIT=${LIMIT:-540}
export PATH=$PATH:/usr/local/cuda/bin
export PYTHONUNBUFFERED=1
t0=$(date +%s)

if [ ! -f $SITE/.ok ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target $SITE \
    "$W"/wheels/*.whl || exit 3
  # libclang-ng (check's #if evaluation), its wheel unpacked and xz-compressed: 20 MB, not 31
  tar -xJf "$W/libclang-ng.tar.xz" -C $SITE || exit 3
  touch $SITE/.ok
fi
export PYTHONPATH=$SITE
if [ ! -d $HDR/flashinfer-0.7.4 ]; then
  mkdir -p $HDR && tar -xJf "$W/fi074-headers.tar.xz" -C $HDR || exit 3
fi
if [ ! -d $FI/flashinfer ]; then
  mkdir -p $FI && tar -xJf "$W/fi074-cache.tar.xz" -C $FI || exit 3
fi
for r in "$W"/results-*.tar.xz; do
  [ -f "$r" ] || continue
  mkdir -p $CACHE && tar -xJf "$r" -C $CACHE && echo "merged $r"
done
{
  echo "host: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
  python3 --version
  nvcc --version | tail -2
  python3 -c 'import cutlint, pydantic, distributed, dask; from clang import cindex; cindex.Index.create(); print("libclang ok","cutlint", cutlint.__version__, "pydantic", pydantic.VERSION, "distributed", distributed.__version__)'
  echo "setup: $(( $(date +%s) - t0 )) s"
} 2>&1 | tee -a "$OUT/env.txt"

cd $FI || exit 3
ROOT=flashinfer/0.7.4/100a
case "$MODE" in
  smoke)
    NAME=smoke
    ARGS=(--cache-dir $P/cutlint-cache-smoke
          $ROOT/generated/cutlass_instantiations/100/gemm_grouped/100/cutlass_kernel_file_gemm_grouped_sm100_M128_BS_group0.generated.cu
          $ROOT/generated/gen_gemm_sm100_cutlass_bf16/bf16_gemm_cutlass_half_128_128_128.cu) ;;
  shard)
    NAME=shard-${2/\//of}
    ARGS=(--cache-dir $CACHE --shard "$2" $ROOT) ;;
  whole)
    NAME=whole
    ARGS=(--cache-dir $CACHE $ROOT) ;;
  *) echo "unknown mode $MODE"; exit 2 ;;
esac
echo "verify ${ARGS[*]}"
s=$(date +%s)
timeout "$LIMIT" python3 -m cutlint verify --headers $HDR/flashinfer-0.7.4 --jobs "$JOBS" \
  --format json "${ARGS[@]}" > "$P/verify-$NAME.json" 2> >(tee "$OUT/verify-$NAME.log" >&2)
rc=$?
echo "verify exit $rc, wall $(( $(date +%s) - s )) s" | tee -a "$OUT/verify-$NAME.log"
[ -s "$P/verify-$NAME.json" ] && xz -T4 -c "$P/verify-$NAME.json" > "$OUT/verify-$NAME.json.xz"
if [ -d $CACHE/verify/results ]; then
  tar -cJf "$OUT/results-$NAME.tar.xz" -C $CACHE verify/results
fi
ls -la "$OUT"
exit 0
