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

data="$(dirname "$0")/../../data"

# torchrun_job DIR STEPS [train.py options...]: an exported job on two CPU processes (gloo), its
# log in $tmp/run.jsonl. Debian 12's torchrun (PyTorch 1.13 under Python 3.11) reads its default
# --redirects/--tee "0" as None and fails before starting any process; 2 (stderr) reads right.
# --standalone would rendezvous on the fixed port 29400, so two jobs at once (ctest -j) would meet
# on one store: each job rendezvouses on a port the kernel has just handed out.
torchrun_job() {
  dir=$1; steps=$2; shift 2
  rm -f "$tmp/run.jsonl"
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  (cd "$dir" && OMP_NUM_THREADS=1 timeout 300 "$python" -m torch.distributed.run --nnodes 1 --nproc_per_node 2 \
     --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$port" --rdzv_id "accellab-test-$$" \
     --redirects 2 --tee 2 train.py --steps "$steps" --device cpu --warmup 1 --log "$tmp/run.jsonl" "$@") \
    >"$tmp/py" 2>&1
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
  # OpenBLAS picks its kernels from the CPU's family and model; a virtual machine that hides
  # them ("Intel(R) Xeon(R) Processor") gets the generic SSE3 ones ("Prescott"), 6x slower here
  # (34 vs 209 GFLOP/s on a 512x784x512 product), and the job measures the misdetection, not the
  # machine. The vector units the CPU reports decide instead, unless the caller chose.
  if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
    if grep -q -w avx512f /proc/cpuinfo 2>/dev/null; then export OPENBLAS_CORETYPE=SkylakeX
    elif grep -q -w avx2 /proc/cpuinfo 2>/dev/null; then export OPENBLAS_CORETYPE=Haswell; fi
  fi
  (cd "$tmp/job" && OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 LD_LIBRARY_PATH="$blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
     "$python" train.py --steps "$steps" --threads 2 --warmup 1 --log "$tmp/run.jsonl" "$@") \
    >"$tmp/py" 2>&1 || fail "python3 train.py failed"
  grep -q "\"record\": \"start\".*\"params\": $params," "$tmp/run.jsonl" || fail "the log's parameter count is not AccelLab's $params"
  [ "$(grep -c '"record": "step"' "$tmp/run.jsonl")" -eq "$steps" ] || fail "the log does not hold $steps steps"
  grep -q '"record": "end".*"peak_memory_bytes"' "$tmp/run.jsonl" || fail "the log has no end record with peak memory"
  run 0 import-run "$tmp/run.jsonl" --format json ${import_model:+--model "$import_model"}
  grep -q '"device": "host"' "$tmp/out" || fail "import-run did not predict for host"
  grep -q '"step_seconds"' "$tmp/out" || fail "import-run has no step time"
}

case "$case_name" in
  export-mlp) need_python; export_and_run mlp fashion-mnist 128 4 ;;
  export-lenet5) need_python; export_and_run lenet5 fashion-mnist 64 4 ;;
  export-colab-cnn) need_python; export_and_run colab-cnn fashion-mnist 16 3 --synthetic ;;
  export-resnet20) need_python; export_and_run resnet20 cifar10 16 3 --synthetic ;;
  export-onnx)  # a model from a file: its graph written as PyTorch modules, run, read back with the file
    need_python
    import_model="$(dirname "$0")/../../data/onnx/torch_branches.onnx"
    export_and_run "$import_model" fashion-mnist 32 3 --synthetic
    grep -q '"model": "torch_branches.onnx"' "$tmp/out" || fail "import-run did not read the ONNX model's run"
    run 2 import-run "$tmp/run.jsonl"
    grep -q -- "--model path/to/model.onnx" "$tmp/err" || fail "without the file, import-run does not say to give it" ;;
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
  export-llm-params)
    # The exported module is AccelLab's model, parameter for parameter: every shipped transformer
    # (the engine's own char-gpt and vit-tiny export as layer graphs: skipped here), every real
    # Hugging Face config in tests/data/hf-configs and the test models, full and LoRA, built on
    # PyTorch's meta device (no memory) in one process and held against export-script's figures.
    need_python
    : >"$tmp/expected"
    n=0
    for m in "$(dirname "$0")"/../../../resources/models/*.json "$data"/hf-configs/*.json "$data"/llm-export/*.json \
             "$data"/llm-export/tiny-llama/config.json lora:llama3-8b lora:mixtral-8x7b lora:tiny-gqa; do
      ! grep -q '"kind": "layer_graph"' "$m" 2>/dev/null || continue  # a CNN/RNN: the export-* cases
      n=$((n + 1))
      case "$m" in
        lora:*) set -- --model "${m#lora:}" --finetune lora --lora-rank 8 ;;
        *) set -- --model "$m" ;;
      esac
      [ "$m" != lora:tiny-gqa ] || set -- --model "$data/llm-export/tiny-gqa.json" --finetune lora --lora-rank 8
      "$cli" export-script "$@" --out "$tmp/jobs/$n" --format json >"$tmp/out" 2>"$tmp/err" || fail "export-script $* failed: $(cat "$tmp/err")"
      total=$(sed -n 's/^  "total_params": \([0-9]*\).*/\1/p' "$tmp/out")
      trainable=$(sed -n 's/^  "params": \([0-9]*\).*/\1/p' "$tmp/out")
      [ -n "$total" ] || continue  # one of the engine's models
      echo "$tmp/jobs/$n $total $trainable $m" >>"$tmp/expected"
    done
    [ "$(wc -l <"$tmp/expected")" -ge 40 ] || fail "only $(wc -l <"$tmp/expected") transformer jobs exported"
    "$python" - "$tmp/expected" >"$tmp/py" 2>&1 <<'PY' || fail "the exported modules' parameters differ: $(tail -5 "$tmp/py")"
import importlib.util, sys, torch
bad = 0
for i, line in enumerate(open(sys.argv[1])):
    folder, total, trainable, name = line.split()
    spec = importlib.util.spec_from_file_location("job%d" % i, folder + "/train.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    job.DEVICE = torch.device("meta")
    model = job.build_model()
    got = sum(p.numel() for p in model.parameters())
    got_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    if got != int(total) or got_trainable != int(trainable):
        bad += 1
        print("%s: PyTorch %d parameters (%d trainable), AccelLab %s (%s)" % (name, got, got_trainable, total, trainable))
sys.exit(1 if bad else 0)
PY
    ;;
  export-llm-ddp)
    # Exported transformers train for real on two CPU processes under torchrun (gloo): a model
    # file with ZeRO-1, selective recomputation and two micro-batches a step; a Hugging Face
    # config.json on a text's bytes with full recomputation; latent attention with experts (DDP
    # that lets unchosen experts sit a step out). Each log reads back with its plan and tokens/s.
    # The host's rates are measured afresh, alone (RUN_SERIAL), into this case's own folder: the
    # shared cache may hold a measurement taken beside another test (seen: one vCPU's GEMM rate
    # as the machine's, another test busy on the other).
    need_python
    export ACCELLAB_USER_DIR="$tmp/user"
    run 0 devices --host --remeasure
    run 0 export-script --model "$data/llm-export/tiny-gqa.json" --batch 8 --seq-len 32 --count 2 --precision fp32 \
      --parallel dp=2,zero=1,recompute=selective,microbatch=2 --out "$tmp/a" --format json
    grep -q '"parallel": "dp=2,tp=1,pp=1,ep=1,zero=1,recompute=selective,microbatch=2"' "$tmp/out" || fail "the given plan was not exported"
    torchrun_job "$tmp/a" 6 || fail "torchrun of the model file's job failed: $(tail -5 "$tmp/py")"
    [ "$(grep -c '"record": "step"' "$tmp/run.jsonl")" -eq 6 ] || fail "the log does not hold 6 steps"
    grep -q '"grad_accumulation": 2' "$tmp/run.jsonl" || fail "the log does not record two micro-batches a step"
    grep -q '"record": "step".*"tokens": 256,.*"peak_memory_bytes"' "$tmp/run.jsonl" || fail "a step record lacks tokens or peak memory"
    cp "$tmp/run.jsonl" "$tmp/gqa.jsonl"
    run 0 import-run "$tmp/run.jsonl" --format json
    grep -q '"tokens_per_second": [1-9]' "$tmp/out" || fail "import-run has no measured tokens/s"
    grep -q '"parallel": "dp=2,tp=1,pp=1,ep=1,zero=1,recompute=selective,microbatch=2"' "$tmp/out" || fail "import-run lost the plan"
    # This CPU's run is predicted (the transformer step model covers CPUs: torchrun's two
    # processes share the host's vCPUs).
    grep -q '"error_words": "AccelLab predicted' "$tmp/out" || fail "no prediction beside a CPU run"
    # ... at most four times too fast, or ten times too slow on a busy machine (before
    # pytorch-eager had a CPU matmul figure it was 1.5-6.6x too fast on this kind of machine).
    err=$(sed -n 's/^  "error": \([-0-9.e+]*\),*$/\1/p' "$tmp/out" | head -1)
    [ -n "$err" ] || fail "import-run gave no error figure"
    awk "BEGIN { exit !($err > -0.9 && $err < 3) }" || fail "the CPU run's prediction is off by $err (simulated / measured - 1)"
    # Judged on an H100 (as if it had run there): the prediction for the same plan, in one sign.
    run 0 import-run "$tmp/run.jsonl" --device h100 --format json
    grep -q '"error_basis": "simulated throughput / measured throughput - 1"' "$tmp/out" || fail "no error basis"
    grep -q '"error_words": "AccelLab predicted [0-9.]*% faster than measured"' "$tmp/out" || fail "an H100 is not predicted faster than this CPU"
    grep -q '"mfu": ' "$tmp/out" || fail "no MFU beside the measurement"
    # A log whose tokens are not its sequences x their length is refused, naming the record.
    sed '3s/"tokens": 256,/"tokens": 300,/' "$tmp/run.jsonl" >"$tmp/tampered.jsonl"
    bad "tampered.jsonl:3: field 'tokens': 300 tokens, but 8 sequences of 32 are 256" import-run "$tmp/tampered.jsonl"
    run 0 export-script --model "$data/llm-export/tiny-llama/config.json" --dataset fortunes --batch 4 --seq-len 64 --count 2 \
      --precision fp32 --parallel dp=2,recompute=full,microbatch=2 --out "$tmp/b"
    torchrun_job "$tmp/b" 4 || fail "torchrun of the config.json's job failed: $(tail -5 "$tmp/py")"
    grep -q '"model": "tiny-llama".*"recompute": "full"' "$tmp/run.jsonl" || fail "the config's log does not name its model and plan"
    run 0 import-run "$tmp/run.jsonl"
    grep -q "tokens/s (median of" "$tmp/out" || fail "import-run of the config's run has no tokens/s"
    cp "$tmp/run.jsonl" "$tmp/llama.jsonl"
    # Calibrate this machine under PyTorch from the two runs (two configurations: one figure each
    # at most), and simulate with the device file it writes: it reproduces the runs it was fitted on.
    bad "pin at most 2 figures" calibrate --device-base host --runs "$tmp/gqa.jsonl" "$tmp/llama.jsonl" \
      --fit matmul_efficiency,kernel_launch_seconds,step_overhead_seconds --out "$tmp/box.json"
    [ ! -e "$tmp/box.json" ] || fail "a refused calibration wrote a file"
    mkdir -p "$tmp/user/devices"
    run 0 calibrate --device-base host --runs "$tmp/gqa.jsonl" "$tmp/llama.jsonl" --fit matmul_efficiency,kernel_launch_seconds \
      --id my-box --name "This box under PyTorch" --out "$tmp/user/devices/my-box.json" --format json
    grep -q '"key": "kernel_launch_seconds"' "$tmp/out" || fail "the calibration did not fit the per-op cost"
    fit=$(sed -n 's/^  "fit_median_abs_pct_error": \([0-9.e+-]*\).*/\1/p' "$tmp/out")
    # A run that logged two kinds of step (calibrate lists it under "noisy": the shared VM's speed
    # moved within it; seen once, 1 step near 16 ms and 4 near 47 ms, the fit then 51% off) is no
    # measurement of this machine: both jobs run again, once, and the bound below holds for those.
    if ! awk "BEGIN { exit !($fit < 40) }" && grep -q '"noisy": \[$' "$tmp/out"; then
      echo "a calibration run was noisy (fit off by $fit%): running both jobs again" >&2
      torchrun_job "$tmp/a" 6 || fail "torchrun of the model file's job failed again: $(tail -5 "$tmp/py")"
      cp "$tmp/run.jsonl" "$tmp/gqa.jsonl"
      torchrun_job "$tmp/b" 4 || fail "torchrun of the config.json's job failed again: $(tail -5 "$tmp/py")"
      cp "$tmp/run.jsonl" "$tmp/llama.jsonl"
      rm -f "$tmp/user/devices/my-box.json"
      run 0 calibrate --device-base host --runs "$tmp/gqa.jsonl" "$tmp/llama.jsonl" --fit matmul_efficiency,kernel_launch_seconds \
        --id my-box --name "This box under PyTorch" --out "$tmp/user/devices/my-box.json" --format json
      fit=$(sed -n 's/^  "fit_median_abs_pct_error": \([0-9.e+-]*\).*/\1/p' "$tmp/out")
    fi
    # Two short runs on a shared machine: the figures' ranges can keep the fit from being exact
    # (seen: 0-18%); far beyond that, the fit or the step model is broken. Under a sanitizer the
    # host's micro-benchmark runs instrumented (GEMM 115 against 209 GFLOP/s, copy 12 against
    # 39 GB/s on the CI's VM), so PyTorch's matmuls would need more than all of that "peak": the
    # efficiency stops at its limit of 1 and the fit is off by what the instrumentation costs
    # (57% seen). Only the release build holds the fit to the bound.
    if [ -z "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
      awk "BEGIN { exit !($fit < 40) }" || fail "the calibrated host misses its own runs by $fit% (median)"
    fi
    grep -q '"calibrated_software"' "$tmp/user/devices/my-box.json" || fail "no calibrated_software in the device file"
    grep -q '"matmul_efficiency"' "$tmp/user/devices/my-box.json" || fail "the device file lacks the fitted matmul efficiency"
    "$cli" import-run "$tmp/gqa.jsonl" --device my-box --format json >"$tmp/out" 2>"$tmp/err" ||
      fail "import-run on the calibrated device failed: $(cat "$tmp/err")"
    grep -q '"error_words": "AccelLab predicted' "$tmp/out" || grep -q "prediction matches" "$tmp/out" ||
      fail "no prediction on the calibrated device"
    run 0 export-script --model "$data/llm-export/tiny-moe-mla.json" --batch 4 --count 2 --precision fp32 --out "$tmp/c"
    torchrun_job "$tmp/c" 3 --synthetic || fail "torchrun of the experts' job failed: $(tail -5 "$tmp/py")"
    [ "$(grep -c '"record": "step"' "$tmp/run.jsonl")" -eq 3 ] || fail "the experts' log does not hold 3 steps"
    run 0 import-run "$tmp/run.jsonl" --device h100 --format json
    grep -q '"model": "tiny-moe-mla"' "$tmp/out" || fail "the experts' log did not import its model" ;;
  export-llm-fsdp)
    # ZeRO-3 runs FSDP, one unit a block; a PyTorch that cannot (Debian 12's 1.13 under Python
    # 3.11 fails to import it) is said so and the case skips with the reason.
    need_python
    run 0 export-script --model "$data/llm-export/tiny-gqa.json" --batch 4 --count 2 --precision fp32 \
      --parallel dp=2,zero=3,microbatch=2 --out "$tmp/a"
    if ! torchrun_job "$tmp/a" 3 --synthetic; then
      grep -q "the plan shards the weights (zero=3, FSDP), which this PyTorch .* cannot do" "$tmp/py" ||
        fail "FSDP failed without saying why: $(tail -5 "$tmp/py")"
      echo "SKIP [export-llm-fsdp]: $(grep -o 'the plan shards the weights.*' "$tmp/py" | head -1)" >&2
      exit 77
    fi
    grep -q '"strategy": "fsdp"' "$tmp/run.jsonl" || fail "the log is not an FSDP run"
    run 0 import-run "$tmp/run.jsonl" --format json ;;
  export-llm-tp)
    # Tensor parallel: DTensor splits each block over the ranks (PyTorch 2.4+). The job says so in
    # its README; a PyTorch without DTensor (Debian 12's 1.13) stops before training, naming what
    # it lacks, and the case skips with the reason.
    need_python
    # tiny-gqa without its per-head q/k norms (whose shared scales the split refuses).
    sed 's/"id": "tiny-gqa"/"id": "tiny-tp"/; s/"qk_norm": "per_head"/"qk_norm": "none"/' "$data/llm-export/tiny-gqa.json" \
      >"$tmp/tiny-tp.json"
    bad "--parallel: tp=2: tiny-gqa's q/k norms share their scales across heads" export-script \
      --model "$data/llm-export/tiny-gqa.json" --count 2 --parallel tp=2 --out "$tmp/x"
    run 0 export-script --model "$tmp/tiny-tp.json" --batch 4 --seq-len 32 --count 2 --precision fp32 \
      --parallel dp=1,tp=2,microbatch=2 --out "$tmp/a" --format json
    grep -q '"parallel": "dp=1,tp=2,pp=1,ep=1,zero=0,recompute=none,microbatch=2"' "$tmp/out" || fail "the tp plan was not exported"
    grep -q "tensor parallel over 2 processes: DTensor splits q, k, v" "$tmp/a/README.md" || fail "the README does not say how tp runs"
    if ! torchrun_job "$tmp/a" 4 --synthetic; then
      grep -q "the plan has tp=2: tensor parallelism runs on DTensor .*, which this PyTorch .* lacks" "$tmp/py" ||
        fail "tp failed without saying why: $(tail -5 "$tmp/py")"
      echo "SKIP [export-llm-tp]: $(grep -o 'the plan has tp=2.*' "$tmp/py" | head -1)" >&2
      exit 77
    fi
    grep -q '"tp": 2' "$tmp/run.jsonl" || fail "the log does not record tp=2"
    cp "$tmp/run.jsonl" "$tmp/tp.jsonl"
    run 0 import-run "$tmp/tp.jsonl" --format json
    grep -q '"tokens_per_second": [1-9]' "$tmp/out" || fail "import-run has no measured tokens/s"
    # The split computes the same model: one process without it, same seed, same batch, the
    # same first loss.
    run 0 export-script --model "$tmp/tiny-tp.json" --batch 4 --seq-len 32 --count 1 --precision fp32 \
      --parallel dp=1,microbatch=2 --out "$tmp/b"
    (cd "$tmp/b" && timeout 300 "$python" train.py --steps 1 --device cpu --synthetic --warmup 0 --log "$tmp/one.jsonl") \
      >"$tmp/py" 2>&1 || fail "the job without tp failed: $(tail -5 "$tmp/py")"
    "$python" - "$tmp/tp.jsonl" "$tmp/one.jsonl" <<'PY' || fail "tp=2 and tp=1 disagree on the first loss"
import json, sys
first = [next(json.loads(l)["loss"] for l in open(f) if '"record": "step"' in l) for f in sys.argv[1:]]
print(first)
sys.exit(0 if abs(first[0] - first[1]) <= 1e-4 * abs(first[1]) + 1e-5 else 1)
PY
    ;;
  export-llm-refusals)
    # What the exported job cannot run is refused before anything is written, naming the option.
    bad "--parallel: tp=2: over dp=2 replicas the split weights (DTensor) shard with FSDP2" export-script --model gpt2-small \
      --count 4 --parallel dp=2,tp=2 --out "$tmp/x"
    bad "--parallel: tp=2: tiny-moe-mla's latent attention is not split by the exported job" export-script \
      --model "$data/llm-export/tiny-moe-mla.json" --count 2 --parallel tp=2 --out "$tmp/x"
    bad "--parallel: tp=2: the LoRA adapters are not split" export-script --model gpt2-small --count 2 --parallel tp=2 \
      --finetune lora --out "$tmp/x"
    bad "--parallel: dp x tp x pp = 2 processes, but --count is 4" export-script --model gpt2-small --count 4 --parallel dp=2 --out "$tmp/x"
    bad "--finetune: tiny-moe-mla uses latent attention" export-script --model "$data/llm-export/tiny-moe-mla.json" \
      --finetune lora --out "$tmp/x"
    bad "--seq-len: 2048 tokens, but gpt2-small has 1024 learned positions" export-script --model gpt2-small --seq-len 2048 --out "$tmp/x"
    bad "--device: tpu-v5e-8 is a TPU" export-script --model gpt2-small --device tpu-v5e-8 --out "$tmp/x"
    bad "--epochs: a transformer's job trains with AdamW" export-script --model gpt2-small --epochs 2 --out "$tmp/x"
    bad "--parallel: for a transformer AccelLab describes" export-script --model mlp --parallel dp=1 --out "$tmp/x"
    [ ! -e "$tmp/x" ] || fail "a refused export wrote something" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
