"""Benchmark every dpnotes release against the majority rate and the non-private model on the same splits and seeds.

    python benchmarks/bench_methods.py --quick          # WDBC, eps in {1, 8}, 2 splits, fast methods (~1 min)
    python benchmarks/bench_methods.py                  # the full run (6 data sets, eps 0.5..8, 10 splits; long)
    python benchmarks/bench_methods.py --datasets wdbc spambase --runs-out /tmp/a.csv   # part of a run
    python benchmarks/bench_methods.py --merge /tmp/a.csv /tmp/b.csv                     # summarise parts

The committed data/results/bench_methods*.csv were made with the parts below (run in parallel, then --merge), a reduced
version of the full run forced by machine time (see nbs/80_benchmark.ipynb):
    --methods SuffStatGauss DP-LR                                  (all data sets, all eps, 10 splits)
    --methods RON-Gauss PCA-Gauss DPRP --epsilons 1 8              (all but adult; adult: --epsilons 1 --repeats 3;
                                                                    DPRP on spambase: --epsilons 1 --repeats 3)
    --methods DP-SYN --epsilons 1 8 --repeats 2 --datasets wdbc dermatology indian_liver cervical_cancer
    --methods "SuffStatGauss (pow10 bounds)" --datasets wdbc

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
from dpnotes.bench import METHODS, plot_benchmark, run_benchmark, summarise  # noqa: E402

RESULTS = ROOT / 'data' / 'results'
DATASETS = ['wdbc', 'indian_liver', 'dermatology', 'cervical_cancer', 'spambase', 'adult']
OURS = ('SuffStatGauss', 'SuffStatGauss (pow10 bounds)')


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
    secs = summary.groupby('method').seconds.mean()
    print('\nmean seconds per release + evaluation, and ratio to SuffStatGauss:')
    print(pd.DataFrame({'seconds': secs.round(2), 'ratio': (secs / secs.get('SuffStatGauss', np.nan)).round(1)}).to_string())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--quick', action='store_true', help='small run: WDBC, eps 1 and 8, 2 splits, fast methods')
    p.add_argument('--datasets', nargs='+', default=DATASETS)
    p.add_argument('--epsilons', nargs='+', type=float, default=[0.5, 1, 2, 4, 8])
    p.add_argument('--repeats', type=int, default=10)
    p.add_argument('--methods', nargs='+', default=list(METHODS))
    p.add_argument('--max-n', type=int, default=5_000, help='public random subsample of larger tables (adult)')
    p.add_argument('--dpsyn-repeats', type=int, default=3, help='DP-SYN (slow) runs on the first splits only')
    p.add_argument('--dpsyn-skip', nargs='*', default=['spambase', 'adult'], help='data sets where DP-SYN is not run')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--runs-out', type=Path, default=None, help='write the per-split rows here and stop (no summary files)')
    p.add_argument('--merge', nargs='+', type=Path, default=None, help='summarise per-split files written by --runs-out')
    p.add_argument('--out', type=Path, default=RESULTS / 'bench_methods.csv')
    a = p.parse_args(argv)
    if a.merge:
        runs = pd.concat([pd.read_csv(f) for f in a.merge], ignore_index=True)
    else:
        if a.quick:
            a.datasets, a.epsilons, a.repeats = ['wdbc'], [1, 8], 2
            a.methods = ['SuffStatGauss', 'RON-Gauss', 'PCA-Gauss', 'DPRP', 'DP-LR']
        runs = run_benchmark(a.datasets, epsilons=a.epsilons, repeats=a.repeats, methods=a.methods, max_n=a.max_n,
                             seed=a.seed, skip={'DP-SYN': a.dpsyn_skip}, limit={'DP-SYN': a.dpsyn_repeats})
        if a.runs_out is not None:
            runs.to_csv(a.runs_out, index=False); print(f'wrote {a.runs_out}'); return
    summary = summarise(runs)
    if 'error' in runs.columns and (runs.error.fillna('').astype(str) != '').any():
        print('failures:\n', runs[runs.error.fillna('').astype(str) != ''][['dataset', 'method', 'epsilon', 'error']].drop_duplicates('method').to_string())
    a.out.parent.mkdir(parents=True, exist_ok=True)
    runs.to_csv(a.out.with_name(a.out.stem + '_runs.csv'), index=False)
    summary.to_csv(a.out, index=False)
    plot_benchmark(summary, a.out.with_suffix('.png'))
    report(summary)
    print(f'\nwrote {a.out}, {a.out.with_name(a.out.stem + "_runs.csv")} and {a.out.with_suffix(".png")}')


if __name__ == '__main__':
    main()
