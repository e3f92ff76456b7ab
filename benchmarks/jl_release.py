"""Benchmark: the DPRP Gaussian projection release versus the bare matrix product it is built on.

Prints time(jl_gaussian_release) / time(X @ R) for n = 200_000, d = 50, k = 200, all measured in this run
(best of `--repeats`), plus the pieces that explain the ratio: the time to draw the n*k Gaussian noise values alone,
and the resulting floor 1 + time(noise) / time(X @ R) that no implementation using numpy's generator can beat.
Not a test.  Usage: python benchmarks/jl_release.py [--repeats 3]
"""
import argparse
import time

import numpy as np

from dpnotes.jl import gaussian_projection
from dpnotes.jl_gauss import jl_gaussian_release, theorem_a_sigma


def best_of(fn, repeats):
    "Smallest wall time of `repeats` calls of fn()."
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=200_000)
    ap.add_argument('--d', type=int, default=50)
    ap.add_argument('--k', type=int, default=200)
    ap.add_argument('--repeats', type=int, default=3)
    args = ap.parse_args()
    n, d, k = args.n, args.d, args.k
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    X *= 0.5 / np.linalg.norm(X, axis=1, keepdims=True)        # records in the ball of radius Z/2, Z = 1
    R = gaussian_projection(d, k, rng)
    eps, delta = 1.0, 1e-5
    theorem_a_sigma(eps, delta, 1.0, k)                          # warm the calibration cache (one-off ~0.1 s)

    t_matmul = best_of(lambda: X @ R, args.repeats)
    t_release = best_of(lambda: jl_gaussian_release(X, k, eps, delta, rng=rng), args.repeats)
    t_noise = best_of(lambda: rng.standard_normal((n, k)), args.repeats)
    print(f"n={n} d={d} k={k}  (best of {args.repeats})")
    print(f"X @ R                      : {t_matmul:8.4f} s")
    print(f"jl_gaussian_release        : {t_release:8.4f} s")
    print(f"n*k standard normals alone : {t_noise:8.4f} s")
    print(f"ratio release / matmul     : {t_release / t_matmul:8.2f}   (target <= 1.3)")
    print(f"floor 1 + noise / matmul   : {1 + t_noise / t_matmul:8.2f}   (drawing the noise alone costs this much)")


if __name__ == '__main__':
    main()
