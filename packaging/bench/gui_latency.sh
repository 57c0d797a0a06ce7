#!/usr/bin/env bash
# Responsiveness bar of the dashboard: while a run trains, the GUI thread's event loop must
# answer within 50 ms at p99. Runs scripted GUI runs under Xvfb with --measure-latency (a
# precise 10 ms timer on the GUI thread notes how late each tick fires while the trainer
# works and the charts stream) and prints each run's p50/p99/max:
#   - colab-cnn: preset E3, 4,096 Fashion-MNIST images, 2 epochs (a real CNN run);
#   - char-gpt:  preset G1, 2 epochs of 250 windows (the GPT, with its samples panel).
#   packaging/bench/gui_latency.sh [ROUNDS] [SCREEN]   (default 2 rounds at 1280x800x24)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
app="$root/build/app/accellab"
rounds=${1:-2}
screen=${2:-1280x800x24}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_once() {  # run_once NAME ARGS...: prints "NAME: <latency line>"
  local name=$1
  shift
  local home="$work/$name"
  mkdir -p "$home"
  HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" ACCELLAB_USER_DIR="$home/user" \
    xvfb-run -a -s "-screen 0 $screen" "$app" "$@" --run --measure-latency --quit-when-done 2>&1 |
    sed -n "s/^event-loop latency while run [0-9]* trained: /$name: /p"
}

for r in $(seq 1 "$rounds"); do
  echo "round $r"
  run_once colab-cnn --preset e3 --limit 4096 --epochs 2
  run_once char-gpt --preset g1 --limit 250 --epochs 2
done
