"""Benchmark of the DPRP release (dpnotes.dprp.DPRP).

Prints, measured in one run on the same data (n = 200 000, d = 50, k1 = 200, k2 = 30):
* the release time of the literal Algorithm 1 path and of the equivalent `fast=True, sampler='numpy'` path, divided by the time of the
  unavoidable products of Algorithm 1 (X R, X^T X, P' M) timed in the same run;
* the same two ratios as medians over 5 repeats, each release timed right after its floor;
* the peak traced memory (tracemalloc; numpy reports its buffers) of the in-memory path and of the row-chunked path.
Not a test. Usage: python benchmarks/dprp_release.py [n] [chunk]
"""
import sys, time, tracemalloc
import numpy as np
from dpnotes.dprp import DPRP

def best_of(f, reps=3):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return min(ts)

def paired_ratio(floor, f, reps=5):
    "Median over repeats of time(f) / time(floor), the two timed back to back in each repeat (load cancels in the ratio)."
    r = []
    for _ in range(reps):
        t0 = time.perf_counter(); floor(); t1 = time.perf_counter(); f(); t2 = time.perf_counter()
        r.append((t2 - t1) / (t1 - t0))
    return float(np.median(r))

def peak_mb(f):
    tracemalloc.start(); tracemalloc.reset_peak()
    f()
    peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    return peak / 2**20

def main(n=200_000, chunk=10_000, d=50, k1=200, k2=30):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d)); X /= np.linalg.norm(X, axis=1, keepdims=True)   # already unit rows
    R = rng.standard_normal((d, k1)) / np.sqrt(k1); M = rng.standard_normal((k1, d)); P = X @ R
    t_xr = best_of(lambda: X @ R); t_gram = best_of(lambda: X.T @ X); t_pm = best_of(lambda: P @ M)
    t_prod = t_xr + t_gram + t_pm
    kw = dict(epsilon=4.0, delta=1e-4, k1=k1, k2=k2, split=(0.85, 0.15, 0.0), theorem_a='split', rng=1)
    DPRP(**kw).fit_release(X[:1000])                                                    # warm caches / imports
    t_lit = best_of(lambda: DPRP(**kw).fit_release(X))
    t_fast = best_of(lambda: DPRP(**kw, fast=True, sampler='numpy').fit_release(X))
    t_chunk = best_of(lambda: DPRP(**kw, chunk_size=chunk).fit_release(X))
    print(f"n={n} d={d} k1={k1} k2={k2}")
    print(f"products: XR {t_xr:.3f}s + X^T X {t_gram:.3f}s + P'M {t_pm:.3f}s = {t_prod:.3f}s")
    print(f"release (literal Algorithm 1): {t_lit:.3f}s  ratio {t_lit / t_prod:.2f}")
    print(f"release (fast=True, sampler='numpy', same output law): {t_fast:.3f}s  ratio {t_fast / t_prod:.2f}")
    print(f"release (chunked, chunk={chunk}): {t_chunk:.3f}s  ratio {t_chunk / t_prod:.2f}")
    products = lambda: (X @ R, X.T @ X, P @ M)
    print(f"paired median ratios (5 repeats, floor timed next to each release): literal "
          f"{paired_ratio(products, lambda: DPRP(**kw).fit_release(X)):.2f}, fast "
          f"{paired_ratio(products, lambda: DPRP(**kw, fast=True, sampler='numpy').fit_release(X)):.2f}")
    # peak memory of the release itself (input X excluded: it exists before the call)
    m_mem = peak_mb(lambda: DPRP(**kw).fit_release(X))
    def stream():
        chunks = lambda: ((X[i:i + chunk], None) for i in range(0, n, chunk))
        for _ in DPRP(**kw).release_chunks(chunks): pass                                # consume, do not keep
    m_chunk = peak_mb(stream)
    print(f"peak traced memory: in-memory {m_mem:.0f} MB, chunked (streamed output) {m_chunk:.0f} MB, ratio {m_mem / m_chunk:.1f}")

if __name__ == '__main__':
    a = sys.argv[1:]
    main(int(a[0]) if a else 200_000, int(a[1]) if len(a) > 1 else 10_000)
