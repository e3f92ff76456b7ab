"""Table fidelity of the peer synthesisers (MST, AIM from smartnoise-synth) on the splits of data/results/bench_fidelity*.csv.

    python benchmarks/bench_peers.py --peers /work/peers --methods MST --repeats 3      # resumable: rerun to continue
    python benchmarks/bench_peers.py --floor --runs-out /tmp/floor.csv                  # binning only, no noise (no peer)
    python benchmarks/bench_peers.py --methods AIM --runs-out /tmp/aim.csv               # a second part, in parallel
    python benchmarks/bench_peers.py --summary-only --merge /tmp/aim.csv                # add it; rewrite the summary

Same harness as benchmarks/bench_methods.py: the split of (data set, split k) comes from `SeedSequence([seed, crc32(name),
k])` exactly as in `dpnotes.bench.run_benchmark`, the peer's seed from the split and its name as in `_peer_rows`, the same
public bounds, scorer (`tstr`, random forest; adult: 50 trees) and fidelity metrics (`table_fidelity` against the real
training rows on `bench_schema`), and the public column kinds (`copula_kinds`: only integer columns get one bin per
integer). Each fit is decoded twice (`PEER_DECODE`): a uniform draw inside the released bin
(seeded; the default) and the bin centre (the earlier decoding), one row each (column `decode`).

Writes data/results/bench_peers_fidelity_runs.csv (one row per split, method and decoding; rewritten after every fit, and
fits already in it are skipped) and data/results/bench_peers_fidelity.csv (means per data set, method and decoding).
A fit over the per-fit CPU timeout is recorded as timed out, and that method is not tried on the data set's later splits.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dpnotes import bench  # noqa: E402
from dpnotes.bench import PEER_DECODE, bench_schema, copula_kinds, find_peers, run_peer  # noqa: E402

RESULTS = ROOT / 'data' / 'results'
DATASETS = ['indian_liver', 'dermatology', 'cervical_cancer', 'clinic_demo', 'wdbc', 'spambase', 'adult']   # smallest first
METRICS = ['accuracy', 'fid_tvd_1way', 'fid_tvd_2way', 'fid_corr_diff', 'fid_missing_error', 'fid_on_bound']
KEY = ['dataset', 'repeat', 'method']


def split_of(name: str, rep: int, seed: int = 0):
    "(X, y, bounds, classes) of the table and the train/test split `rep`, exactly as `run_benchmark` makes them."
    X, y, bounds, classes = bench._bench_table(name, None, seed)
    Xa, Xb, ya, yb = bench._split(X, y, name, rep, seed)
    return X, (Xa, Xb, ya, yb), bounds, classes


def fit_rows(name: str, rep: int, meth: str, python: str, timeout: float, seed: int = 0, trees=None) -> list:
    "The rows (one per decoding) of peer `meth` on split `rep` of `name` at ε = 1."
    from sklearn.ensemble import RandomForestClassifier
    X, (Xa, Xb, ya, yb), bounds, classes = split_of(name, rep, seed)
    bench._SCORER['model'] = RandomForestClassifier(n_estimators=trees, n_jobs=1) if trees else 'rf'
    bench._CTX.update(real=(Xa, ya), schema=bench_schema(Xa.columns, bounds, classes))
    pseed = bench._peer_seed(seed, rep, meth)                                                 # as `_peer_rows`
    base = dict(dataset=name, n=len(X), d=X.shape[1], repeat=rep, method=meth,
                majority=float((yb == ya.value_counts().idxmax()).mean()))
    try:
        rows = run_peer(meth, python, [1.0], Xa, ya, Xb, yb, bounds, classes, seed=pseed, timeout=timeout, decode=PEER_DECODE,
                        kinds=copula_kinds(name, Xa.columns))   # as `_peer_rows`: public kinds, continuous columns never rounded
    finally:
        bench._SCORER['model'] = 'rf'; bench._CTX.clear()
    return [dict(base, **r) for r in rows]


FLOOR = 'binning only (no noise)'


def floor_rows(name: str, rep: int, seed: int = 0, trees=None) -> list:
    """The real training rows of split `rep` coded into the peers' bins and decoded back, with no noise: the best a
    synthesiser on these bins can score on the metric grid (rows with method `FLOOR`, one per decoding)."""
    from sklearn.ensemble import RandomForestClassifier
    X, (Xa, Xb, ya, yb), bounds, classes = split_of(name, rep, seed)
    kinds = copula_kinds(name, Xa.columns)
    integer = np.array([kinds[c] == 'integer' for c in Xa.columns])
    bench._SCORER['model'] = RandomForestClassifier(n_estimators=trees, n_jobs=1) if trees else 'rf'
    bench._CTX.update(real=(Xa, ya), schema=bench_schema(Xa.columns, bounds, classes))
    codes = bench.discretise(Xa, bounds, integer=integer)
    rows = []
    try:
        for k in PEER_DECODE:
            Xs = bench.undiscretise(codes, bounds, rng=np.random.default_rng([seed, rep, 2]) if k == 'uniform' else None,
                                    integer=integer)
            Xs.columns = Xa.columns
            r = bench._tstr_of(Xs, ya.reset_index(drop=True), Xb, yb, np.random.default_rng([seed, rep, 1]))
            rows.append(dict(dataset=name, n=len(X), d=X.shape[1], repeat=rep, method=FLOOR, decode=k, epsilon=1.0, error='', **r))
    finally:
        bench._SCORER['model'] = 'rf'; bench._CTX.clear()
    return rows


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    "Mean metrics per (data set, method, decoding) over the splits with a result; splits tried, timed out, failed; fit seconds."
    r = runs.copy()
    r['error'] = r.error.fillna('').astype(str)
    r['timed_out'] = r.error.str.contains('timed out')
    r['failed'] = (r.error != '') & ~r.timed_out
    g = r.groupby(['dataset', 'method', 'decode'])
    out = g[[c for c in METRICS if c in r]].mean()
    out['splits'] = g.accuracy.count()
    out['tried'] = g.size()
    out['timed_out'] = g.timed_out.sum()
    out['failed'] = g.failed.sum()
    for c in ('fit_seconds', 'fit_cpu_seconds'):
        out[c] = g[c].mean() if c in r else np.nan
    return out.reset_index().round(4)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--peers', default=os.environ.get('DPNOTES_PEERS', '/work/peers'), help='folder of the peer venvs')
    p.add_argument('--datasets', nargs='+', default=DATASETS)
    p.add_argument('--methods', nargs='+', default=['MST', 'AIM'])
    p.add_argument('--repeats', type=int, default=3, help='splits 0..repeats-1 (those of bench_fidelity_runs.csv)')
    p.add_argument('--timeout', type=float, default=900.0, help='CPU seconds per fit before it is recorded as timed out')
    p.add_argument('--trees', nargs='*', default=['adult=50'], help='DATASET=k: trees of the scorer (as bench_methods.py)')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--runs-out', type=Path, default=RESULTS / 'bench_peers_fidelity_runs.csv')
    p.add_argument('--out', type=Path, default=RESULTS / 'bench_peers_fidelity.csv')
    p.add_argument('--breadth', action='store_true', help='split 0 on every data set first, then split 1, ... (default: table by table)')
    p.add_argument('--floor', action='store_true', help=f'add the {FLOOR!r} rows (no peer needed; cheap)')
    p.add_argument('--summary-only', action='store_true')
    p.add_argument('--merge', nargs='*', type=Path, default=[],
                   help='runs files of other parts (e.g. a second method run with its own --runs-out) to add to --runs-out')
    a = p.parse_args(argv)
    runs = pd.read_csv(a.runs_out) if a.runs_out.exists() else pd.DataFrame(columns=KEY + ['error'])
    if a.merge:
        runs = pd.concat([runs] + [pd.read_csv(f) for f in a.merge], ignore_index=True)
        runs = runs.drop_duplicates(KEY + ['decode'], keep='last').sort_values(KEY + ['decode'], kind='stable')
        runs.to_csv(a.runs_out, index=False)
    if a.floor:
        trees = {k: int(v) for k, v in (t.split('=') for t in a.trees)}
        runs = runs[runs.method != FLOOR]
        new = [r for n in a.datasets for k in range(a.repeats) for r in floor_rows(n, k, a.seed, trees.get(n))]
        runs = pd.concat([runs, pd.DataFrame(new)], ignore_index=True)
        runs.to_csv(a.runs_out, index=False)
    elif not a.summary_only:
        peers = find_peers(a.peers)
        trees = {k: int(v) for k, v in (t.split('=') for t in a.trees)}
        for m in a.methods:
            if m not in peers: print(f'skipping {m}: no venv under {a.peers}')
        jobs = [(n, m, k) for n in a.datasets for m in a.methods if m in peers for k in range(a.repeats)]
        if a.breadth: jobs.sort(key=lambda j: j[2])                     # split 0 of every table first, then split 1, ...
        for name, meth, rep in jobs:
            mine = runs[(runs.dataset == name) & (runs.method == meth)]
            if mine.error.astype(str).str.contains('timed out').any():
                print(f'{name} {meth}: timed out on an earlier split; not tried again'); continue
            if (mine.repeat == rep).any(): continue
            t0 = time.perf_counter()
            rows = fit_rows(name, rep, meth, peers[meth], a.timeout, a.seed, trees.get(name))
            runs = pd.concat([runs, pd.DataFrame(rows)], ignore_index=True) if len(runs) else pd.DataFrame(rows)
            runs.to_csv(a.runs_out, index=False)
            r = rows[0]
            print(f'{name} split {rep} {meth}: {time.perf_counter() - t0:.0f} s; ' + '; '.join(
                f"{x.get('decode')}: acc {x['accuracy']:.3f} 1-way {x.get('fid_tvd_1way', np.nan):.3f} "
                f"2-way {x.get('fid_tvd_2way', np.nan):.3f}" for x in rows) + (f" ERROR {r['error'][:200]}" if r['error'] else ''),
                flush=True)
    s = summary(runs)
    s.to_csv(a.out, index=False)
    print(s.to_string())
    print(f'wrote {a.out} ({len(runs)} rows in {a.runs_out})')


if __name__ == '__main__':
    main()
