"""PyTorch peers for docs/PERF.md: fp64 z·A per step (eager and CUDA-graph replay) and 2D FFTs.

Timed with CUDA events after a warm-up; medians over repetitions; random non-zero inputs.
Usage: python3 tools/gpu/torch_peers.py
"""
import statistics
import torch

dev = torch.device("cuda")
print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")


def timed(fn, reps=30, inner=200):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e3 / inner)  # µs per call
    return statistics.median(times)


print(f"{'D':>6} {'eager us/step':>14} {'graph us/step':>14}")
for d in (512, 1024, 2048):
    g = torch.Generator(device=dev).manual_seed(d)
    a = (torch.rand(d, d, device=dev, dtype=torch.float64, generator=g) * 2 - 1) * (0.9 / d**0.5)
    z = torch.rand(1, d, device=dev, dtype=torch.float64, generator=g)
    buf = [z.clone(), z.clone()]

    def step():
        torch.matmul(buf[0], a, out=buf[1])
        buf[0], buf[1] = buf[1], buf[0]

    eager = timed(step)
    x, y = z.clone(), z.clone()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            torch.matmul(x, a, out=y)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    steps_in_graph = 100
    with torch.cuda.graph(graph):
        for i in range(steps_in_graph // 2):
            torch.matmul(x, a, out=y)
            torch.matmul(y, a, out=x)
    per = timed(graph.replay, reps=20, inner=10) / steps_in_graph
    print(f"{d:>6} {eager:>14.2f} {per:>14.2f}")

# irfft2: eager calls are launch-bound (host overhead per call), so they are also timed as a
# CUDA graph of `in_graph` transforms — each its own input and output, so the data is not simply
# L2-resident from the previous one — replayed; per transform = replay time / in_graph. That is
# the figure to set beside VkFFT's device timestamps in the decoder.
def irfft2_graph_us(n, dt, in_graph=20):
    specs = [torch.randn(n, n // 2 + 1, device=dev, dtype=dt) for _ in range(in_graph)]
    real = torch.float64 if dt == torch.complex128 else torch.float32
    outs = [torch.empty(n, n, device=dev, dtype=real) for _ in range(in_graph)]

    def all_transforms():
        for x, y in zip(specs, outs):
            torch.fft.irfft2(x, s=(n, n), out=y)

    # Warm up on a side stream (cuFFT plans are made here, never during capture).
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            all_transforms()
    torch.cuda.current_stream().wait_stream(side)
    fft_graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(fft_graph):
        all_transforms()
    return timed(fft_graph.replay, reps=20, inner=10) / in_graph


print(f"{'N':>6} {'dtype':>10} {'irfft2 eager us':>16} {'irfft2 graph us':>16}")
for n in (128, 1024):
    for dt in (torch.complex128, torch.complex64):
        spec = torch.randn(n, n // 2 + 1, device=dev, dtype=dt)
        t = timed(lambda: torch.fft.irfft2(spec, s=(n, n)), reps=20, inner=50)
        g = irfft2_graph_us(n, dt)
        print(f"{n:>6} {str(dt).replace('torch.', ''):>10} {t:>16.2f} {g:>16.2f}")
