"""The PyTorch side of gemm_shapes: torch.matmul on the same shapes, one thread, fp32 and
bf16 (oneDNN's kernels: AMX or AVX512_BF16 where the CPU has them). Prints CSV like gemm_shapes."""
import time
import torch

torch.set_num_threads(1)
SHAPES = [
    ("vit-tiny dense (tokens x 64 <- 64)", 6400, 64, 64),
    ("vit-tiny mlp (tokens x 256 <- 64)", 6400, 256, 64),
    ("vit-tiny attention (50 x 50 <- 16)", 50, 50, 16),
    ("char-gpt dense (tokens x 128 <- 128)", 4096, 128, 128),
    ("resnet20 conv 3x3 16->16 (pixels x 16 <- 144)", 16384, 16, 144),
    ("resnet20 conv 3x3 64->64 (pixels x 64 <- 576)", 4096, 64, 576),
    ("colab-cnn conv 5x5 64->64 (pixels x 64 <- 1600)", 6272, 64, 1600),
    ("mlp dense (batch x 256 <- 784)", 128, 256, 784),
    ("square 1024", 1024, 1024, 1024),
]
print("shape,m,n,k,path,precision,gflops")
for what, m, n, k in SHAPES:
    flops = 2.0 * m * n * k
    reps = max(1, int(2e8 / flops))
    for dtype, name in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        a = torch.rand(m, k).to(dtype)
        b = torch.rand(k, n).to(dtype)
        torch.matmul(a, b)
        best = 1e30
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(reps):
                torch.matmul(a, b)
            best = min(best, (time.perf_counter() - t0) / reps)
        print(f"{what},{m},{n},{k},torch-{torch.__version__},{name},{flops / best / 1e9:.1f}")
