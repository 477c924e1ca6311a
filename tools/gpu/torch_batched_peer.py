"""PyTorch peer of the batched rollout benchmark: one fp64 step Z <- Z @ A, (B x D) @ (D x D).

The same sizes as //bench/vulkan:batched_rollout_vulkan_benchmark (D in {512, 1024},
B in {64, 256, 1024, 4096}), with random non-zero inputs of the same shape of distribution
(magnitudes uniform in [0.5, 1), random signs; A scaled by 0.9 / sqrt(D)), eager and CUDA-graph
replay, timed with CUDA events after a warm-up; medians over repetitions. Prints the time per step
and fp64 GFLOP/s counted as 2*B*D^2 per step, like the Vulkan benchmark.

Not a like-for-like comparison of arithmetic: torch.matmul calls cuBLAS DGEMM, which on an H100
may use the FP64 tensor cores (DMMA: fused multiply-adds, a blocked summation order of cuBLAS's
choosing, hence different rounding). dashi's batched kernel is bound to the canonical order of
core_ref/rollout/vecmat.h (chunks of 64 summed sequentially, products rounded before each add,
then a pairwise tree), which rules out FMA and tensor cores: it runs on the CUDA-core fp64 units
with a separate multiply and add per term, i.e. at most half of their FMA peak. The numbers here
are what the same size costs without the bit-exactness contract.

Usage: python3 tools/gpu/torch_batched_peer.py [--dims 512,1024] [--batches 64,256,1024,4096]
"""
import argparse
import statistics

import torch


def parse_list(text):
    return [int(x) for x in text.split(",") if x]


def median_us(fn, reps, inner):
    """Median over `reps` windows of the mean time (µs) of `inner` back-to-back calls.

    All windows are recorded between CUDA events first and read after one synchronisation, so the
    host never stalls the queue between windows."""
    for _ in range(3):
        fn()
    windows = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
               for _ in range(reps)]
    for start, end in windows:
        start.record()
        for _ in range(inner):
            fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 / inner for s, e in windows)


def non_zero(shape, scale, generator, device):
    """Magnitudes uniform in [0.5, 1) * scale with random signs: never zero."""
    magnitude = (0.5 + 0.5 * torch.rand(shape, generator=generator, device=device,
                                        dtype=torch.float64)) * scale
    sign = torch.randint(0, 2, shape, generator=generator, device=device) * 2 - 1
    return magnitude * sign.to(torch.float64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", default="512,1024")
    parser.add_argument("--batches", default="64,256,1024,4096")
    parser.add_argument("--graph-steps", type=int, default=50, help="steps captured per graph")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()

    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    print(f"{'D':>6} {'B':>6} {'eager us/step':>14} {'graph us/step':>14} "
          f"{'eager GFLOP/s':>14} {'graph GFLOP/s':>14}")
    for d in parse_list(args.dims):
        for b in parse_list(args.batches):
            g = torch.Generator(device=dev).manual_seed(1000 * d + b)
            a = non_zero((d, d), 0.9 / d**0.5, g, dev)
            z0 = non_zero((b, d), 1.0, g, dev)
            buf = [z0.clone(), z0.clone()]

            def step():
                torch.matmul(buf[0], a, out=buf[1])
                buf[0], buf[1] = buf[1], buf[0]

            eager = median_us(step, args.reps, inner=20)

            # CUDA graph: graph_steps dependent products, ping-ponging between two buffers.
            x, y = z0.clone(), z0.clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):  # warm-up on a side stream before capture
                for _ in range(3):
                    torch.matmul(x, a, out=y)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            pairs = max(1, args.graph_steps // 2)
            with torch.cuda.graph(graph):
                for _ in range(pairs):
                    torch.matmul(x, a, out=y)
                    torch.matmul(y, a, out=x)
            per_step = median_us(graph.replay, max(5, args.reps // 2), inner=5) / (2 * pairs)

            flops = 2.0 * b * d * d
            print(f"{d:>6} {b:>6} {eager:>14.2f} {per_step:>14.2f} "
                  f"{flops / (eager * 1e3):>14.1f} {flops / (per_step * 1e3):>14.1f}")


if __name__ == "__main__":
    main()
