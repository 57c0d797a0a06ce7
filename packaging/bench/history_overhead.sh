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
  # The newest run of the history database (not one of the 1,000 copies), then dropped.
  python3 - "$home/data/AccelLab/AccelLab/runs/history.sqlite" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
key, record = db.execute("SELECT key, record_json FROM runs WHERE key NOT LIKE 'history-%' ORDER BY key DESC LIMIT 1").fetchone()
for e in json.loads(record)["run"]["epochs"]:
    print(e["host_seconds"])
with db:
    db.execute("DELETE FROM runs WHERE key = ?", (key,))
PY
}

mkdir -p "$work/empty" "$work/full"
# One real run, copied 1,000 times into the full history.
HOME="$work/seed" XDG_DATA_HOME="$work/seed/data" XDG_CONFIG_HOME="$work/seed/config" ACCELLAB_USER_DIR="$work/seed/user" \
  xvfb-run -a -s "-screen 0 1280x800x24" "$app" --preset e3 --limit 2048 --epochs 3 --run --quit-when-done >/dev/null 2>&1
template="$work/template.json"
python3 - "$work/seed/data/AccelLab/AccelLab/runs/history.sqlite" "$template" <<'PY'
import sqlite3, sys
(record,) = sqlite3.connect(sys.argv[1]).execute("SELECT record_json FROM runs ORDER BY key DESC LIMIT 1").fetchone()
open(sys.argv[2], "w").write(record)
PY
# As run files of an earlier version: the first start reads them into its database once.
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
