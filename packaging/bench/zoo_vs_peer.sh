#!/usr/bin/env bash
# The engine against the PyTorch peer (../shared/bench/run_torch_baseline.sh), model by model,
# fp32 and bf16, on this machine with the same threads: the four runs of a model alternate,
# ROUNDS times, and the table gives medians of the median-step throughput (images/s;
# sequences/s for text models), the fraction of this machine's measured multiply-add peak the
# engine reached, and the ratios. A ratio is taken within each round (its runs are a minute
# apart; a shared VM's speed moves by a third between rounds) and given as the median over the
# rounds with their range; each round's figures follow the table. A benchmark, not a test:
# about 20 minutes on 2 cores.
#
#   packaging/bench/zoo_vs_peer.sh [--rounds R] [--threads T] [--models "m1 m2"] [--out FILE]
#
# Needs build/app/accellab-cli (packaging/dev.sh builds it) and the peer at
# ../shared/bench/run_torch_baseline.sh (or PEER=path). The peer's bf16 is
# torch.autocast('cpu', bfloat16), oneDNN's bf16 kernels (AMX or AVX512_BF16 where present).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${ACCELLAB_CLI:-$root/build/app/accellab-cli}
peer=${PEER:-$root/../shared/bench/run_torch_baseline.sh}
rounds=3
threads=2
models="mlp lenet5 mnist-cnn colab-cnn resnet20 vit-tiny char-gpt imdb-bilstm lstm-textgen"
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "zoo_vs_peer.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$cli" ] || { echo "zoo_vs_peer.sh: $cli is missing: build first (packaging/dev.sh cli --help)" >&2; exit 1; }
[ -x "$peer" ] || { echo "zoo_vs_peer.sh: the peer $peer is missing (set PEER=path)" >&2; exit 1; }

exec python3 - "$cli" "$peer" "$rounds" "$threads" "$out" $models <<'PY'
import json, statistics, subprocess, sys, datetime, platform

cli, peer, rounds, threads, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
models = sys.argv[6:]
batch = {"mlp": 128, "lenet5": 64, "char-gpt": 32, "imdb-bilstm": 32}

def engine(model, precision):
    cmd = [cli, "bench", "--model", model, "--batch", str(batch.get(model, 128)), "--threads", str(threads),
           "--steps", "20", "--warmup", "5", "--precision", precision, "--format", "json"]
    j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return j

def torch(model, bf16):
    cmd = [peer, "--model", model, "--threads", str(threads), "--steps", "20", "--warmup", "5"]
    if model in batch:
        cmd += ["--batch", str(batch[model])]
    if bf16:
        cmd.append("--bf16")
    p = subprocess.run(cmd, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT"):
            return json.loads(line[len("RESULT"):])["throughput"]["img_per_s_median_step"]
    print(f"peer failed for {model} bf16={bf16}: {p.stderr[-400:]}", file=sys.stderr)
    return None

rows, round_lines, info = [], [], None
med = lambda v: statistics.median(v) if v else float("nan")
nan = float("nan")

def paired(num, den):
    """A ratio per round where both runs gave a figure: its median over the rounds, with the
    range where there are several ("1.30 (1.28-1.33)"); "-" where no round has both."""
    r = [n / d for n, d in zip(num, den) if n and d]
    if not r:
        return "-"
    return f"{statistics.median(r):.2f}" + (f" ({min(r):.2f}-{max(r):.2f})" if len(r) > 1 else "")

for model in models:
    e32, e16, t32, t16, f32, f16 = [], [], [], [], [], []
    for r in range(rounds):
        a = engine(model, "fp32"); e32.append(a["images_per_second_median_step"]); f32.append(a["peak_fraction"])
        t32.append(torch(model, False))
        b = engine(model, "bf16"); e16.append(b["images_per_second_median_step"]); f16.append(b["peak_fraction"])
        t16.append(torch(model, True))
        info = info or b
        # A bf16 run that did not multiply on the bf16 path this machine's first run took (the
        # start-up check of whether the dot products pay read a disturbed core) is said on its line.
        path = "" if b["isa"] == info["isa"] else f" (bf16 on {b['isa']}, not {info['isa']})"
        line = (f"{model} round {r + 1}: engine {e32[-1]:.0f}/{e16[-1]:.0f}, torch "
                f"{t32[-1] or nan:.0f}/{t16[-1] or nan:.0f}{path}")
        round_lines.append(line)
        print(line, file=sys.stderr)
    ok = lambda v: [x for x in v if x]
    rows.append((model, batch.get(model, 128), med(e32), med(f32), med(e16), med(f16), med(ok(t32)), med(ok(t16)),
                 paired(e32, t32), paired(e16, t16), paired(e16, e32)))

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
peak = info["fma_peak"]
lines = [f"Engine vs PyTorch peer, {datetime.date.today()}, {cpu}, {threads} threads, {rounds} alternated rounds "
         f"(medians of the median step).",
         f"GEMM path for bf16: {info['gemm_path']}; measured peak: {peak['fp32_gflops']:,.0f} GFLOP/s fp32, "
         f"{(peak['bf16_gflops'] or 0):,.0f} bf16.", "",
         "| model (batch) | engine fp32 | % fp32 peak | engine bf16 | % bf16 peak | PyTorch fp32 | PyTorch bf16 | "
         "engine ÷ PyTorch fp32 | engine bf16 ÷ PyTorch bf16 | engine bf16 ÷ fp32 |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for m, b, e32, f32, e16, f16, t32, t16, r32, r16, own in rows:
    lines.append(f"| {m} ({b}) | {e32:,.0f} | {100 * f32:.0f}% | {e16:,.0f} | {100 * f16:.1f}% | {t32:,.0f} | {t16:,.0f} | "
                 f"{r32} | {r16} | {own} |")
lines += ["", "Ratios: within each round, the median over the rounds (their range). Each round, images/s "
          "(engine fp32/bf16, peer fp32/bf16):", "", "```", *round_lines, "```"]
text = "\n".join(lines) + "\n"
print(text)
if out:
    open(out, "w").write(text)
PY
