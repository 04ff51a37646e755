#!/usr/bin/env bash
# The H200 proof of registers and occupancy (docs/hardware.md, "Registers and occupancy").
# From the repository root on the GPU machine (nvcc, cuobjdump, one H200, 16 cores):
#   OUT=/some/dir bash tests/hardware/resources/run.sh [BUNDLE_DIR]
# 1. builds probe.cu and asks cudaOccupancyMaxActiveBlocksPerMultiprocessor about six small
#    kernels over a sweep of block and shared memory sizes, and launches `wide` (96 registers,
#    no launch bounds) with 1,024 threads, which cutlint says cannot launch (CUT108);
# 2. when BUNDLE_DIR (default device_work/h200) holds the H200 set's bundle
#    (tests/hardware/h200/build.py bundle), builds and runs its 21 SM90 GEMM kernels
#    (CollectiveBuilder kernels in cutlass_library's form, FlashInfer's grouped MoE and fpA_intB)
#    with its own run.sh;
# 3. reads every binary's registers with cutlint's reader (read_here.py: the standard library,
#    and zstandard when carried, for compressed entries), with cuobjdump, and reads the cubins
#    cuobjdump -xelf extracts with cutlint's reader too.
# Writes to $OUT: resources.json, h200_run.tar.xz (the bundle run's own seven files), log.txt.
set -u
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$REPO/tests/hardware/resources
OUT=${OUT:-/tmp/resources-out}
WORK=${RESOURCES_WORK:-/tmp/resources-work}
BUNDLE=${1:-$REPO/device_work/h200}
mkdir -p "$OUT" "$WORK/cubins"
exec > >(tee "$OUT/log.txt") 2>&1
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -2
cuobjdump --version | tail -1
nvcc -arch=sm_90a -Xptxas -v -o "$WORK/probe" "$HERE/probe.cu" > "$WORK/probe.ptxas" 2>&1 \
  || { cat "$WORK/probe.ptxas"; exit 1; }
"$WORK/probe" > "$WORK/probe.out" 2>&1
echo "probe: exit $? after $(( $(date +%s) - start )) s, $(grep -c '^PROBE' "$WORK/probe.out") answers"
grep '^LAUNCH' "$WORK/probe.out"
bins=("$WORK/probe")
if [ -f "$BUNDLE/h200.tar.xz" ]; then
  OUT="$WORK/h200-out" H200_WORK="$WORK/h200-work" JOBS=${JOBS:-16} \
    H200_BUILD_LIMIT=${H200_BUILD_LIMIT:-400} bash "$BUNDLE/run.sh" > "$WORK/h200-run.log" 2>&1
  tail -3 "$WORK/h200-run.log"
  tar -cJf "$OUT/h200_run.tar.xz" -C "$WORK" h200-out
  for b in "$WORK"/h200-work/h200/bin/*; do [ -x "$b" ] && bins+=("$b"); done
else
  echo "no bundle at $BUNDLE: the GEMM kernels are left out"
fi
: > "$WORK/resource_usage.txt"
for b in "${bins[@]}"; do
  name=$(basename "$b")
  { echo "== $b"; cuobjdump --dump-resource-usage "$b"; } >> "$WORK/resource_usage.txt" 2>&1
  mkdir -p "$WORK/cubins/$name"
  (cd "$WORK/cubins/$name" && cuobjdump -xelf all "$b" > /dev/null 2>&1)
done
cat "$WORK"/h200-work/h200/log/*.log > "$WORK/gemm.ptxas" 2>/dev/null || : > "$WORK/gemm.ptxas"
PYTHONPATH="$REPO/analyzer${PYTHONPATH:+:$PYTHONPATH}" python3 "$HERE/read_here.py" "$WORK" \
  "${bins[@]}" > "$OUT/resources.json"
echo "read_here: exit $?; done after $(( $(date +%s) - start )) s"
