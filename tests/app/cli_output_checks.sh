#!/bin/sh
# CTest checks of accellab-cli's output edge (issue 25): terminal escapes and invalid UTF-8 in
# the files it reads are shown, never obeyed. Each case feeds ESC [ 2 J (clear screen), an OSC 8
# hyperlink ended by BEL, the 8-bit CSI (0xC2 0x9B) and bytes that are not UTF-8 through one
# output and checks that no raw ESC, BEL or C1 control and no invalid UTF-8 reaches stdout or
# stderr, and that the text did arrive, escaped. Usage: cli_output_checks.sh PATH-TO-accellab-cli CASE
set -u
cli="$1"
case_name="$2"
. "$(dirname "$0")/../cli_check_lib.sh"
export ACCELLAB_USER_DIR="$tmp/user"
mkdir -p "$tmp/user/devices" "$tmp/user/stacks"
resources="$(dirname "$0")/../../resources"

# shown: what the last command wrote holds no raw ESC, BEL, C1 control or invalid UTF-8, and
# holds each of the escaped forms given.
shown() {
  for f in "$tmp/out" "$tmp/err"; do
    LC_ALL=C grep -q "$(printf '[\033\007]')" "$f" && fail "a raw ESC or BEL reached $(basename "$f")"
    LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$f" && fail "a raw C1 control reached $(basename "$f")"
    iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || fail "invalid UTF-8 reached $(basename "$f")"
  done
  for want in "$@"; do
    cat "$tmp/out" "$tmp/err" | grep -qF -- "$want" || fail "the output does not show '$want'"
  done
  return 0
}

# A JSON string holding every attack, and the same bytes raw for files that are not JSON.
json_attack='\u001b[2J\u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007 \u009b31m \u0007'
raw_attack=$(printf '\033[2J\033]8;;http://evil.example/\007click\033]8;;\007 \302\23331m \007 \377\376')

# derive SRC ID NAME [LINE]: the shipped file SRC with its id and name replaced (NAME is JSON
# string text, written as it is) and LINE added as one more key, written to the user folder.
derive() {
  src=$1; id=$2; name=$3; extra=${4:-}
  kind=$(basename "$(dirname "$src")")
  {
    echo '{'
    printf '  "id": "%s",\n  "name": "%s",\n' "$id" "$name"
    [ -n "$extra" ] && printf '  %s,\n' "$extra"
    grep -v -e '^{$' -e '^  "id":' -e '^  "name":' "$src"
  } >"$tmp/user/$kind/$id.json"
}

case "$case_name" in
  device-file)
    # An unknown key, a parse error quoting a raw byte and a name with a C1 control, each from a
    # file in the user's devices folder: warnings on stderr, the name in the devices table.
    derive "$resources/devices/k80.json" k80-key "K80" "\"$json_attack\": 1"
    printf '{"id": "k80-raw", "name": "%s"}\n' "$raw_attack" >"$tmp/user/devices/k80-raw.json"
    derive "$resources/devices/k80.json" k80-c1 'K80 \u009b2J \u202e'
    run 0 devices
    grep -q "k80-key.json" "$tmp/err" || fail "no warning for the unknown key"
    grep -q "k80-raw.json" "$tmp/err" || fail "no warning for the broken file"
    grep -q "^k80-c1 " "$tmp/out" || fail "the device with a C1 control in its name is not listed"
    shown '\x1b[2J' '\x1b]8;;http://evil.example/\x07click' '\u009b' '\u202e'
    run 2 simulate --model mlp --device k80-key --batch 32 --format text
    shown '\x1b[2J' ;;
  run-log)
    # import-run's text output prints the log's device name and torch version.
    printf '%s\n' "{\"record\": \"start\", \"format\": \"accellab-run-log\", \"version\": 1, \"model\": \"mlp\", \"dataset\": \"fashion-mnist\", \"batch\": 128, \"precision\": \"fp32\", \"seed\": 0, \"params\": 669706, \"unit\": \"images\", \"device\": \"cuda\", \"device_name\": \"H100 $json_attack\", \"device_count\": 1, \"strategy\": \"single\", \"torch\": \"2.5.1$json_attack\"}" \
      '{"record": "step", "step": 1, "epoch": 0, "seconds": 0.05, "samples": 128, "per_second": 2560, "warmup": false}' \
      '{"record": "step", "step": 2, "epoch": 0, "seconds": 0.05, "samples": 128, "per_second": 2560, "warmup": false}' \
      >"$tmp/run.jsonl"
    run 0 import-run "$tmp/run.jsonl" --format text
    shown 'H100 \x1b[2J\x1b]8;;http://evil.example/\x07click' 'PyTorch 2.5.1\x1b[2J' '\u009b31m'
    run 0 import-run "$tmp/run.jsonl" --format json
    shown '"device_name": "H100 \u001b[2J'
    # A raw byte in the log: the parse error quotes the line, escaped.
    printf '{"record": "start", "model": "%s"}\n' "$raw_attack" >"$tmp/raw.jsonl"
    run 2 import-run "$tmp/raw.jsonl" --format text
    shown "raw.jsonl:1" ;;
  csv-row)
    # validate's text table prints each row's id; the error of a bad row quotes it.
    head -1 "$resources/calibration/calibration.csv" >"$tmp/ref.csv"
    printf 'R1%s,mlp,fashion-mnist,k80,,1,128,fp32,,epoch_seconds,10,,,,,,,"wall time of 2 epochs",src\n' "$raw_attack" \
      >>"$tmp/ref.csv"
    run 0 validate --reference "$tmp/ref.csv"
    shown 'R1\x1b[2J\x1b]8;;http://evil.example/\x07click' '\u009b31m' '\xff\xfe'
    head -1 "$resources/calibration/calibration.csv" >"$tmp/bad.csv"
    printf 'R2%s,mlp,fashion-mnist,k80,,1,128,fp32,,joules,10,,,,,,,"note",src\n' "$raw_attack" >>"$tmp/bad.csv"
    run 2 validate --reference "$tmp/bad.csv"
    shown 'bad.csv:2' ;;
  stack-name)
    # A user stack's name in the stacks list and its id in an error.
    derive "$resources/stacks/mlperf.json" evil-stack "Evil $json_attack"
    run 0 stacks
    grep -q "^evil-stack " "$tmp/out" || fail "the user stack is not listed"
    shown 'Evil \x1b[2J\x1b]8;;http://evil.example/\x07click' '\u009b31m'
    run 2 simulate --model mlp --device k80 --batch 32 --stack "$(printf 'no\033[2J')"
    shown 'no\x1b[2J' ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
