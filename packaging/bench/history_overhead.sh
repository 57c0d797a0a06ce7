#!/usr/bin/env bash
# Reliability bar of the run history: a history of 1,000 runs must add less than 5% to an
# epoch's wall time. Trains the same short run (E3's colab-cnn on 2,048 Fashion-MNIST images,
# 3 epochs, scripted GUI under Xvfb) with an empty history and with 1,000 runs in it,
# alternating, and prints the median epoch time of each and their ratio.
#   packaging/bench/history_overhead.sh [ROUNDS]   (default 3; ~2 minutes a round on 2 cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
app="$root/build/app/accellab"
rounds=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_once() {  # run_once HOME-DIR: prints the run's epoch seconds, one per line
  local home=$1
  HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" ACCELLAB_USER_DIR="$home/user" \
    xvfb-run -a -s "-screen 0 1280x800x24" "$app" --preset e3 --limit 2048 --epochs 3 --run --quit-when-done >/dev/null 2>&1
  local newest
  newest=$(ls -t "$home/data/AccelLab/AccelLab/runs/"*.json | grep -v "/history-" | head -1)
  python3 -c 'import json,sys; [print(e["host_seconds"]) for e in json.load(open(sys.argv[1]))["run"]["epochs"]]' "$newest"
  rm -f "$newest"
}

mkdir -p "$work/empty" "$work/full"
# One real run, copied 1,000 times into the full history.
HOME="$work/seed" XDG_DATA_HOME="$work/seed/data" XDG_CONFIG_HOME="$work/seed/config" ACCELLAB_USER_DIR="$work/seed/user" \
  xvfb-run -a -s "-screen 0 1280x800x24" "$app" --preset e3 --limit 2048 --epochs 3 --run --quit-when-done >/dev/null 2>&1
template=$(ls -t "$work/seed/data/AccelLab/AccelLab/runs/"*.json | head -1)
mkdir -p "$work/full/data/AccelLab/AccelLab/runs"
for i in $(seq 1 1000); do cp "$template" "$work/full/data/AccelLab/AccelLab/runs/history-$i.json"; done

empty=() full=()
for r in $(seq 1 "$rounds"); do
  while read -r s; do empty+=("$s"); done < <(run_once "$work/empty")
  while read -r s; do full+=("$s"); done < <(run_once "$work/full")
  echo "round $r done" >&2
done
python3 - "${#empty[@]}" "${empty[@]}" "${full[@]}" <<'PY'
import statistics, sys
n = int(sys.argv[1]); v = [float(x) for x in sys.argv[2:]]
e, f = v[:n], v[n:]
me, mf = statistics.median(e), statistics.median(f)
print(f"epoch seconds, median of {n}: empty history {me:.3f}, 1,000-run history {mf:.3f}, ratio {mf/me:.3f}")
PY
