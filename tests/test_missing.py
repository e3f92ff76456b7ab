"""Missing cells only where the table has them (issue #38): the copula's missing state, declared away by a public
schema field or thresholded on its noisy count; the threshold is post-processing and misses what the derivation says."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from dpnotes.copula import (CopulaGauss, column_states, drop_weak_missing, missing_count, missing_threshold)
from dpnotes.release import release


def _table(n, g, miss=0.0):
    "A mixed table of n rows; `miss`: share of missing cells in 'x' (none elsewhere)."
    df = pd.DataFrame({'x': g.gamma(2.0, 1.0, n).clip(0, 20), 'k': g.integers(0, 30, n), 'c': g.choice(['a', 'b', 'c'], n),
                       'y': g.choice(['n', 'p'], n)})
    if miss: df.loc[g.random(n) < miss, 'x'] = np.nan
    return df

COLS = {'x': dict(kind='numeric', lower=0, upper=20), 'k': dict(kind='integer', lower=0, upper=29),
        'c': dict(kind='categorical', categories=['a', 'b', 'c']), 'y': dict(kind='categorical', categories=['n', 'p'])}
SCHEMA = {'dpnotes_schema': 1, 'label': 'y', 'columns': COLS}


def test_no_missing_cell_in_gives_at_most_one_percent_out():
    "1,500 rows with no missing cell, ε = 1, 5 seeds: every column's released missing rate ≤ 1 % (it was 0.4-1.8 %)."
    g = np.random.default_rng(0); df = _table(1500, g)
    for s in range(5):
        out = CopulaGauss(COLS, 1.0, 1e-5, label='y', rng=s).fit(df).sample()
        assert out.isna().mean().max() <= 0.01, (s, out.isna().mean())


def test_threshold_is_post_processing_of_the_same_noisy_counts():
    """Same seed, missing=True against 'threshold': the same ρ, σ and ledger; every column's probabilities either equal,
    or equal to the old ones with the missing state emptied and the rest renormalised."""
    g = np.random.default_rng(1); df = _table(400, g)
    a, b = (CopulaGauss(COLS, 1.0, 1e-5, label='y', missing=m, rng=7).fit(df) for m in (True, 'threshold'))
    assert a.rho_ == b.rho_ and a.sigmas_ == b.sigmas_ and a.budget_ == b.budget_
    dropped = 0
    for c in COLS:
        p, q = a.probs_[c], b.probs_[c]
        if np.allclose(p, q): continue
        assert a.states_[c]['missing'] and q[0] == 0
        np.testing.assert_allclose(q[1:], p[1:] / p[1:].sum()); dropped += 1
    assert dropped >= 1                                   # at n = 400 the old rule kept noise in some missing state


def test_declared_complete_has_no_missing_state():
    "A spec's 'missing': False (public) removes the state; through the front door, complete= does the same."
    g = np.random.default_rng(2); df = _table(400, g, miss=0.2)
    cols = {**COLS, 'k': {**COLS['k'], 'missing': False}}
    m = CopulaGauss(cols, 1.0, 1e-5, label='y', rng=0).fit(df)
    assert not m.states_['k']['missing'] and m.states_['x']['missing']
    r = release(df, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, complete=['k', 'c'])
    st = r.model.stats['states_']
    assert not st['k']['missing'] and not st['c']['missing']
    assert r.data[['k', 'c']].notna().all().all() and str(r.data['k'].dtype) == 'Int64'
    with pytest.raises(ValueError, match='missing'): release(df, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, missing=False)


def test_a_real_missing_rate_is_kept():
    "3,000 rows, 15 % missing in x (far above the derived lost rate r* = σ(√(2 ln 3) + 2)/n ≈ 0.02 here): its rate within 0.03, 5 seeds."
    g = np.random.default_rng(3); df = _table(3000, g, miss=0.15)
    for s in range(5):
        out = CopulaGauss(COLS, 1.0, 1e-5, label='y', rng=s).fit(df).sample()
        assert abs(out['x'].isna().mean() - df['x'].isna().mean()) <= 0.03, s
        assert out[['k', 'c']].isna().mean().max() <= 0.01


@pytest.mark.parametrize('k', [0, 20, 40, 60])
def test_keep_probability_is_the_derived_one(k):
    "A missing state with k rows is kept with probability Φ((k - τ)/σ): Monte Carlo, within 4 binomial s.e."
    st = column_states({'kind': 'integer', 'lower': 0, 'upper': 2}); sigma, m, reps = 20.0, 10, 4000
    tau = missing_threshold(sigma, m); g = np.random.default_rng(k)
    noisy = k + sigma * g.normal(size=reps)
    kept = np.mean([drop_weak_missing(np.full(4, 0.25), np.r_[v, 1.0, 1.0, 1.0], st, tau)[0] > 0 for v in noisy])
    p = norm.cdf((k - tau) / sigma)
    assert abs(kept - p) <= 4 * math.sqrt(p * (1 - p) / reps) + 1e-9, (kept, p)


def test_missing_count_and_threshold():
    sts = {c: column_states(s, missing=(c != 'y')) for c, s in COLS.items()}
    assert missing_count(sts) == 3
    assert math.isclose(missing_threshold(2.0, 3), 2.0 * math.sqrt(2 * math.log(3)))


def test_the_default_method_keeps_the_tables_missing_cells():
    """Decision D26: the default of `release()` keeps missing cells where the table has them. On the clinic demo (3.7 %,
    8.8 % and 5.8 % missing in three columns, none elsewhere) each released rate is within 0.03 of the real one and the
    complete columns stay complete; the witness: `suffstat-gauss` releases every rate as 0."""
    import warnings
    from dpnotes.data import load_dataset
    from dpnotes.registry import DEFAULT_METHOD
    d = load_dataset('clinic_demo'); raw = d.raw.assign(readmitted=d.y.to_numpy())
    real = raw.isna().mean()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r = release(raw, epsilon=1.0, schema=d.schema, rng=0)
        s = release(raw, 'suffstat-gauss', 1.0, schema=d.schema, rng=0)
    assert r.method == DEFAULT_METHOD == 'copula-gauss'
    got = r.data.isna().mean()
    assert (got - real).abs().max() <= 0.03, (got, real)
    assert got[real == 0].max() <= 0.005 and s.data.isna().sum().sum() == 0
