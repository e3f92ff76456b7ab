"""Release speed against the hardware floor, in memory: every ratio is a release divided by its floor, both timed in the
same process and the same repeat (median over the repeats), so machine load cancels as far as it can.

* `SuffStatGauss.fit` (two exact fixed-point passes: centre, then class sums and the second moment; noise added once)
  against one float64 `X.T @ X`;
* the same with scaling='box' (public centre ½, one exact pass: the pass count of the floor);
* `SuffStatGauss.sample(n)` against its floor: n × d standard normals and one (n × d)(d × d) product, timed both as one
  draw and one product (memory-bound: slower than the sampler itself) and block by block into a preallocated output;
* `exact_moments` alone (quantise + exact products, no pre-processing) against `X.T @ X`;
* DPRP (k1 = 200, k2 = 30, rows already in the unit ball) literal and `fast=True`, against its unavoidable products
  X R, XᵀX and P′M.

BLAS runs on `--threads` threads (default 1: on a shared machine a single-threaded floor is far more stable than a
two-threaded one, and every step here but the products is single-threaded anyway).
Not a test. Usage: python benchmarks/bench_speed.py [--n 200000] [--d 50] [--repeats 5] [--threads 1] [--write] [--skip 'DPRP literal']
(--write merges the rows into data/results/bench_speed.csv).
"""
import argparse, time
from pathlib import Path
import numpy as np
import pandas as pd


def timer(f) -> float:
    t0 = time.perf_counter(); f(); return time.perf_counter() - t0


def table(n: int, d: int):
    "Two Gaussian classes inside the public box [0, 10]^d (the rows of benchmarks/bench_dask.py)."
    g = np.random.default_rng(0)
    y = g.integers(0, 2, n)
    X = np.clip(5.0 + (y[:, None] - 0.5) * np.linspace(-1, 1, d) + 1.5 * g.standard_normal((n, d)), 0, 10)
    return X, y


def blocked_floor(n: int, d: int, V, rows: int = 1 << 13):
    "The sampler's floor done the cache-friendly way: per block of rows, normals and one product into a preallocated output."
    g, out = np.random.default_rng(1), np.empty((n, d))
    for s in range(0, n, rows):
        np.matmul(g.standard_normal((min(rows, n - s), d)), V, out=out[s:s + rows])
    return out


def cases(n: int, d: int) -> dict:
    "name -> (floor callable, release callable)."
    from dpnotes.suffstat import SuffStatGauss
    from dpnotes.moments import exact_moments
    from dpnotes.dprp import DPRP
    X, y = table(n, d)
    kw = dict(epsilon=1.0, delta=1e-8, bounds=(np.zeros(d), np.full(d, 10.0)), classes=[0, 1])
    est = SuffStatGauss(**kw, rng=1).fit(X, y)
    V = est._model()[1][0][1]
    gram = lambda: X.T @ X
    U = X / np.linalg.norm(X, axis=1, keepdims=True)                     # DPRP input: rows already of norm 1
    k1, k2 = 200, 30
    g = np.random.default_rng(0)
    R, M = g.standard_normal((d, k1)) / np.sqrt(k1), g.standard_normal((k1, d))
    P = U @ R
    dkw = dict(epsilon=4.0, delta=1e-4, k1=k1, k2=k2, split=(0.85, 0.15, 0.0), theorem_a='split', rng=1)
    products = lambda: (U @ R, U.T @ U, P @ M)
    return {'SuffStatGauss.fit / XᵀX': (gram, lambda: SuffStatGauss(**kw, rng=1).fit(X, y)),
            "SuffStatGauss.fit, scaling='box' (1 pass) / XᵀX": (gram, lambda: SuffStatGauss(**kw, scaling='box', clip_factor=2.0, rng=1).fit(X, y)),
            'SuffStatGauss.sample(n) / (normals + product)': (lambda: np.random.default_rng(1).standard_normal((n, d)) @ V,
                                                              lambda: est.sample(n)),
            'SuffStatGauss.sample(n) / blocked (normals + product)': (lambda: blocked_floor(n, d, V), lambda: est.sample(n)),
            'exact_moments (pooled, no prep) / XᵀX': (gram, lambda: exact_moments(X, y, 2, bound=10.0)),
            'DPRP literal / (XR + XᵀX + P′M)': (products, lambda: DPRP(**dkw).fit_release(U)),
            'DPRP fast=True / (XR + XᵀX + P′M)': (products, lambda: DPRP(**dkw, fast=True).fit_release(U))}


def main(n=200_000, d=50, repeats=5, threads=1, write=False, skip=()):
    from threadpoolctl import threadpool_limits
    rows = []
    with threadpool_limits(limits=threads, user_api='blas'):
        for name, (floor, release) in cases(n, d).items():
            if any(k in name for k in skip): continue
            release()                                                    # warm imports and caches
            fl, rel = [], []
            for _ in range(repeats):
                fl.append(timer(floor)); rel.append(timer(release))
            ratio = float(np.median(np.array(rel) / np.array(fl)))
            print(f"{name:50s} floor {np.median(fl):.3f}s  release {np.median(rel):.3f}s  ratio {ratio:.2f}", flush=True)
            rows.append(dict(n=n, d=d, threads=threads, case=name, floor_s=np.median(fl), release_s=np.median(rel),
                             ratio=ratio, repeats=repeats))
    if write:
        out = Path(__file__).resolve().parents[1] / 'data' / 'results' / 'bench_speed.csv'
        new = pd.DataFrame(rows)
        if out.exists():
            old = pd.read_csv(out)
            keep = ~old.set_index(['n', 'd', 'threads', 'case']).index.isin(new.set_index(['n', 'd', 'threads', 'case']).index)
            new = pd.concat([old[keep], new], ignore_index=True)
        new.to_csv(out, index=False, float_format='%.4g')
        print(f"wrote {out}")


if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--n', type=float, default=200_000); p.add_argument('--d', type=int, default=50)
    p.add_argument('--repeats', type=int, default=5); p.add_argument('--threads', type=int, default=1)
    p.add_argument('--write', action='store_true')
    p.add_argument('--skip', action='append', default=[], help='skip the cases whose name contains this text (repeatable)')
    a = p.parse_args()
    main(int(a.n), a.d, a.repeats, a.threads, a.write, tuple(a.skip))
