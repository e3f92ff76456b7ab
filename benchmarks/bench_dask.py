"""Benchmark of the sufficient-statistic releases on Dask: SuffStatGauss and DPRP on a Dask DataFrame.

Rows are generated on the fly in partitions (d = 50, two classes, features in the public box [0, 10]^d) and never
materialised on the driver. On a LocalCluster of this machine (2 workers, 1 thread each, a memory limit) it measures,
in one run per size n:
* the unavoidable pass: generating the rows and reducing them to X^T X and the class counts (plain float64, no privacy);
* the release: `fit` (two exact fixed-point passes: counts and centre, then class sums and the second moment; noise
  added once on the driver) and `sample(n)` reduced on the workers to column sums (the rows are drawn where they
  are used and never travel; a real job would `to_parquet` them);
* `fit` with scaling='box' (public centre ½: one exact pass, the floor's own pass count);
* the peak resident memory of each worker during each step (polled every 0.2 s);
* DPRP (k1 = 200, k2 = 30): the X R pass, and `fit_release` (one exact pass for X^T X, then X R + noise and the
  reconstruction on the workers, reduced to column sums);
and, at n = 10^6, the in-memory paths (pandas frame, `fit` + `sample`) in a child process, with its peak RSS.
Prints the ratios release / unavoidable pass; with --write merges them into data/results/bench_dask.csv. Not a test;
measure, don't tune. Usage: nice -n 10 python benchmarks/bench_dask.py [--write] [n ...]      (default: 1000000 10000000; DPRP up to BENCH_DPRP_MAX=1e6 rows)
"""
import os, sys, time, threading, resource, multiprocessing as mp
from pathlib import Path
import numpy as np
import pandas as pd

D = 50
ROWS = 250_000                      # rows per generated partition (~100 MB of float64)
COLS = [f'x{j}' for j in range(D)]
KW = dict(epsilon=1.0, delta=1e-8, bounds=(np.zeros(D), np.full(D, 10.0)), classes=[0, 1])
DPRP_MAX = int(float(os.environ.get('BENCH_DPRP_MAX', '1e6')))   # DPRP only up to this n (its X R pass is k1/d times X^T X)
K1, K2 = 200, 30                    # DPRP: a fixed projection dimension (public) and kept eigenvectors
DPRP_KW = dict(epsilon=1.0, delta=1e-8, k1=K1, k2=K2, preprocess='bounds', bounds=(np.zeros(D), np.full(D, 10.0)),
               classes=[0, 1], split=(0.85, 0.15, 0.0))


def gen_part(spec):
    "One partition of the synthetic table, from its own seed: two Gaussian classes inside the box [0, 10]^d."
    seed, m = spec
    g = np.random.default_rng(seed)
    y = g.integers(0, 2, m)
    X = np.clip(5.0 + (y[:, None] - 0.5) * np.linspace(-1, 1, D) + 1.5 * g.standard_normal((m, D)), 0, 10)
    out = pd.DataFrame(X, columns=COLS)
    out['label'] = y
    return out


def table(n):
    import dask.dataframe as dd
    sizes = [ROWS] * (n // ROWS) + ([n % ROWS] if n % ROWS else [])
    specs = [(1000 + i, m) for i, m in enumerate(sizes)]
    return dd.from_map(gen_part, specs, meta=gen_part((0, 0)), enforce_metadata=False)


def gram_part(part):
    A = part[COLS].to_numpy(dtype=float)
    return A.T @ A, np.bincount(part['label'].to_numpy(), minlength=2)


def xr_part(part, R):
    return (part[COLS].to_numpy(dtype=float) @ R).sum(0)


def unavoidable_xr(ddf, R):
    "X R reduced to its column sums: the pass over the rows that DPRP's release cannot avoid (besides X^T X)."
    import dask
    parts = [dask.delayed(xr_part)(p, R) for p in ddf.to_delayed()]
    return dask.compute(dask.delayed(sum)(parts))[0]


def unavoidable(ddf):
    "X^T X and the class counts in plain float64: one pass over the generated rows."
    import dask
    parts = [dask.delayed(gram_part)(p) for p in ddf.to_delayed()]
    return dask.compute(dask.delayed(lambda ps: (sum(p[0] for p in ps), sum(p[1] for p in ps)))(parts))[0]


class Peak:
    "Polls the resident memory of every worker while a step runs; keeps the maximum per worker (MB)."
    def __init__(self, client): self.client, self.peak, self._stop = client, {}, threading.Event()
    def _poll(self):
        import psutil
        while not self._stop.is_set():
            try:
                for w, rss in self.client.run(lambda: psutil.Process().memory_info().rss).items():
                    self.peak[w] = max(self.peak.get(w, 0), rss / 2**20)
            except Exception: pass
            time.sleep(0.2)
    def __enter__(self):
        self._t = threading.Thread(target=self._poll, daemon=True); self._t.start(); return self
    def __exit__(self, *a): self._stop.set(); self._t.join()


def timed(client, f):
    with Peak(client) as pk:
        t0 = time.perf_counter(); out = f(); t = time.perf_counter() - t0
    return t, max(pk.peak.values()) if pk.peak else float('nan'), out


def in_memory_dprp(n, q):
    "Child process: DPRP in memory on the same rows; reports (seconds of X^T X + X R, seconds of fit_release, peak RSS MB)."
    from dpnotes.dprp import DPRP
    sizes = [ROWS] * (n // ROWS) + ([n % ROWS] if n % ROWS else [])
    F = pd.concat([gen_part((1000 + i, m)) for i, m in enumerate(sizes)], ignore_index=True)
    R = np.random.default_rng(0).standard_normal((D, K1))
    t0 = time.perf_counter(); A = F[COLS].to_numpy(dtype=float); A.T @ A; A @ R; t_plain = time.perf_counter() - t0; del A
    t0 = time.perf_counter(); DPRP(**DPRP_KW, rng=1).fit_release(F[COLS], F['label']); t_rel = time.perf_counter() - t0
    q.put((t_plain, t_rel, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def in_memory(n, q):
    "Child process: the same rows as one pandas frame, fit + sample in memory; reports (seconds, peak RSS MB)."
    from dpnotes.suffstat import SuffStatGauss
    sizes = [ROWS] * (n // ROWS) + ([n % ROWS] if n % ROWS else [])
    F = pd.concat([gen_part((1000 + i, m)) for i, m in enumerate(sizes)], ignore_index=True)
    t0 = time.perf_counter()
    A = F[COLS].to_numpy(dtype=float); A.T @ A; np.bincount(F['label'].to_numpy(), minlength=2)
    t_plain = time.perf_counter() - t0; del A
    t0 = time.perf_counter()
    est = SuffStatGauss(**KW, rng=1).fit(F[COLS], F['label'])
    t_fit = time.perf_counter() - t0
    Xs, ys = est.sample(n); Xs.sum()
    t_all = time.perf_counter() - t0
    q.put((t_plain, t_fit, t_all, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


WRITE = False   # set by --write


def save(rows):
    "Merge this run's rows into data/results/bench_dask.csv (rows of the same n and step are replaced); only with --write."
    if not WRITE: return
    out = Path(__file__).resolve().parents[1] / 'data' / 'results' / 'bench_dask.csv'
    new = pd.DataFrame(rows)
    if out.exists():
        old = pd.read_csv(out)
        keep = ~old.set_index(['n', 'path', 'step']).index.isin(new.set_index(['n', 'path', 'step']).index)
        new = pd.concat([old[keep], new], ignore_index=True)
    new.sort_values(['n', 'path']).to_csv(out, index=False, float_format='%.4g')
    print(f"wrote {out}", flush=True)


def main(sizes):
    from dask.distributed import Client, LocalCluster
    from dpnotes.suffstat import SuffStatGauss
    _SuffStatBox = type('_SuffStatBox', (SuffStatGauss,), {'_scaling': 'box'})   # D2's 'box' branch: the benchmark's own override
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit='4GiB', processes=True, dashboard_address=None) as cl, \
         Client(cl) as client:
        client.run(lambda: __import__('dpnotes.suffstat'))                    # warm the imports on the workers
        unavoidable(table(2 * ROWS))                                           # and the workers' first tasks
        for n in sizes:
            ddf = table(n)
            t_un, m_un, _ = timed(client, lambda: unavoidable(ddf))
            t_fit, m_fit, est = timed(client, lambda: SuffStatGauss(**KW, rng=1).fit(ddf[COLS], ddf['label']))
            t_smp, m_smp, _ = timed(client, lambda: est.sample(n)[0].sum().compute())
            t_box, m_box, _ = timed(client, lambda: _SuffStatBox(**KW, clip_factor=2.0, rng=1).fit(ddf[COLS], ddf['label']))
            P = ddf.npartitions
            print(f"   fit with scaling='box' (public centre, one exact pass): {t_box:.1f}s (ratio {t_box / t_un:.2f}); "
                  f"peak worker RSS {m_box:.0f} MB", flush=True)
            print(f"n={n:.0e} d={D} partitions={P}: unavoidable pass (X^T X, counts) {t_un:.1f}s; "
                  f"fit {t_fit:.1f}s (ratio {t_fit / t_un:.2f}); sample {t_smp:.1f}s; "
                  f"release total ratio {(t_fit + t_smp) / t_un:.2f}; peak worker RSS {max(m_un, m_fit, m_smp):.0f} MB", flush=True)
            rows += [dict(n=n, d=D, path='dask', partitions=P, step='unavoidable pass (X^T X, counts)', seconds=t_un,
                          peak_mb=m_un, ratio_to_pass=1.0),
                     dict(n=n, d=D, path='dask', partitions=P, step='fit (2 exact passes + noise)', seconds=t_fit,
                          peak_mb=m_fit, ratio_to_pass=t_fit / t_un),
                     dict(n=n, d=D, path='dask', partitions=P, step="fit, scaling='box' (1 exact pass + noise)", seconds=t_box,
                          peak_mb=m_box, ratio_to_pass=t_box / t_un),
                     dict(n=n, d=D, path='dask', partitions=P, step='sample n rows (on the workers)', seconds=t_smp,
                          peak_mb=m_smp, ratio_to_pass=t_smp / t_un),
                     dict(n=n, d=D, path='dask', partitions=P, step='release (fit + sample)', seconds=t_fit + t_smp,
                          peak_mb=max(m_fit, m_smp), ratio_to_pass=(t_fit + t_smp) / t_un)]
            save(rows)
            if n > DPRP_MAX: continue
            # DPRP: one exact pass for X^T X (plan on the driver), then X R + noise and the reconstruction on the workers
            from dpnotes.dprp import DPRP
            R = np.random.default_rng(0).standard_normal((D, K1))
            t_xr, m_xr, _ = timed(client, lambda: unavoidable_xr(ddf, R))
            t_dp, m_dp, _ = timed(client, lambda: DPRP(**DPRP_KW, rng=1).fit_release(ddf[COLS], ddf['label'])[0].sum().compute())
            print(f"   DPRP (k1={K1}, k2={K2}): X R pass {t_xr:.1f}s; release {t_dp:.1f}s "
                  f"(ratio to X^T X + X R passes {t_dp / (t_un + t_xr):.2f}); peak worker RSS {max(m_xr, m_dp):.0f} MB")
            rows += [dict(n=n, d=D, path='dask', partitions=P, step='DPRP: unavoidable X R pass', seconds=t_xr, peak_mb=m_xr,
                          ratio_to_pass=1.0),
                     dict(n=n, d=D, path='dask', partitions=P, step='DPRP release (fit_release, rows reduced on the workers)',
                          seconds=t_dp, peak_mb=m_dp, ratio_to_pass=t_dp / (t_un + t_xr))]
            if n <= 1_000_000:
                q = mp.get_context('spawn').Queue()
                p = mp.get_context('spawn').Process(target=in_memory_dprp, args=(n, q)); p.start()
                t_p2, t_r2, rss2 = q.get(); p.join()
                print(f"   DPRP in memory: X^T X + X R {t_p2:.2f}s; fit_release {t_r2:.1f}s (ratio {t_r2 / t_p2:.1f}); "
                      f"peak RSS {rss2:.0f} MB")
                rows += [dict(n=n, d=D, path='in memory', partitions=1, step='DPRP: unavoidable X^T X + X R', seconds=t_p2,
                              peak_mb=rss2, ratio_to_pass=1.0),
                         dict(n=n, d=D, path='in memory', partitions=1, step='DPRP release (fit_release)', seconds=t_r2,
                              peak_mb=rss2, ratio_to_pass=t_r2 / t_p2)]
                q = mp.get_context('spawn').Queue()
                p = mp.get_context('spawn').Process(target=in_memory, args=(n, q)); p.start()
                t_p, t_f, t_a, rss = q.get(); p.join()
                print(f"   in memory (pandas, one process): plain X^T X + counts {t_p:.2f}s; fit {t_f:.1f}s "
                      f"(ratio {t_f / t_p:.1f}); fit + sample {t_a:.1f}s (ratio {t_a / t_p:.1f}); peak RSS {rss:.0f} MB "
                      f"(ratios here are to the in-memory pass, rows already in memory)")
                rows += [dict(n=n, d=D, path='in memory', partitions=1, step='unavoidable pass (X^T X, counts)', seconds=t_p,
                              peak_mb=rss, ratio_to_pass=1.0),dict(n=n, d=D, path='in memory', partitions=1, step='fit', seconds=t_f, peak_mb=rss,
                              ratio_to_pass=t_f / t_p),
                         dict(n=n, d=D, path='in memory', partitions=1, step='release (fit + sample)', seconds=t_a,
                              peak_mb=rss, ratio_to_pass=t_a / t_p)]
            save(rows)


if __name__ == '__main__':
    args = sys.argv[1:]
    WRITE = '--write' in args
    main([int(float(a)) for a in args if a != '--write'] or [1_000_000, 10_000_000])
