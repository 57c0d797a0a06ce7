# SPDX-License-Identifier: GPL-3.0-or-later
# gloo all-reduce between torchrun's processes on one machine: the latency (8 bytes) and the bus
# bandwidth up to 64 MB, the figures behind the pytorch stacks' comm_efficiency for CPUs and
# core/sim/llm_step.h's kCpuCollectiveLatencySeconds. Run:
#   OMP_NUM_THREADS=1 python3 -m torch.distributed.run --nnodes 1 --nproc_per_node 2 \
#     --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29611 --redirects 2 --tee 2 packaging/bench/gloo_allreduce.py
import os, time, json, torch, torch.distributed as dist
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
torch.set_num_threads(1)
out = {}
for n in [2, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24]:
    x = torch.ones(n)
    for _ in range(3): dist.all_reduce(x)
    reps = 200 if n < 1 << 18 else 10
    dist.barrier(); t = time.perf_counter()
    for _ in range(reps): dist.all_reduce(x)
    dist.barrier(); s = (time.perf_counter() - t) / reps
    busbw = 2 * (w - 1) / w * n * 4 / s
    out[n * 4] = (s, busbw / 1e9)
if r == 0:
    print(json.dumps({"world": w, "torch": torch.__version__, "bytes: (seconds, bus GB/s)": out}, indent=1))
dist.destroy_process_group()
