#!/usr/bin/env bash
# The hostile-disk attacks of issue #25, replayed end to end against the built binaries: special
# files, symlink loops, huge files, full disks, escapes and shell metacharacters in names,
# inputs that would be overwritten. Each case prints "hold" or "FAIL: why"; the last line is
# "N passed, N failed". Usage: tests/attacks/issue25_replay.sh BUILD_DIR
set -u
build=${1:?usage: issue25_replay.sh BUILD_DIR}
cli="$build/app/accellab-cli"
gui="$build/app/accellab"
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'umount "$work/tiny" 2>/dev/null; rm -rf "$work"' EXIT
export ACCELLAB_USER_DIR="$work/user" XDG_DATA_HOME="$work/xdg-data" XDG_CONFIG_HOME="$work/xdg-config" HOME="$work/home"
export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$work/runtime"
mkdir -p "$ACCELLAB_USER_DIR"/{devices,stacks,presets} "$HOME/.ssh" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
passed=0 failed=0
hold() { passed=$((passed + 1)); echo "hold  $1"; }
broke() { failed=$((failed + 1)); echo "FAIL  $1: $2"; [ -s "$work/err" ] && head -c 600 "$work/err" | sed 's/^/      | /'; }
# run TIMEOUT CMD...: stdout/stderr to $work/out, $work/err; status in $rc. Address space capped at 3 GB
# (mem_kb; the GUI, which maps more for Qt and TBB, gets 12 GB: the /dev/zero read grew past 24 GB).
run() { local t=$1; shift; (ulimit -v "${mem_kb:-3000000}"; timeout "$t" "$@") >"$work/out" 2>"$work/err"; rc=$?; }
raw_escape() { LC_ALL=C grep -q $'\x1b\|\x07\|\xc2\x9b' "$work/out" "$work/err"; }
history="$XDG_DATA_HOME/AccelLab/AccelLab"  # QStandardPaths::AppDataLocation under XDG_DATA_HOME
runlog="$src/tests/data/fuzz/run_log/lenet5-cpu.jsonl"

# 1. A full disk: the scripted run must not report success, and nothing already saved is lost.
mkdir -p "$work/tiny"
if mount -t tmpfs -o size=2m tmpfs "$work/tiny" 2>/dev/null; then
  mkdir -p "$work/tiny/out"
  head -c $((2048 * 1024 - 12 * 1024)) /dev/zero >"$work/tiny/filler" 2>/dev/null
  mem_kb=12000000 run 180 "$gui" --preset e3 --limit 512 --epochs 1 --run --export-dir "$work/tiny/out" --quit-when-done
  if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "out/" "$work/err"; then hold "a full disk under --export-dir fails the scripted run, naming the file"; else broke "full disk export" "rc $rc"; fi
  for f in "$work"/tiny/out/*.csv; do
    [ -e "$f" ] || continue
    tail -c 1 "$f" | od -c | grep -q '\n' || broke "full disk" "$f was left cut short"
  done
  umount "$work/tiny"
else
  echo "skip  full disk (cannot mount a tmpfs here)"
fi

# 2. Special files are read without bound or hang.
ln -s /dev/zero "$work/zero.jsonl"
run 20 "$cli" import-run "$work/zero.jsonl"
if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "character device" "$work/err"; then hold "import-run /dev/zero"; else broke "import-run /dev/zero" "rc $rc"; fi
mkfifo "$work/pipe.jsonl"
run 20 "$cli" calibrate --device-base h100 --runs "$work/pipe.jsonl" --out "$work/cal.json"
if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "FIFO" "$work/err"; then hold "calibrate --runs FIFO"; else broke "calibrate --runs FIFO" "rc $rc"; fi
ln -s /dev/zero "$ACCELLAB_USER_DIR/presets/zero.json"
mkdir -p "$history/runs" && ln -s /dev/zero "$history/runs/run-20261126-000000-000-aaaaaa.json" && ln -s /dev/zero "$history/runs.json"
mem_kb=12000000 run 120 "$gui" --preset e3 --limit 2048 --epochs 1 --run --quit-when-done
if [ $rc -eq 0 ]; then hold "GUI starts with /dev/zero links in runs/, runs.json and presets/"; else broke "GUI with /dev/zero links" "rc $rc"; fi
rm -f "$ACCELLAB_USER_DIR/presets/zero.json" "$history/runs/run-20261126-000000-000-aaaaaa.json" "$history/runs.json"

# 3. A symlink loop in the user devices and stacks folders.
ln -s "$ACCELLAB_USER_DIR/devices/b.json" "$ACCELLAB_USER_DIR/devices/a.json"
ln -s "$ACCELLAB_USER_DIR/devices/a.json" "$ACCELLAB_USER_DIR/devices/b.json"
ln -s "$ACCELLAB_USER_DIR/stacks/s.json" "$ACCELLAB_USER_DIR/stacks/s.json"
for c in "simulate --model lenet5 --dataset fashion-mnist --device v100 --batch 64" \
         "sweep --model lenet5 --dataset fashion-mnist --devices v100,t4 --batches 64" \
         "validate --reference $src/resources/calibration/calibration.csv" \
         "import-run $runlog" \
         "export-script --model lenet5 --batch 64 --out $work/job-loop"; do
  run 120 "$cli" $c
  if [ $rc -ne 3 ] && [ $rc -lt 124 ] && ! grep -q "internal error" "$work/err"; then hold "symlink loops: ${c%% *}"; else broke "symlink loops: ${c%% *}" "rc $rc"; fi
done
mem_kb=12000000 run 120 "$gui" --preset e3 --limit 2048 --epochs 1 --run --quit-when-done
if [ $rc -eq 0 ]; then hold "GUI starts with symlink loops in devices/ and stacks/"; else broke "GUI with symlink loops" "rc $rc"; fi
rm -f "$ACCELLAB_USER_DIR"/devices/*.json "$ACCELLAB_USER_DIR"/stacks/*.json

# 5. calibrate --out over its own --runs file, and over any existing file.
cp "$runlog" "$work/measured.jsonl"; sum=$(md5sum <"$work/measured.jsonl")
run 60 "$cli" calibrate --device-base h100 --runs "$work/measured.jsonl" --out "$work/measured.jsonl" --force
if [ $rc -ne 0 ] && [ "$(md5sum <"$work/measured.jsonl")" = "$sum" ]; then hold "calibrate --out = --runs (even with --force)"; else broke "calibrate --out = --runs" "rc $rc"; fi
echo '{}' >"$work/exists.json"
run 60 "$cli" calibrate --device-base h100 --runs "$work/measured.jsonl" --out "$work/exists.json"
if [ $rc -ne 0 ] && grep -q -- "--force" "$work/err" && [ "$(cat "$work/exists.json")" = "{}" ]; then hold "calibrate refuses an existing --out"; else broke "calibrate existing --out" "rc $rc"; fi

# 6. Huge files cost a bounded amount (the run above is capped at 3 GB of address space).
{ head -1 "$runlog"; head -c 250000000 /dev/zero | tr '\0' ' '; } >"$work/huge.jsonl"
run 60 "$cli" import-run "$work/huge.jsonl"
if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "huge.jsonl" "$work/err"; then hold "250 MB run log"; else broke "250 MB run log" "rc $rc"; fi
rm -f "$work/huge.jsonl"
python3 -c "import sys; sys.stdout.write('[' + ','.join(['[]'] * 2000000) + ']')" >"$ACCELLAB_USER_DIR/devices/huge.json"
run 60 "$cli" devices
if [ $rc -eq 0 ] && grep -q "huge.json" "$work/err"; then hold "a 6 MB device file of empty arrays"; else broke "huge device file" "rc $rc"; fi
rm -f "$ACCELLAB_USER_DIR/devices/huge.json"

# 7. A downloaded preset that reads ~/.ssh, and one whose text is HTML.
echo "-----BEGIN OPENSSH PRIVATE KEY----- planted" >"$HOME/.ssh/id_planted"
sed -e 's#"title": "[^"]*"#"title": "<img src=\\"/tmp/x.png\\">Evil"#' "$src/resources/presets/g1-gpt-fortunes.json" |
  python3 -c "import json,sys; p=json.load(sys.stdin); p['id']='evil'; p['experiment']['data_dir']='$HOME/.ssh'; json.dump(p, sys.stdout)" \
  >"$ACCELLAB_USER_DIR/presets/evil.json" 2>/dev/null
mem_kb=12000000 run 120 "$gui" --preset evil --epochs 1 --run --quit-when-done
if [ $rc -ne 0 ] && grep -q "data_dir" "$work/err"; then hold "a preset's data_dir outside the data folders needs a flag"; else broke "preset data_dir ~/.ssh" "rc $rc"; fi
rm -f "$ACCELLAB_USER_DIR/presets/evil.json"

# 8. Terminal escapes from files.
sed -e 's/"device_name": "[^"]*"/"device_name": "\\u001b[2J\\u001b]0;pwned\\u0007EPYC\\u009b31m"/' \
    -e 's/"torch": "[^"]*"/"torch": "2.11\\u001b[31m"/' "$runlog" >"$work/escape.jsonl"
run 60 "$cli" import-run "$work/escape.jsonl" --format text
if ! raw_escape; then hold "import-run text output with escapes in the log"; else broke "import-run escapes" "raw escape printed"; fi
printf '{"id": "evil\x1b[2J", "nam\x1b[31me": "x"}' >"$ACCELLAB_USER_DIR/devices/esc.json"
run 60 "$cli" devices --format text
if ! raw_escape; then hold "a device file with escapes in its id and keys"; else broke "device file escapes" "raw escape printed"; fi
rm -f "$ACCELLAB_USER_DIR/devices/esc.json"
sed -n '1,2p' "$src/resources/calibration/calibration.csv" | sed '2s/^[^,]*/EVIL\x1b[2J/' >"$work/ref.csv"
run 60 "$cli" validate --reference "$work/ref.csv" --format text
if ! raw_escape; then hold "validate with escapes in a row id"; else broke "validate escapes" "raw escape printed"; fi
printf '{"a": \x1b[31m}' >"$work/raw.jsonl"
run 60 "$cli" import-run "$work/raw.jsonl"
if ! raw_escape && [ $rc -ne 0 ]; then hold "a JSON parse error quoting a raw ESC byte"; else broke "parse error escape" "raw escape printed"; fi

# 9. The smaller items.
printf '{"id": "broken", "title": ' >"$ACCELLAB_USER_DIR/presets/broken.json"
mem_kb=12000000 run 60 "$gui" --preset broken --run --quit-when-done
if [ $rc -ne 0 ] && grep -q "broken.json" "$work/err"; then hold "scripted GUI names an invalid user preset's error"; else broke "invalid preset" "rc $rc"; fi
rm -f "$ACCELLAB_USER_DIR/presets/broken.json"
python3 -c "import json; p=json.load(open('$src/resources/presets/e3-colab-fashion.json')); p['id']='ghost'; p['devices'] = p.get('devices', []) + [{'id': 'no-such-gpu'}]; json.dump(p, open('$ACCELLAB_USER_DIR/presets/ghost.json', 'w'))" 2>/dev/null
mem_kb=12000000 run 60 "$gui" --preset ghost --limit 256 --epochs 1 --run --quit-when-done
if [ $rc -ne 0 ] && grep -q "no-such-gpu" "$work/err"; then hold "scripted GUI refuses a preset's unknown device"; else broke "unknown device in preset" "rc $rc"; fi
rm -f "$ACCELLAB_USER_DIR/presets/ghost.json"
sed '1s/"seq_len": [0-9]*/"seq_len": 1e300/; 1s/"threads": [0-9]*/"threads": -1e300/' "$runlog" >"$work/seq.jsonl"
run 60 "$cli" import-run "$work/seq.jsonl"
if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "seq_len\|threads" "$work/err"; then hold "run-log integers out of range"; else broke "run-log seq_len 1e300" "rc $rc"; fi
run 60 "$cli" simulate --model llama3.1-405b --device h100
if [ $rc -ne 0 ] && grep -qi "llama3-8b\|accellab-cli models" "$work/err"; then hold "unknown model lists the transformers too"; else broke "unknown model list" "rc $rc"; fi
run 60 "$cli" simulate --model llama3-8b --device h100 --count 8 --batch 8 --seq-len 2048 --parallel dp=1000000000000
if [ $rc -ne 0 ] && ! grep -q "not a whole number" "$work/err"; then hold "dp=1e12 is out of range, not 'not whole'"; else broke "dp=1e12" "rc $rc"; fi
run 60 "$cli" simulate --model lenet5 --dataset fashion-mnist --device v100 --batch 1e308
if [ $rc -ne 0 ] && ! grep -qE '[0-9]{40}' "$work/err"; then hold "no 309-digit numbers in errors"; else broke "309 digits" "rc $rc"; fi
evil="$work/q'\"\$(touch PWNED)"
run 120 "$cli" export-script --model lenet5 --batch 64 --out "$evil"
hint=$(grep -h "train.py" "$work/out" "$work/err" | head -1)
if [ $rc -eq 0 ] && (cd "$work" && bash -n -c "$hint" 2>/dev/null && eval "echo $hint" >/dev/null 2>&1; [ ! -e "$work/PWNED" ] && [ ! -e PWNED ]); then hold "export-script's hint quotes the folder"; else broke "export-script hint" "rc $rc, PWNED created or hint missing"; fi
run 60 "$cli" export-script --model lenet5 --batch 64 --out "$evil"
if [ $rc -ne 0 ] && grep -q -- "--force" "$work/err"; then hold "export-script refuses an existing job folder"; else broke "export-script overwrite" "rc $rc"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
