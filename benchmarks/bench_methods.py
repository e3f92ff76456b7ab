"""Benchmark every dpnotes release and the peers against the majority rate and the non-private model, same splits and seeds.

    python benchmarks/bench_methods.py --quick          # WDBC, eps in {1, 8}, 2 splits, fast methods (~1 min)
    python benchmarks/bench_methods.py                  # the full run (6 data sets, eps 0.5..8, 10 splits; long)
    python benchmarks/bench_methods.py --peers /work/peers --peer-methods MST AIM --datasets wdbc --epsilons 1 \
        --repeats 5 --methods --runs-out /tmp/p.csv     # peers, each in its own venv (benchmarks/peers/README.md)
    python benchmarks/bench_methods.py --datasets wdbc spambase --runs-out /tmp/a.csv   # part of a run
    python benchmarks/bench_methods.py --merge /tmp/a.csv /tmp/b.csv                     # summarise parts

The committed data/results/bench_methods*.csv were made with the parts listed in nbs/80_benchmark.ipynb ("Running, and how the
committed run was made"), run in parallel with --runs-out and then summarised with --merge.

Writes data/results/bench_methods_runs.csv (one row per split), data/results/bench_methods.csv (means, gap closed)
and data/results/bench_methods.png, and prints the accuracy table at eps = 1, the gap closed and time ratios.
"""
import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dpnotes.bench import (METHODS, PEER_METHODS, FIDELITY, find_peers, lever_table, plot_benchmark, run_benchmark,  # noqa: E402
                           summarise)

RESULTS = ROOT / 'data' / 'results'
DATASETS = ['wdbc', 'indian_liver', 'dermatology', 'cervical_cancer', 'spambase', 'adult', 'clinic_demo']
OURS = ('SuffStatGauss', 'SuffStatGauss (pow10 bounds)')
PAPER = ('RON-Gauss', 'PCA-Gauss', 'DPRP', 'DP-SYN')


def _pairs(items, cast):
    "['MST=1,8', 'AIM=1'] -> {'MST': [1.0, 8.0], 'AIM': [1.0]}"
    out = {}
    for it in items or []:
        k, v = it.rsplit('=', 1)
        out[k] = [cast(x) for x in v.split(',')] if ',' in v or cast is float else cast(v)
    return out


def report(summary: pd.DataFrame) -> None:
    pd.set_option('display.width', 200)
    at1 = summary[summary.epsilon == 1]
    print('\nTSTR accuracy at eps = 1 (RF; DP-LR: its own predictions)')
    print(at1.pivot_table(index='method', columns='dataset', values='accuracy').round(3).to_string())
    ref = at1.groupby('dataset')[['majority', 'non_private']].mean().round(3)
    print('\nreferences (same splits)\n' + ref.T.to_string())
    print('\nshare of the majority -> non-private gap closed at eps = 1')
    print(at1.pivot_table(index='method', columns='dataset', values='gap_closed').round(2).to_string())
    best = at1[at1.method.isin(OURS[:1])].set_index('dataset').accuracy
    others = at1[~at1.method.isin(OURS)].groupby('dataset').accuracy.max()
    print('\nratio SuffStatGauss / best other dpnotes method at eps = 1:')
    print((best / others).round(3).to_string())
    peers = at1[at1.method.isin(list(PEER_METHODS))]
    if len(peers):
        ours = at1[~at1.method.isin(list(PEER_METHODS))].groupby('dataset').accuracy.max()
        bp = peers.groupby('dataset').accuracy.max()
        print('\nbest dpnotes method / best peer at eps = 1 (accuracy ratio; > 1: dpnotes ahead):')
        print(pd.DataFrame({'best dpnotes': ours, 'best peer': bp, 'ratio': (ours / bp)}).dropna().round(3).to_string())
    secs = summary.groupby('method').seconds.mean()
    print('\nmean seconds per release + evaluation, and ratio to SuffStatGauss:')
    print(pd.DataFrame({'seconds': secs.round(2), 'ratio': (secs / secs.get('SuffStatGauss', np.nan)).round(1)}).to_string())


def fidelity_report(runs: pd.DataFrame, out: Path | None = None) -> pd.DataFrame:
    "Mean TSTR accuracy and table fidelity at eps = 1 per (data set, method), the copula levers by the rule, and a CSV."
    r = runs[runs.epsilon == 1] if 'fid_tvd_1way' in runs.columns else runs.iloc[:0]
    if r.empty: return r
    cols = [c for c in FIDELITY if c in r.columns]
    t = r.groupby(['dataset', 'method'])[cols].agg(['mean', 'count']).round(4)
    t.columns = [f'{a}_{b}' if b != 'mean' else a for a, b in t.columns]
    t = t.reset_index()
    print('\ntable fidelity at eps = 1 (real training rows vs release; 20 bins, 10 x 10 for pairs)')
    print(t.pivot_table(index='method', columns='dataset', values='fid_tvd_1way').round(3).to_string())
    print(t.pivot_table(index='method', columns='dataset', values='fid_tvd_2way').round(3).to_string())
    lt = lever_table(runs)
    if len(lt): print('\ncopula levers (2-way TVD, paired on common splits):\n' + lt.round(4).to_string())
    if out is not None:
        t.to_csv(out, index=False)
        if len(lt): lt.to_csv(out.with_name(out.stem + '_levers.csv'), index=False)
    return t


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # the stored runs (data/results/bench_methods_runs.csv) drew their noise with NumPy's floating-point sampler; the
    # benchmark measures utility, which does not depend on the sampler's low bits: 'safe' draws as releases do
    p.add_argument('--sampler', default='numpy', choices=['numpy', 'safe'], help="noise sampler ('numpy': as the stored runs)")
    p.add_argument('--quick', action='store_true', help='small run: WDBC, eps 1 and 8, 2 splits, fast methods')
    p.add_argument('--datasets', nargs='+', default=DATASETS)
    p.add_argument('--epsilons', nargs='+', type=float, default=[0.5, 1, 2, 4, 8])
    p.add_argument('--repeats', type=int, default=10)
    p.add_argument('--methods', nargs='*', default=list(METHODS))
    p.add_argument('--max-n', type=int, default=None, help='public random subsample of larger tables (default: full tables)')
    p.add_argument('--peers', default=None, help='folder holding the peer venvs (default $DPNOTES_PEERS; none: no peers)')
    p.add_argument('--peer-methods', nargs='*', default=list(PEER_METHODS), help='peers to run when their venv exists')
    p.add_argument('--peer-timeout', type=float, default=900.0, help='seconds per peer fit before it is recorded as timed out')
    p.add_argument('--only-eps', nargs='*', default=['RON-Gauss=1,8', 'PCA-Gauss=1,8', 'DPRP=1,8', 'DP-SYN=1,8'],
                   help='METHOD=e1,e2: run METHOD only at these eps (default: the paper methods at 1 and 8)')
    p.add_argument('--limit', nargs='*', default=[], help='METHOD=k: run METHOD on the first k splits only')
    p.add_argument('--trees', nargs='*', default=['adult=50'], help='DATASET=k: trees of the random-forest scorer (default 100)')
    p.add_argument('--dpsyn-repeats', type=int, default=3, help='DP-SYN (slow) runs on the first splits only')
    p.add_argument('--dpsyn-skip', nargs='*', default=['spambase', 'adult'], help='data sets where DP-SYN is not run')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--first', type=int, default=0, help='start at this split (continue a stopped run; splits depend only on the seed)')
    p.add_argument('--runs-out', type=Path, default=None, help='write the per-split rows here and stop (no summary files)')
    p.add_argument('--merge', nargs='+', type=Path, default=None, help='summarise per-split files written by --runs-out')
    p.add_argument('--fill-from', nargs='*', type=Path, default=[],
                   help='earlier per-split files: their rows fill (data set, table size, split, method, eps) keys the merged parts lack')
    p.add_argument('--out', type=Path, default=RESULTS / 'bench_methods.csv')
    p.add_argument('--fidelity-only', action='store_true', help='with --merge: only print and write the fidelity tables (bench_fidelity.csv)')
    a = p.parse_args(argv)
    if a.merge:
        key = ['dataset', 'n', 'repeat', 'method', 'epsilon']
        runs = pd.concat([pd.read_csv(f) for f in a.merge], ignore_index=True).drop_duplicates(key, keep='last')
        for f in a.fill_from:     # same harness, same seeds: the same splits; only keys missing from the new parts are taken
            old = pd.read_csv(f)
            old = old[old.set_index(['dataset', 'n']).index.isin(runs.set_index(['dataset', 'n']).index.unique())]
            new_keys = set(map(tuple, runs[key].astype(str).to_numpy()))
            take = old[[tuple(r) not in new_keys for r in old[key].astype(str).to_numpy()]]
            print(f'{f}: {len(take)} rows fill keys the new parts lack ({", ".join(sorted(take.method.unique()))})')
            runs = pd.concat([runs, take], ignore_index=True)
    else:
        if a.quick:
            a.datasets, a.epsilons, a.repeats = ['wdbc'], [1, 8], 2
            a.methods = ['SuffStatGauss', 'RON-Gauss', 'PCA-Gauss', 'DPRP', 'DP-LR']; a.peer_methods = []
        peers = {m: py for m, py in find_peers(a.peers).items() if m in a.peer_methods}
        for m in a.peer_methods:
            if m not in peers: print(f'skipping peer {m}: no venv under {a.peers or "$DPNOTES_PEERS"} (benchmarks/peers/README.md)')
        limit = {'DP-SYN': a.dpsyn_repeats, **_pairs(a.limit, int)}
        runs = run_benchmark(a.datasets, epsilons=a.epsilons, repeats=a.repeats, methods=a.methods, max_n=a.max_n,
                             seed=a.seed, skip={'DP-SYN': a.dpsyn_skip}, limit=limit, only_eps=_pairs(a.only_eps, float),
                             peers=peers, peer_timeout=a.peer_timeout, trees=_pairs(a.trees, int),
                             checkpoint=a.runs_out, first=a.first, sampler=a.sampler)
        if a.runs_out is not None:
            runs.to_csv(a.runs_out, index=False); print(f'wrote {a.runs_out}'); return
    if a.fidelity_only:
        fidelity_report(runs, a.out.with_name('bench_fidelity.csv')); return
    summary = summarise(runs)
    bad = runs.error.astype(str).replace('nan', '') != '' if 'error' in runs.columns else pd.Series(False, index=runs.index)
    if bad.any():
        print('failures and timeouts:\n', runs[bad][['dataset', 'method', 'epsilon', 'error']].drop_duplicates(['dataset', 'method']).to_string())
    a.out.parent.mkdir(parents=True, exist_ok=True)
    runs.to_csv(a.out.with_name(a.out.stem + '_runs.csv'), index=False)
    summary.to_csv(a.out, index=False)
    plot_benchmark(summary, a.out.with_suffix('.png'))
    report(summary)
    fidelity_report(runs, a.out.with_name('bench_fidelity.csv'))
    print(f'\nwrote {a.out}, {a.out.with_name(a.out.stem + "_runs.csv")} and {a.out.with_suffix(".png")}')


if __name__ == '__main__':
    main()
