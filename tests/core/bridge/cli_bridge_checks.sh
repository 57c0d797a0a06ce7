#!/bin/sh
# CTest checks of the bridge to real hardware: export-script writes a PyTorch job, Debian's
# python3-torch (1.13; the code also runs on 2.x) runs it for a few steps on this CPU, import-run
# reads the log back beside the simulator's prediction for `host`, calibrate refuses what runs
# cannot pin. Usage: cli_bridge_checks.sh PATH-TO-accellab-cli CASE
# Needs python3 with torch (packaging/dev.sh installs python3-torch); without it the case is
# skipped (exit 77), except under CI=true, where it fails.
set -u
cli="$1"
case_name="$2"
. "$(dirname "$0")/../../cli_check_lib.sh"

# Debian's interpreter first: a pyenv or venv python3 on PATH may lack torch.
python=""
for p in "${ACCELLAB_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$p" ] || continue
  if "$p" -c 'import torch' >/dev/null 2>&1; then python="$p"; break; fi
done
need_python() {
  if [ -z "$python" ]; then
    [ "${CI:-}" = "true" ] && fail "no python3 with torch (packaging/dev.sh installs python3-torch)"
    echo "SKIP: no python3 with torch"; exit 77
  fi
}

# export_and_run MODEL DATASET BATCH STEPS [train.py options...]: export, run, check the log.
export_and_run() {
  model=$1; dataset=$2; batch=$3; steps=$4; shift 4
  run 0 export-script --model "$model" --dataset "$dataset" --batch "$batch" --out "$tmp/job" --format json
  params=$(sed -n 's/^  "params": \([0-9]*\).*/\1/p' "$tmp/out")
  [ -n "$params" ] || fail "export-script --format json gave no params"
  [ -f "$tmp/job/README.md" ] || fail "no README.md next to train.py"
  # As the PyTorch peer runs: the OpenMP OpenBLAS (dev.sh installs it; with the pthread one,
  # torch's OpenMP pool and OpenBLAS's threads fight over the cores), 2 threads.
  blas=/usr/lib/x86_64-linux-gnu/openblas-openmp
  [ -d "$blas" ] || blas=""
  (cd "$tmp/job" && OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 LD_LIBRARY_PATH="$blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
     "$python" train.py --steps "$steps" --threads 2 --warmup 1 --log "$tmp/run.jsonl" "$@") \
    >"$tmp/py" 2>&1 || fail "python3 train.py failed"
  grep -q "\"record\": \"start\".*\"params\": $params," "$tmp/run.jsonl" || fail "the log's parameter count is not AccelLab's $params"
  [ "$(grep -c '"record": "step"' "$tmp/run.jsonl")" -eq "$steps" ] || fail "the log does not hold $steps steps"
  grep -q '"record": "end".*"peak_memory_bytes"' "$tmp/run.jsonl" || fail "the log has no end record with peak memory"
  run 0 import-run "$tmp/run.jsonl" --format json
  grep -q '"device": "host"' "$tmp/out" || fail "import-run did not predict for host"
  grep -q '"step_seconds"' "$tmp/out" || fail "import-run has no step time"
}

case "$case_name" in
  export-mlp) need_python; export_and_run mlp fashion-mnist 128 4 ;;
  export-lenet5) need_python; export_and_run lenet5 fashion-mnist 64 4 ;;
  export-colab-cnn) need_python; export_and_run colab-cnn fashion-mnist 16 3 --synthetic ;;
  export-resnet20) need_python; export_and_run resnet20 cifar10 16 3 --synthetic ;;
  export-char-gpt)
    need_python
    export_and_run char-gpt fortunes 4 3
    grep -q '"record": "eval".*"val_bits_per_char"' "$tmp/run.jsonl" || fail "char-gpt's log has no evaluation"
    grep -q '"unit": "tokens"' "$tmp/run.jsonl" || fail "char-gpt's log does not count tokens" ;;
  roundtrip)
    # Export, run, import: measured and predicted step time for host, and the error between.
    # The host's rates are measured afresh here, alone (RUN_SERIAL) as the job runs, not taken
    # from a cache another test may have measured on a busy machine.
    need_python
    export ACCELLAB_USER_DIR="$tmp/user"
    run 0 devices --host --remeasure
    export_and_run mlp fashion-mnist 128 25
    grep -q '"simulated": true' "$tmp/out" || fail "the prediction is not labelled simulated"
    grep -q '"measured": true' "$tmp/out" || fail "the measurement is not labelled measured"
    err=$(sed -n 's/^  "error": \(-\{0,1\}[0-9.e-]*\).*/\1/p' "$tmp/out")
    [ -n "$err" ] || fail "import-run gave no error"
    # The host check's band: the simulator's host prediction against this machine's measured
    # steps is within about +-35% for the small models (README); allow 50% on a busy CI machine.
    # Under a sanitizer the host's micro-benchmark runs instrumented (its rates are not the
    # machine's), so only the release build holds the prediction to the band.
    # On a shared 2-vCPU virtual machine the one-second host probe, or the 25-step job itself,
    # now and then lands on a slow moment (here about one run in three: 75-92% off, either way,
    # where the others were 5-24%, the machine otherwise idle). Up to three more times the host
    # is measured again and the job run again; four slow runs in a row fail.
    # A prediction that is wrong is wrong the same way every time; a machine whose speed jumps
    # makes errors of both signs. Four runs off, all one way, fail; both ways, the check is
    # skipped (exit 77) as the machine's, not the simulator's.
    if [ -z "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
      tries=1
      errors=""
      while ! awk -v e="$err" 'BEGIN { exit !(e > -0.5 && e < 0.5) }'; do
        errors="$errors $err"
        if [ "$tries" -ge 4 ]; then
          if awk -v list="$errors" 'BEGIN { n = split(list, e, " "); p = 0; m = 0
                                            for (i = 1; i <= n; i++) { if (e[i] > 0) p++; else m++ }
                                            exit !(p > 0 && m > 0) }'; then
            echo "SKIP [roundtrip]: this machine's speed varied between runs (errors:$errors): not checked" >&2
            exit 77
          fi
          fail "host prediction off by $err (more than 50%, $tries runs in a row, all one way:$errors)"
        fi
        echo "host prediction off by $err: measuring the host and running the job again" >&2
        tries=$((tries + 1))
        run 0 devices --host --remeasure
        rm -rf "$tmp/job" "$tmp/run.jsonl"
        export_and_run mlp fashion-mnist 128 25
        run 0 import-run "$tmp/run.jsonl" --format json
        err=$(sed -n 's/^  "error": \(-\{0,1\}[0-9.e-]*\).*/\1/p' "$tmp/out")
      done
    fi
    run 0 import-run "$tmp/run.jsonl" --format text
    grep -q "measured " "$tmp/out" && grep -q "simulated " "$tmp/out" || fail "text output lacks measured/simulated" ;;
  bad-logs)
    printf '%s\n' '{"record": "start", "format": "accellab-run-log", "version": 1, "model": "mlp", "dataset": "fashion-mnist", "batch": 128, "precision": "fp32", "seed": 0, "params": 669706, "unit": "images", "device": "cpu", "device_name": "x", "device_count": 1, "strategy": "single", "torch": "2.5"}' >"$tmp/good.jsonl"
    cp "$tmp/good.jsonl" "$tmp/trunc.jsonl"; printf '{"record": "step", "step": 1, "epo' >>"$tmp/trunc.jsonl"
    bad "trunc.jsonl:2: truncated" import-run "$tmp/trunc.jsonl"
    cp "$tmp/good.jsonl" "$tmp/missing.jsonl"; printf '%s\n' '{"record": "step", "step": 1, "epoch": 0, "samples": 128, "per_second": 10, "warmup": false}' >>"$tmp/missing.jsonl"
    bad "missing.jsonl:2: field 'seconds'" import-run "$tmp/missing.jsonl"
    printf 'hello\n' >"$tmp/foreign.jsonl"
    bad "foreign.jsonl:1" import-run "$tmp/foreign.jsonl"
    sed 's/"params": 669706/"params": 61706/' "$tmp/good.jsonl" >"$tmp/other.jsonl"
    bad "other.jsonl:1: field 'params'" import-run "$tmp/other.jsonl"
    bad "no step records" import-run "$tmp/good.jsonl"
    bad "fp8" export-script --model mlp --precision fp8 --out "$tmp/x"
    bad "--count" export-script --model mlp --count 4 --out "$tmp/x" ;;
  calibrate)
    printf '%s\n' '{"record": "start", "format": "accellab-run-log", "version": 1, "model": "colab-cnn", "dataset": "fashion-mnist", "batch": 512, "precision": "fp16", "seed": 0, "params": 1619084, "unit": "images", "device": "cuda", "device_name": "Lab GPU", "device_count": 1, "strategy": "single", "torch": "2.5"}' \
      '{"record": "step", "step": 1, "epoch": 0, "seconds": 0.2, "samples": 512, "per_second": 2560, "warmup": false}' >"$tmp/a.jsonl"
    bad "pin at most 1 figure" calibrate --device-base t4 --runs "$tmp/a.jsonl" --fit gemm_efficiency,step_overhead_seconds --out "$tmp/lab-gpu.json"
    [ ! -e "$tmp/lab-gpu.json" ] || fail "a refused calibration wrote a file"
    run 0 calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/lab-gpu.json"
    grep -q '"calibrated_software"' "$tmp/lab-gpu.json" || fail "the device file has no calibrated_software"
    grep -q 'fitted on your runs' "$tmp/lab-gpu.json" || fail "the fitted figures are not sourced to the runs"
    mkdir -p "$tmp/user/devices" && cp "$tmp/lab-gpu.json" "$tmp/user/devices/"
    ACCELLAB_USER_DIR="$tmp/user" "$cli" simulate --model colab-cnn --device lab-gpu --batch 512 --precision fp16 >"$tmp/out" 2>"$tmp/err" ||
      fail "the calibrated device does not simulate"
    grep -q '"step_seconds": 0.2[0-9]*,' "$tmp/out" || grep -q '"step_seconds": 0.19[0-9]*,' "$tmp/out" || fail "the calibrated device does not reproduce its run (0.2 s)" ;;
  overwrite)
    # calibrate never overwrites one of its runs (--force or not) and refuses an existing --out
    # unless --force; export-script refuses a folder that holds a job unless --force.
    printf '%s\n' '{"record": "start", "format": "accellab-run-log", "version": 1, "model": "colab-cnn", "dataset": "fashion-mnist", "batch": 512, "precision": "fp16", "seed": 0, "params": 1619084, "unit": "images", "device": "cuda", "device_name": "Lab GPU", "device_count": 1, "strategy": "single", "torch": "2.5"}' \
      '{"record": "step", "step": 1, "epoch": 0, "seconds": 0.2, "samples": 512, "per_second": 2560, "warmup": false}' >"$tmp/a.jsonl"
    cp "$tmp/a.jsonl" "$tmp/a.kept"
    bad "never overwritten" calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/a.jsonl"
    bad "never overwritten" calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/a.jsonl" --force
    ln -s a.jsonl "$tmp/link.json"
    bad "never overwritten" calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/link.json" --force
    cmp -s "$tmp/a.jsonl" "$tmp/a.kept" || fail "calibrate overwrote its own run log"
    run 0 calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/lab.json"
    echo old >"$tmp/lab.json"
    bad "--force" calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/lab.json"
    [ "$(cat "$tmp/lab.json")" = old ] || fail "calibrate replaced an existing file without --force"
    run 0 calibrate --device-base t4 --runs "$tmp/a.jsonl" --out "$tmp/lab.json" --force
    grep -q '"calibrated_software"' "$tmp/lab.json" || fail "calibrate --force did not replace the file"
    "$cli" calibrate --help | grep -q -- "--force" || fail "calibrate --help does not document --force"
    run 0 export-script --model mlp --out "$tmp/job"
    echo mine >"$tmp/job/README.md"
    bad "--force" export-script --model mlp --out "$tmp/job"
    [ "$(cat "$tmp/job/README.md")" = mine ] || fail "export-script replaced README.md without --force"
    run 0 export-script --model mlp --out "$tmp/job" --force
    grep -q "train.py" "$tmp/job/README.md" || fail "export-script --force did not replace README.md"
    "$cli" export-script --help | grep -q -- "--force" || fail "export-script --help does not document --force"
    # fit-stacks --write: never over the stack files it read, whatever the flag.
    bad "never overwritten" fit-stacks --reference "$(dirname "$0")/../../../resources/calibration/calibration.csv" \
      --write "$(dirname "$0")/../../../resources/stacks" --force ;;
  special-files)
    # Inputs are regular files: a FIFO fails at once (no hang), a device is named as one.
    mkfifo "$tmp/fifo.jsonl"
    for args in "import-run $tmp/fifo.jsonl" "calibrate --device-base t4 --out $tmp/x.json --runs $tmp/fifo.jsonl" \
                "validate --reference $tmp/fifo.jsonl" "fit-stacks --reference $tmp/fifo.jsonl"; do
      timeout 20 "$cli" $args >"$tmp/out" 2>"$tmp/err"
      got=$?
      [ "$got" -eq 2 ] || fail "accellab-cli $args on a FIFO exited $got, expected 2 (124: it hung)"
      grep -q "FIFO" "$tmp/err" || fail "accellab-cli $args: the error does not say FIFO"
    done
    bad "is a character device, not a regular file" import-run /dev/zero
    bad "is a character device, not a regular file" calibrate --device-base t4 --runs /dev/zero --out "$tmp/x.json"
    bad "is a character device, not a regular file" validate --reference /dev/zero
    bad "no such file" import-run "$tmp/missing.jsonl"
    [ ! -e "$tmp/x.json" ] || fail "a refused calibration wrote a file" ;;
  run-hint)
    # The "run it:" hint quotes the folder for a POSIX shell: pasted, it runs nothing the
    # folder's name holds.
    dir="$tmp/q'\"\$(touch PWNED)"
    mkdir -p "$tmp/cwd"
    run 0 export-script --model mlp --out "$dir"
    hint=$(sed -n 's/^run it:  python3 \(.*\) --steps 50 --log run.jsonl$/\1/p' "$tmp/out")
    [ -n "$hint" ] || fail "no run it: hint"
    got=$(cd "$tmp/cwd" && eval "printf '%s' $hint")
    [ "$got" = "$dir/train.py" ] || fail "the hint's path reads back as '$got', not '$dir/train.py'"
    [ ! -e "$tmp/cwd/PWNED" ] || fail "pasting the hint ran a command from the folder name" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
