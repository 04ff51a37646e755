#!/usr/bin/env bash
# The GPU-machine half of issue 23's SM120 ptxas batch. Next to ptxas.tar.xz (build.py bundle):
#   OUT=/some/dir bash run.sh
# unpacks the bundle and runs every line of commands.tsv (one `nvcc -cubin -arch=sm_120a -Xptxas
# -v` per sampled generated file) at once, each under a time limit, then writes to $OUT:
# versions.txt and ptxas_logs.tar.gz (log/<name>.log: ptxas's report and the exit line of each
# compile; resource_usage.txt: cuobjdump --dump-resource-usage of each cubin; commands.tsv).
# Needs nvcc and bash only.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/out}
WORK=${PTXAS_WORK:-/tmp/ptxas-work}
LIMIT=${PTXAS_LIMIT:-450}   # seconds for each compile; they all run at once (8 minutes in all)
mkdir -p "$OUT" "$WORK"
tar -xJf "$HERE/ptxas.tar.xz" -C "$WORK"
cd "$WORK/ptxas"
mkdir -p log cubin
{
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvcc"; nvcc --version
  echo "== cpus"; nproc
  echo "== memory"; free -g
} > "$OUT/versions.txt" 2>&1
start=$(date +%s)
while IFS=$'\t' read -r name cmd; do
  (
    s=$(date +%s)
    timeout "$LIMIT" bash -c "$cmd" > "log/$name.log" 2>&1
    rc=$?
    echo "== exit $rc after $(( $(date +%s) - s )) s" >> "log/$name.log"
  ) &
done < commands.tsv
wait
echo "all compiles done after $(( $(date +%s) - start )) s" | tee -a "$OUT/versions.txt"
: > resource_usage.txt
for c in cubin/*.cubin; do
  [ -f "$c" ] || continue
  { echo "== $(basename "$c" .cubin)"; cuobjdump --dump-resource-usage "$c"; } >> resource_usage.txt 2>&1
done
tar -czf "$OUT/ptxas_logs.tar.gz" log resource_usage.txt commands.tsv
grep -h "^== exit" log/*.log | sort | uniq -c | tee -a "$OUT/versions.txt"
