"""The GPU benchmark, one run, side by side: a fused elementwise chain's bandwidth as %
of the device's peak, reductions, GEMM (sstad's tiled kernel against cuBLAS via CuPy),
and the GMM, LSTM and MLP gradients under sstad-cuda, sstad-numba (CPU) and JAX on the GPU.
A column whose package is missing says so and is skipped.

On a machine with a GPU (numba-cuda, CuPy, JAX with CUDA; no internet, no gast), from
the repository root, with a gast wheel carried along (`pip download gast -d wheels/`):

    pip install --no-index --find-links wheels/ gast && pip install --no-deps -e .
    python benchmarks/gpu.py

Under Numba's CUDA simulator, tiny sizes, to check that the script runs (the times
mean nothing there):

    python benchmarks/gpu.py --sim
"""
import argparse
import os
import statistics
import sys
import time

SIM = "--sim" in sys.argv
if SIM:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ.setdefault("JAX_PLATFORMS", "cpu" if SIM else "cuda")   # before peers sets "cpu"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

import gmm  # noqa: E402
import lstm  # noqa: E402
import mlp  # noqa: E402
import peers  # noqa: E402
import sstad  # noqa: E402
from sstad.backend.cuda import CudaBackend  # noqa: E402
from sstad.kernels import gemm, reduce  # noqa: E402

ON_DEVICE = CudaBackend(device_results=True)


def timed(call, repeat):
    """Median seconds of ``call()`` (which must wait for the device), after one warm-up."""
    call()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def synced(fn):
    def call():
        out = fn()
        cuda.synchronize()
        return out
    return call


def peak_bandwidth():
    """Bytes per second: memory clock (kHz) x 2 (double data rate) x bus width (bits) / 8."""
    if SIM:
        return None
    device = cuda.get_current_device()
    return device.MEMORY_CLOCK_RATE * 1e3 * 2 * device.GLOBAL_MEMORY_BUS_WIDTH / 8


def chain(a, b, c):
    return a * np.exp(-b * b) + 0.5 * c


def elementwise_section(n, repeat):
    rng = np.random.default_rng(0)
    a, b, c = (cuda.to_device(rng.standard_normal(n)) for _ in range(3))
    f = sstad.jit(chain, backend=ON_DEVICE)
    seconds = timed(synced(lambda: f(a, b, c)), repeat)
    moved = 4 * n * 8                                   # three reads and one write of float64
    peak = peak_bandwidth()
    share = f"{100 * moved / seconds / peak:.0f}% of peak {peak / 1e9:.0f} GB/s" if peak else \
        "peak n/a on the simulator"
    print(f"fused elementwise a*exp(-b*b)+0.5*c  n={n:>11,}  {seconds * 1e3:9.3f} ms  "
          f"{moved / seconds / 1e9:8.1f} GB/s  {share}")


def reduction_section(n, rows, repeat):
    rng = np.random.default_rng(1)
    x = cuda.to_device(rng.standard_normal(n))
    m = cuda.to_device(rng.standard_normal((rows, n // rows)))
    for label, call in (("sum (full)", lambda: reduce.reduce(x, "sum")),
                        ("max (full)", lambda: reduce.reduce(x, "max")),
                        (f"sum axis=1 ({rows} rows)", lambda: reduce.reduce(m, "sum", 1)),
                        (f"sum axis=0 ({rows} rows)", lambda: reduce.reduce(m, "sum", 0)),
                        ("logsumexp axis=1", lambda: reduce.logsumexp(m, 1))):
        seconds = timed(synced(call), repeat)
        print(f"reduction {label:<24} n={n:>11,}  {seconds * 1e3:9.3f} ms  {n * 8 / seconds / 1e9:8.1f} GB/s")


def gemm_section(size, repeat):
    rng = np.random.default_rng(2)
    A, B = (cuda.to_device(rng.standard_normal((size, size))) for _ in range(2))
    flops = 2 * size ** 3
    cells = []
    for method in ("own", "cublas"):
        if method == "cublas" and not gemm.cupy_available():
            cells.append("cuBLAS: skipped (CuPy missing)" if not SIM else "cuBLAS: skipped (simulator)")
            continue
        seconds = timed(synced(lambda: gemm.gemm(A, B, method=method)), repeat)
        cells.append(f"{'tiled' if method == 'own' else 'cuBLAS'} {seconds * 1e3:8.3f} ms "
                     f"{flops / seconds / 1e9:8.1f} GFLOP/s")
    print(f"GEMM float64 {size}x{size}:  " + "  |  ".join(cells))


def tiny_cases():
    """Small versions of the objectives for the simulator."""
    rng = np.random.default_rng(3)
    gmm_args = (rng.standard_normal(3), rng.standard_normal((3, 2)), rng.standard_normal((3, 3)) * 0.1,
                rng.standard_normal((4, 2)), 1.0, 0)
    layers, b, c = 1, 2, 3
    lstm_args = (rng.standard_normal((2 * layers, 4 * b)) * 0.5, rng.standard_normal((3, b)) * 0.5,
                 rng.standard_normal((2 * layers, b)) * 0.5, rng.standard_normal((c, b)))
    mlp_args = (rng.standard_normal((3, 4)), np.zeros(4), rng.standard_normal((4, 2)), np.zeros(2),
                rng.standard_normal((5, 3)), np.eye(2)[rng.integers(0, 2, 5)])
    return [peers.Case("gmm (tiny)", gmm.gmm_objective, gmm_args, (0, 1, 2), jax=gmm.gmm_vectorized),
            peers.Case("lstm (tiny)", lstm.lstm_objective, lstm_args, (0, 1), jax=lstm.lstm_jax),
            peers.Case("mlp (tiny)", mlp.mlp_loss, mlp_args, (0, 1, 2, 3), jax=mlp.mlp_loss_xp)]


def full_cases():
    return [gmm.cases()[2], lstm.cases()[0], mlp.cases()[0]]


def gradient_section(cases, repeat):
    print(f"{'gradient':<22}{'sstad-cuda':>14}{'sstad-numba (CPU)':>20}{'jax (GPU)':>14}   max |cuda - numba|")
    for case in cases:
        grad = sstad.grad(case.objective, argnums=case.argnums)
        device_args = tuple(cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in case.args)
        on_gpu = sstad.jit(grad, backend=ON_DEVICE)
        cells = [f"{timed(synced(lambda: on_gpu(*device_args)), repeat) * 1e3:11.3f} ms"]
        on_cpu = sstad.jit(grad, backend="numba")
        cells.append(f"{timed(lambda: on_cpu(*case.args), repeat) * 1e3:17.3f} ms")
        try:
            _, g, _ = peers.build_jax(case)
            cells.append(f"{timed(g, repeat) * 1e3:11.3f} ms")
        except Exception as exc:       # noqa: BLE001 - a missing peer is a skipped column
            cells.append(f"{'skipped':>14}")
            print(f"  (jax skipped: {peers.first_line(exc)})")
        host = sstad.jit(grad, backend="cuda")(*case.args)
        error = max(float(np.max(np.abs(np.asarray(h) - np.asarray(c))))
                    for h, c in zip(host, on_cpu(*case.args)))
        print(f"{case.name:<22}{cells[0]:>14}{cells[1]:>20}{cells[2]:>14}   {error:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim", action="store_true", help="Numba's CUDA simulator, tiny sizes")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    repeat = args.repeat or (1 if SIM else 20)
    if SIM:
        print("Numba CUDA simulator: tiny sizes; times are not GPU times.")
    else:
        device = cuda.get_current_device()
        print(f"device: {device.name.decode() if isinstance(device.name, bytes) else device.name}, "
              f"compute capability {device.compute_capability}")
    elementwise_section(512 if SIM else 1 << 27, repeat)
    reduction_section(256 if SIM else 1 << 26, 4 if SIM else 4096, repeat)
    gemm_section(8 if SIM else 4096, repeat)
    gradient_section(tiny_cases() if SIM else full_cases(), repeat)


if __name__ == "__main__":
    main()
