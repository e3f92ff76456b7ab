"""Release speed against the hardware floor, in memory, at d = 10, 50 and 200: every ratio is a release divided by its
floor, the two timed back to back in the same round (paired), the cases interleaved round by round, and the ratio the
median of the per-round ratios, so that the load of a shared machine cancels as far as it can.

Ratios and their targets (issue #40):

* `exact_moments(X, y, 2, bound=10)` (quantise + exact pooled second moment + class sums) / one float64 `X.T @ X`:
  target <= 1.35;
* `SuffStatGauss.fit` (default: the centre pass, then class sums and the second moment; noise added once) / `X.T @ X`:
  target <= 1.5 with the compiled (numba) pass, <= 2.0 with the NumPy fallback;
* `SuffStatGauss.sample(n)` / its floor (per block of rows, standard normals and one (m x d)(d x d) product into a
  preallocated output): target <= 1.5.

BLAS runs on one thread (threadpoolctl): a single-threaded floor is far more stable on a shared machine, and every step
here but the products is single-threaded anyway. The rows per d are chosen so that X has the same size (--cells
entries) at every d. Not a test: the default suite times nothing. Usage:
python benchmarks/bench_speed.py [--cells 2e7 | --n ROWS] [--dims 10 50 200] [--rounds 7] [--threads 1] [--skip TEXT]
[--write]   (--write merges the rows into data/results/bench_speed.csv; --d and --repeats are the old names of
--dims and --rounds)
"""
import argparse, time
import numpy as np

TARGETS = {'exact_moments': 1.35, 'fit (numba)': 1.5, 'fit (NumPy)': 2.0, 'sample': 1.5}


def timer(f) -> float:
    t0 = time.perf_counter(); f(); return time.perf_counter() - t0


def table(n: int, d: int):
    "Two Gaussian classes inside the public box [0, 10]^d (the rows of benchmarks/bench_dask.py)."
    g = np.random.default_rng(0)
    y = g.integers(0, 2, n)
    X = np.clip(5.0 + (y[:, None] - 0.5) * np.linspace(-1, 1, d) + 1.5 * g.standard_normal((n, d)), 0, 10)
    return X, y


def blocked_floor(n: int, d: int, V, rows: int = 1 << 13):
    "The sampler's floor: per block of rows, standard normals and one product into a preallocated output."
    g, out = np.random.default_rng(1), np.empty((n, d))
    for s in range(0, n, rows):
        np.matmul(g.standard_normal((min(rows, n - s), d)), V, out=out[s:s + rows])
    return out


def backend(name):
    "A callable running f under the statistics backend `name` ('numba' or 'numpy'); None if this code has no switch."
    from dpnotes import moments
    if not hasattr(moments, 'use_backend'): return None
    if name == 'numba' and not moments.have_numba(): return None
    return lambda f: (lambda: _under(moments, name, f))


def _under(moments, name, f):
    with moments.use_backend(name): return f()


def cases(n: int, d: int) -> dict:
    "name -> (target key, floor callable, release callable)."
    from dpnotes.suffstat import SuffStatGauss
    from dpnotes.moments import exact_moments
    X, y = table(n, d)
    kw = dict(epsilon=1.0, delta=1e-8, bounds=(np.zeros(d), np.full(d, 10.0)), classes=[0, 1])
    est = SuffStatGauss(**kw, rng=1).fit(X, y)
    V = est._model()[1][0][1]
    gram = lambda: X.T @ X
    fit = lambda: SuffStatGauss(**kw, rng=1).fit(X, y)
    out = {'exact_moments / XᵀX': ('exact_moments', gram, lambda: exact_moments(X, y, 2, bound=10.0))}
    nb, npy = backend('numba'), backend('numpy')
    if nb is None and npy is None: out['SuffStatGauss.fit / XᵀX'] = ('fit (NumPy)', gram, fit)
    if nb is not None: out['SuffStatGauss.fit (numba) / XᵀX'] = ('fit (numba)', gram, nb(fit))
    if npy is not None: out['SuffStatGauss.fit (NumPy) / XᵀX'] = ('fit (NumPy)', gram, npy(fit))
    out['SuffStatGauss.sample(n) / (normals + product)'] = ('sample', lambda: blocked_floor(n, d, V), lambda: est.sample(n))
    return out


def main(cells=20_000_000, dims=(10, 50, 200), rounds=7, threads=1, skip=(), n=None, write=False):
    import dpnotes.suffstat, dpnotes.moments, scipy.linalg.blas  # noqa: F401  (every BLAS loaded before the limit is set)
    from threadpoolctl import threadpool_limits
    print(f"targets: {TARGETS}")
    rows = []
    with threadpool_limits(limits=threads, user_api='blas'):
        for d in dims:
            nd = n or cells // d
            cs = {k: v for k, v in cases(nd, d).items() if not any(s in k for s in skip)}
            for _, floor, release in cs.values(): floor(); release()          # warm imports, caches, compilation
            ratios = {k: [] for k in cs}; times = {k: ([], []) for k in cs}
            for i in range(rounds):                                           # interleaved, paired rounds
                for name, (_, floor, release) in cs.items():
                    pair = (floor, release) if i % 2 == 0 else (release, floor)
                    t = [timer(p) for p in pair]
                    fl, rel = (t[0], t[1]) if i % 2 == 0 else (t[1], t[0])
                    ratios[name].append(rel / fl); times[name][0].append(fl); times[name][1].append(rel)
            for name, (key, _, _) in cs.items():
                r = float(np.median(ratios[name])); ok = 'ok' if r <= TARGETS[key] else 'MISSED'
                fl, rel = np.median(times[name][0]), np.median(times[name][1])
                print(f"d={d:<4d} n={nd:<8d} {name:48s} floor {fl:.4f}s  release {rel:.4f}s  ratio {r:.2f}  "
                      f"(target {TARGETS[key]}: {ok})", flush=True)
                rows.append(dict(n=nd, d=d, threads=threads, case=name, floor_s=fl, release_s=rel, ratio=r,
                                 repeats=rounds))
    if write: _write(rows)


def _write(rows):
    "Merge the rows into data/results/bench_speed.csv (a row replaces the stored one with the same n, d, threads, case)."
    import pandas as pd
    from pathlib import Path
    out = Path(__file__).resolve().parents[1] / 'data' / 'results' / 'bench_speed.csv'
    new = pd.DataFrame(rows)
    if out.exists():
        old = pd.read_csv(out)
        key = ['n', 'd', 'threads', 'case']
        new = pd.concat([old[~old.set_index(key).index.isin(new.set_index(key).index)], new], ignore_index=True)
    new.to_csv(out, index=False, float_format='%.4g')
    print(f"wrote {out}")


if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--cells', type=float, default=2e7, help='entries of X at every d (rows = cells / d)')
    p.add_argument('--n', type=float, default=None, help='rows at every d instead (overrides --cells)')
    p.add_argument('--dims', '--d', type=int, nargs='+', default=[10, 50, 200])
    p.add_argument('--rounds', '--repeats', type=int, default=7); p.add_argument('--threads', type=int, default=1)
    p.add_argument('--write', action='store_true', help='merge the rows into data/results/bench_speed.csv')
    p.add_argument('--skip', action='append', default=[], help='skip the cases whose name contains this text (repeatable)')
    a = p.parse_args()
    main(int(a.cells), tuple(a.dims), a.rounds, a.threads, tuple(a.skip), None if a.n is None else int(a.n), a.write)
