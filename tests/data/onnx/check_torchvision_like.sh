#!/bin/sh
# Checks the ONNX importer against torchvision-style classifiers (torchvision_like.py beside this
# script): each model is exported by torch.onnx.export into a temporary folder, then
#   accellab-cli models --model M.onnx --format json
# must give trainable_params equal to the model's torch parameter count and
# forward_flops_per_sample within 3% of twice the multiply-adds of its convolutions and linears,
# and accellab-cli simulate --model M.onnx --device v100 --batch 32 must succeed; the ResNets
# must train here (built of the engine's layers).
#
# Usage: check_torchvision_like.sh /path/to/accellab-cli model...
#   models: resnet18 resnet50 mobilenet_v2 squeezenet1_1 googlenet densenet121 efficientnet_b0
#           shufflenet_v2_x1_0 mnasnet1_0
# Exit: 0 all hold; 1 a model fails (the message names the model and the figure); 2 usage or
# export error; 77 (skip) when /usr/bin/python3 cannot import torch (Debian's python3-torch).
# TORCHVISION_LIKE_FRESH=1 exports with torch's initial batch-norm values (torchvision_like.py --fresh).
# The exports (resnet50 ~100 MB) go under ${TMPDIR:-/tmp} and are removed on exit.

PY=/usr/bin/python3
TOLERANCE=0.03

if [ "$#" -lt 2 ]; then
  echo "usage: $0 /path/to/accellab-cli model..." >&2
  exit 2
fi
CLI=$1
shift
if [ ! -x "$CLI" ]; then
  echo "$0: $CLI: not an executable" >&2
  exit 2
fi
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
  echo "$0: skipped: $PY cannot import torch (apt install python3-torch)" >&2
  exit 77
fi

HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/torchvision_like.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
trap 'exit 2' HUP INT TERM

: "${OMP_NUM_THREADS:=1}"
export OMP_NUM_THREADS
FRESH=
[ "${TORCHVISION_LIKE_FRESH:-0}" = 1 ] && FRESH=--fresh

# shellcheck disable=SC2086
if ! "$PY" "$HERE/torchvision_like.py" $FRESH "$WORK" "$@" >"$WORK/export.txt" 2>"$WORK/export.err"; then
  grep -v 'Warning' "$WORK/export.err" >&2
  echo "$0: export failed (torchvision_like.py)" >&2
  exit 2
fi

status=0
fail() {
  echo "FAIL $1" >&2
  status=1
}

printf '%-20s %12s %12s %14s %14s %7s %s\n' model torch_params trainable 2*macs fwd_flops ratio "trains / simulate"
for model in "$@"; do
  line=$(grep "^$model params " "$WORK/export.txt")
  params=$(echo "$line" | awk '{print $3}')
  macs=$(echo "$line" | awk '{print $5}')
  secs=$(echo "$line" | awk '{print $7}')
  onnx="$WORK/$model.onnx"
  if ! "$CLI" models --model "$onnx" --format json >"$WORK/$model.json" 2>"$WORK/$model.err"; then
    fail "$model: accellab-cli models: $(cat "$WORK/$model.err")"
    continue
  fi
  # trainable_params, forward_flops_per_sample and what the description says after the opset
  if ! "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
desc = d["description"]
train = desc[desc.index("; trains as") + 2:] if "; trains as" in desc else desc[desc.index("simulate only"):] if "simulate only" in desc else "?"
print(d["trainable_params"], d["forward_flops_per_sample"], train.split(",")[0] if train.startswith("trains") else train)
' "$WORK/$model.json" >"$WORK/$model.fig" 2>"$WORK/$model.err"; then
    fail "$model: accellab-cli models wrote no trainable_params/forward_flops_per_sample: $(cat "$WORK/$model.err")"
    continue
  fi
  read -r trainable flops trains <"$WORK/$model.fig"
  ratio=$(awk -v f="$flops" -v m="$macs" 'BEGIN { printf "%.4f", f / (2 * m) }')
  printf '%-20s %12s %12s %14s %14s %7s %s (export %ss)\n' "$model" "$params" "$trainable" "$((2 * macs))" "$flops" "$ratio" "$trains" "$secs"
  [ "$trainable" = "$params" ] || fail "$model: trainable_params $trainable, torch has $params parameters"
  if ! awk -v r="$ratio" -v t="$TOLERANCE" 'BEGIN { exit !(r >= 1 - t && r <= 1 + t) }'; then
    fail "$model: forward_flops_per_sample $flops is $ratio x twice the multiply-adds ($((2 * macs))), outside 1 +- $TOLERANCE"
  fi
  # The ResNets are built of the engine's layers: they must train here.
  case "$model" in
    resnet*) case "$trains" in trains*) ;; *) fail "$model: does not train here: $trains" ;; esac ;;
  esac
  if ! "$CLI" simulate --model "$onnx" --device v100 --batch 32 --format json >/dev/null 2>"$WORK/$model.sim.err"; then
    fail "$model: accellab-cli simulate: $(cat "$WORK/$model.sim.err")"
  fi
done
exit "$status"
