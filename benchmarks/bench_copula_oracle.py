"""Where the copula's small-table accuracy goes: the default copula beside two oracles that are NOT releases (no privacy),
on the benchmark's splits (seed 0), against the stored `SuffStatGauss` and default-copula rows of bench_fidelity_runs.csv.

    python benchmarks/bench_copula_oracle.py                 # dermatology, WDBC, indian liver; 10 splits at eps = 1 (~2 min)
    python benchmarks/bench_copula_oracle.py --summary-only  # the paired table from the stored runs

Oracle 1, 'exact histograms': the default fit with the histograms' rho multiplied by 1e12 (their noise is gone; the
dependence stage unchanged). Oracle 2: also all of the budget the histograms had given to the dependence stage. Oracles
3 and 4 split the first one by channel: the normal scores of stage 2 computed through the exact histograms while the
sampler decodes through the noisy (released) ones, and the other way round. A measurement for the diagnosis in
nbs/26_copula_experiments.ipynb (rule R6), never a method: all four read the rows without noise.
Writes data/results/bench_copula_oracle.csv (one row per split) and prints accuracy and 1-way TVD with paired
differences against SuffStatGauss and the default copula on the same splits.
"""
import argparse
import runpy
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import dpnotes.bench as B                      # noqa: E402
from dpnotes.copula import CopulaGauss         # noqa: E402

OUT = ROOT / 'data' / 'results' / 'bench_copula_oracle.csv'
DEFAULT = 'Copula (sums 0.9, κ 0.25, atoms threshold)'
ORACLES = ('Copula oracle (exact histograms)', 'Copula oracle (exact histograms, all ρ to the dependence)',
           'Copula oracle (exact scores, noisy decoding)', 'Copula oracle (noisy scores, exact decoding)')


class ExactHistograms(CopulaGauss):
    "Not a release: the histograms' noise removed (their ρ times 1e12)."
    def _histograms(self, codes, rho_h, rng): return CopulaGauss._histograms(self, codes, rho_h * 1e12, rng)


class ExactHistogramsAllRho(ExactHistograms):
    "Not a release: exact histograms, and the dependence stage also gets the ρ the histograms had."
    def _per_class(self, Z, y, rho_c, rng): return CopulaGauss._per_class(self, Z, y, rho_c / (1 - self.split), rng)


class _TwoHistograms(CopulaGauss):
    "Not a release: keeps the noisy histograms and the exact ones; `_stage2` picks which the scores use."
    def _histograms(self, codes, rho_h, rng):
        noisy = CopulaGauss._histograms(self, codes, rho_h, rng); sig = dict(self.sigmas_)
        exact = CopulaGauss._histograms(self, codes, rho_h * 1e12, np.random.default_rng(0)); self.sigmas_ = sig
        self._hists = dict(noisy=noisy, exact=exact)
        return self._hists[self._stage2]
    def fit(self, df):
        CopulaGauss.fit(self, df); self.probs_ = self._hists[self._decode]; return self


class ExactScores(_TwoHistograms):
    "Not a release: scores through the exact histograms, decoding through the noisy ones."
    _stage2, _decode = 'exact', 'noisy'


class ExactDecoding(_TwoHistograms):
    "Not a release: scores through the noisy histograms, decoding through the exact ones."
    _stage2, _decode = 'noisy', 'exact'


def _runner(cls):
    inner = B._m_copula(atoms='threshold', sums_share=0.9, clip_factor=0.25)      # the default's settings, spelled out
    def run(*a, **k):
        old = B.CopulaGauss; B.CopulaGauss = cls
        try: return inner(*a, **k)
        finally: B.CopulaGauss = old
    return run


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    ref = pd.read_csv(ROOT / 'data' / 'results' / 'bench_fidelity_runs.csv')
    ref = ref[ref.epsilon == 1]
    out = []
    for m in ORACLES:
        o = runs[runs.method == m]
        for other in ('SuffStatGauss', DEFAULT):
            t = B.paired_diff(o, ref[ref.method == other], ['accuracy']).set_index('dataset')
            for ds in t.index:
                out.append(dict(oracle=m, dataset=ds, against=other, accuracy=o[o.dataset == ds].accuracy.mean(),
                                other=ref[(ref.method == other) & (ref.dataset == ds)].accuracy.mean(),
                                d_accuracy=t.loc[ds, 'd_accuracy'], se_accuracy=t.loc[ds, 'se_accuracy'], splits=t.loc[ds, 'splits']))
    return pd.DataFrame(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--datasets', nargs='+', default=['dermatology', 'wdbc', 'indian_liver'])
    ap.add_argument('--repeats', type=int, default=10)
    ap.add_argument('--summary-only', action='store_true')
    a = ap.parse_args(argv)
    if not a.summary_only:
        for name, cls in zip(ORACLES, (ExactHistograms, ExactHistogramsAllRho, ExactScores, ExactDecoding)):
            B.METHODS[name] = _runner(cls)
        sys.argv = ['bench_methods.py', '--datasets', *a.datasets, '--epsilons', '1', '--repeats', str(a.repeats),
                    '--methods', *ORACLES, '--runs-out', str(OUT)]
        runpy.run_path(str(ROOT / 'benchmarks' / 'bench_methods.py'), run_name='__main__')
    runs = pd.read_csv(OUT)
    pd.set_option('display.width', 200)
    print(summary(runs[runs.method.isin(ORACLES)]).round(3).to_string(index=False))


if __name__ == '__main__':
    main()
