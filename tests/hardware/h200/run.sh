#!/usr/bin/env bash
# The GPU half of the H200 proof (docs/hardware.md). Next to h200.tar.xz (build.py bundle):
#   OUT=/some/dir bash run.sh
# unpacks the bundle, builds every kernel in parallel, runs each binary once, reads registers and
# spills with cuobjdump, and writes to $OUT: versions.txt, build.log, results.jsonl (one
# H200_RESULT object per kernel, or its build/run failure), resource_usage.txt, ptxas.txt
# (ptxas -v of each unit), origin.json (which generated file each FlashInfer kernel is from),
# run.log.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/out}
WORK=${H200_WORK:-/tmp/h200-work}
BUILD_LIMIT=${H200_BUILD_LIMIT:-420}   # seconds for the whole parallel build
mkdir -p "$OUT" "$WORK"
tar -xJf "$HERE/h200.tar.xz" -C "$WORK"
cd "$WORK/h200"
{
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvcc"; nvcc --version
  echo "== cuobjdump"; cuobjdump --version
  echo "== cpus"; nproc
} > "$OUT/versions.txt" 2>&1
start=$(date +%s)
timeout "$BUILD_LIMIT" make -k -j"${JOBS:-$(nproc)}" > "$OUT/build.log" 2>&1
echo "make exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/build.log"
cp origin.json "$OUT/origin.json"
: > "$OUT/ptxas.txt"
for log in log/*.log; do
  { echo "== $(basename "$log" .log)"; cat "$log"; } >> "$OUT/ptxas.txt"
done
: > "$OUT/results.jsonl"
: > "$OUT/resource_usage.txt"
: > "$OUT/run.log"
for tu in tu/*.cu; do
  name=$(basename "$tu" .cu)
  bin="bin/$name"
  if [ ! -x "$bin" ]; then
    echo "{\"name\": \"$name\", \"build\": \"failed\"}" >> "$OUT/results.jsonl"
    continue
  fi
  timeout 120 "$bin" > "run_$name.txt" 2>&1
  rc=$?
  if grep -q '^H200_RESULT ' "run_$name.txt"; then
    grep '^H200_RESULT ' "run_$name.txt" | sed 's/^H200_RESULT //' >> "$OUT/results.jsonl"
  else
    echo "{\"name\": \"$name\", \"build\": \"ok\", \"exit\": $rc}" >> "$OUT/results.jsonl"
  fi
  { echo "== $name (exit $rc)"; tail -c 3000 "run_$name.txt"; } >> "$OUT/run.log"
  { echo "== $name"; cuobjdump --dump-resource-usage "$bin"; } >> "$OUT/resource_usage.txt" 2>&1
done
echo "done after $(( $(date +%s) - start )) s" | tee -a "$OUT/run.log"
