#!/usr/bin/env bash
# Fuzzes every target for SECONDS each (default 600, the reliability bar), one after another,
# and prints per target: executions, executions per second, corpus size and any finding.
#   tests/fuzz/campaign.sh [SECONDS] [TARGET...]     (build-fuzz must hold the fuzz_* binaries;
#                                                     FUZZ_BUILD names another build folder,
#                                                     FUZZ_JOBS=2 runs two targets at a time)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json idx cifar text_corpus catalog_files experiment reference_csv llm_study llm_reference_csv run_log run_history history_folder preset)
work=${FUZZ_WORK:-/tmp/accellab-fuzz}
mkdir -p "$work"
build=${FUZZ_BUILD:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-1}
one() {
  local t=$1
  bin="$build/tests/fuzz_$t"
  [ -x "$bin" ] || { echo "$t: $bin missing (see tests/fuzz/README.md)"; return; }
  mkdir -p "$work/corpus-$t" "$work/findings-$t"
  (cd "$work/findings-$t" && "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
     "$work/corpus-$t" "$root/tests/data/fuzz/$t" >"$work/log-$t.txt" 2>&1)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log-$t.txt" | grep -o '[0-9]*$')
  findings=$(ls "$work/findings-$t" | grep -c -E '^(crash|leak|timeout|oom)-' || true)
  corpus=$(ls "$work/corpus-$t" | wc -l)
  echo "$t: ${runs:-?} executions in ${seconds} s ($(( ${runs:-0} / seconds )) exec/s), corpus $corpus, findings $findings"
}
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  one "$t" &
done
wait
