"""`dpnotes.release`: every registered method through `release`, the output contract, the ledger, bad input, and
that a new method is one adapter class plus one registry line."""
import copy
import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from dpnotes.audit import FRONT_PARAMS

from dpnotes.release import (METHODS, Method, SizeWarning, TableCodec, as_schema, default_delta, methods, register, release,
                             wdbc_schema)

SCHEMA = {'dpnotes_schema': 1, 'label': 'y', 'columns': {
    'age': {'kind': 'integer', 'lower': 18, 'upper': 90}, 'income': {'kind': 'numeric', 'lower': 0, 'upper': 300000},
    'sex': {'kind': 'categorical', 'categories': ['F', 'M']}, 'city': {'kind': 'categorical', 'categories': ['A', 'B', 'C']},
    'y': {'kind': 'categorical', 'categories': ['no', 'yes']}}}


@pytest.fixture
def mixed():
    g = np.random.default_rng(1); n = 90
    df = pd.DataFrame({'age': g.integers(18, 90, n), 'income': g.gamma(2.0, 20000.0, n),
                       'sex': g.choice(['F', 'M'], n), 'city': pd.Categorical(g.choice(['A', 'B', 'C'], n)),
                       'y': g.choice(['no', 'yes'], n)})
    df.loc[[0, 4], 'income'] = np.nan; df.loc[2, 'sex'] = None
    return df


def est_keeps_missing(r):
    "Whether the method releases missing cells as a state of their own (its integer columns are then nullable)."
    return bool(METHODS[r.method].keeps_missing)


@pytest.mark.parametrize('method', list(METHODS))
def test_every_method_keeps_the_contract(method, mixed):
    before, schema = mixed.copy(), copy.deepcopy(SCHEMA)
    with warnings.catch_warnings():
        warnings.simplefilter('error'); warnings.simplefilter('ignore', SizeWarning)   # size: public inputs only
        r = release(mixed, method, 0.8, schema=schema, rng=2)
    pd.testing.assert_frame_equal(mixed, before)
    assert schema == SCHEMA                                   # the caller's schema is not modified
    e, d = r.spent
    assert e <= 0.8 * (1 + 1e-12) and d <= r.delta * (1 + 1e-12)
    assert r.delta == default_delta(len(mixed))
    assert len(r.data) == len(mixed)
    if r.original_units:
        codec = TableCodec(as_schema(SCHEMA), mixed.columns, 'y')
        assert list(r.data.columns) == list(SCHEMA['columns'])                # the schema's order, never the input's
        want = {c: (pd.Int64Dtype() if est_keeps_missing(r) and dt == np.dtype('int64') else dt) for c, dt in codec.dtypes.items()}
        assert r.data.dtypes.to_dict() == want                                # the schema's dtypes, never the input's
        assert r.data['age'].dropna().between(18, 90).all() and r.data['income'].dropna().between(0, 300000).all()
        assert set(r.data['sex'].dropna()) <= {'F', 'M'} and set(r.data['city'].dropna().astype(str)) <= {'A', 'B', 'C'}
    else:
        assert not set(r.data.columns) & {'age', 'income', 'sex', 'city'}
    from dpnotes.contract import check_released
    assert check_released(r.model) == []                 # released statistics and public settings only


def test_rows_and_explicit_delta(mixed):
    r = release(mixed, 'dprp', 1.0, delta=1e-6, schema=SCHEMA, rng=0, n=40)
    assert len(r.data) == 40 and r.delta == 1e-6 and r.spent[1] <= 1e-6 * (1 + 1e-12)


def test_registry_table():
    m = methods()
    assert {'dprp', 'ron-gauss', 'pca-gauss', 'jl-laplace', 'dp-syn'} <= set(m.index)
    assert all(n + '-paper' in m.index for n in ('dprp', 'ron-gauss', 'pca-gauss', 'jl-laplace', 'dp-syn'))
    assert {'paper', 'guarantee', 'needs_public', 'original_units', 'private', 'dask'} <= set(m.columns)
    assert sorted(m.index[m['dask'].astype(bool)]) == ['copula-gauss', 'dprp', 'ron-gauss', 'suffstat-gauss']   # which methods accept a Dask DataFrame


@pytest.mark.parametrize('kw, words', [
    (dict(method='nope'), 'unknown method'), (dict(epsilon=-1), 'epsilon'), (dict(delta=0.0), 'delta'),
    (dict(schema=None), 'dpnotes schema'), (dict(label='zzz'), "'zzz'"), (dict(sampler='nope'), 'sampler'),
    (dict(p=0), 'p'), (dict(classes=['a', 'b']), 'differs'), (dict(bogus=1), "'bogus'"),
])
def test_bad_input_names_the_problem(kw, words, mixed):
    args = dict(data=mixed, method='ron-gauss', epsilon=1.0, schema=SCHEMA, rng=0)
    args.update(kw)
    with pytest.raises((ValueError, TypeError), match=None) as ei:
        release(**args)
    assert words.lower() in str(ei.value).lower()


def test_out_of_domain_data_is_mapped_never_refused(mixed):
    """The schema is a contract: undeclared categories, non-numbers, non-finite values and undeclared labels are
    mapped by the public rule; nothing raises and nothing is said about the data."""
    bad = mixed.copy().astype({'city': object, 'income': object})
    bad.loc[1, 'city'] = 'Z'; bad.loc[2, 'y'] = 'maybe'; bad.loc[3, 'y'] = None
    bad.loc[4, 'income'] = '1e999'; bad.loc[6, 'income'] = 'n/a'; bad.loc[7, 'age'] = 10**9
    for m in ('ron-gauss', 'suffstat-gauss', 'dprp'):
        with warnings.catch_warnings():
            warnings.simplefilter('error'); warnings.simplefilter('ignore', SizeWarning)   # size: public inputs only
            r = release(bad, m, 1.0, schema=SCHEMA)
        assert len(r.data) == len(bad) and set(r.data['city'].astype(str)) <= {'A', 'B', 'C'}


def test_output_format_decided_by_the_schema_alone(mixed):
    """One missing cell, one non-integer value, an absent category or the input's column order change nothing in the
    released table's dtypes, categories or column order."""
    variants = [mixed, mixed.astype({'age': float}), mixed.assign(city=mixed['city'].astype(object)),
                mixed.assign(city=pd.Categorical(mixed['city'].astype(str).replace('C', 'A'))), mixed[mixed.columns[::-1]]]
    seen = set()
    for df in variants:
        r = release(df, 'suffstat-gauss', 1.0, schema=SCHEMA)
        seen.add((tuple(r.data.columns), tuple(map(str, r.data.dtypes)), tuple(r.data['city'].cat.categories)))
    assert len(seen) == 1, seen


def _generators(o, seen=None, depth=0):
    seen = set() if seen is None else seen
    if id(o) in seen or depth > 8: return 0
    seen.add(id(o))
    if isinstance(o, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)): return 1
    kids = (o.values() if isinstance(o, dict) else o if isinstance(o, (list, tuple))
            else vars(o).values() if hasattr(o, '__dict__') and not isinstance(o, (type, pd.DataFrame, pd.Series)) else ())
    return sum(_generators(v, seen, depth + 1) for v in kids)


@pytest.mark.parametrize('method', [m for m in METHODS if m not in ('dp-syn', 'dp-syn-paper')])
def test_release_holds_no_generator_and_defaults_to_the_safe_sampler(method, mixed):
    assert inspect.signature(release).parameters['sampler'].default == 'safe'
    assert inspect.signature(METHODS[method].__init__).parameters['sampler'].default == 'safe'
    r = release(mixed, method, 1.0, schema=SCHEMA)
    assert not hasattr(r.model, 'sampler') and not hasattr(r.model, 'rng')
    assert _generators(r) == 0 and _generators(pickle.loads(pickle.dumps(r))) == 0


def test_drafted_schema_refused_unless_allowed(mixed):
    s = copy.deepcopy(SCHEMA); s['columns']['income']['drafted'] = True
    with pytest.raises(ValueError, match='drafted'): release(mixed, 'ron-gauss', 1.0, schema=s, rng=0)
    r = release(mixed, 'ron-gauss', 1.0, schema=s, rng=0, allow_drafted=True)
    assert r.public['why public'].str.contains('DRAFTED').any()


def test_wdbc_schema_is_documentation_ranges():
    s = wdbc_schema()
    assert s.label == 'target' and s.columns['target'].categories == [0, 1]
    c = s.columns['mean radius']
    assert c.lower == pytest.approx(6.981 - 0.01 * (28.11 - 6.981)) and c.upper == pytest.approx(28.11 + 0.01 * (28.11 - 6.981))


def test_a_new_method_is_one_class_and_one_line(mixed):
    from dpnotes.contract import Charge
    class Identity(Method):                       # NOT private: a stand-in to show the extension point
        name, system, paper, guarantee, private, uses_delta = 'toy-copy', 'toy', '—', 'none (test only)', False, False
        @classmethod
        def _charges_of(cls, spec, public, eps, delta): return [Charge('copy', 'none', eps)]
        def _fit(self, E, y, eps, delta, sampler, rng):
            self._charges += self._charges_of(self.spec, None, eps, delta)
            return dict(rows=E, labels=y)
        @classmethod
        def _draw(cls, r, n, rng): return r.stats['rows'][:n], r.stats['labels'][:n]
    try:
        register(Identity)
        r = release(mixed, 'toy-copy', 1.0, schema=SCHEMA, rng=0)
        assert 'toy-copy' in methods().index and list(r.data.columns) == list(SCHEMA['columns'])
        assert r.data['age'].tolist() == mixed['age'].tolist()
    finally:
        METHODS.pop('toy-copy', None)


@pytest.mark.parametrize('method', [m for m, c in METHODS.items() if c.original_units and c.private and getattr(c, 'calibratable', True)])
def test_marginal_calibration_keeps_the_contract_and_the_ledger(method, mixed):
    before = mixed.copy()
    with warnings.catch_warnings():
        warnings.simplefilter('error'); warnings.simplefilter('ignore', SizeWarning)   # size: public inputs only
        quick = FRONT_PARAMS.get(method.removesuffix('-paper'), {})   # DP-SYN trains briefly: calibration does not depend on it
        r = release(mixed, method, 0.8, schema=SCHEMA, rng=2, calibrate=0.25, **quick)
    pd.testing.assert_frame_equal(mixed, before)
    L = r.ledger
    cal = L[L.step.str.startswith('marginal calibration')]
    assert len(cal) == 1 and np.isclose(cal.epsilon.iloc[0], 0.2) and np.isclose(cal.delta.iloc[0], 0.25 * r.delta)
    e, d = r.spent
    assert e <= 0.8 * (1 + 1e-12) and d <= r.delta * (1 + 1e-9)
    codec = TableCodec(as_schema(SCHEMA), mixed.columns, 'y')
    want = {c: (pd.Int64Dtype() if est_keeps_missing(r) and dt == np.dtype('int64') else dt) for c, dt in codec.dtypes.items()}
    assert r.data.dtypes.to_dict() == want
    assert r.data['age'].dropna().between(18, 90).all() and r.data['income'].dropna().between(0, 300000).all()


def test_marginal_calibration_moves_the_marginals_to_the_released_ones(mixed):
    from dpnotes.evaluate import tvd_1way
    g = np.random.default_rng(3); n = 600
    df = pd.DataFrame({'age': g.integers(18, 40, n), 'income': g.gamma(2.0, 20000.0, n), 'sex': g.choice(['F', 'M'], n),
                       'city': g.choice(['A', 'B', 'C'], n), 'y': g.choice(['no', 'yes'], n)})
    raw = release(df, 'dprp', 1.0, schema=SCHEMA, rng=0)
    cal = release(df, 'dprp', 1.0, schema=SCHEMA, rng=0, calibrate=0.2)
    t0, t1 = (tvd_1way(df, r.data, SCHEMA['columns'])[['age', 'income']] for r in (raw, cal))
    assert (t1 < t0).all(), (t0, t1)          # DPRP's raw marginals are far off (projection noise); the calibrated ones follow the data


@pytest.mark.parametrize('bad', [-0.1, 1.0, 'x'])
def test_marginal_calibration_refuses_bad_shares(bad, mixed):
    with pytest.raises(ValueError, match='calibrate'): release(mixed, 'dprp', 1.0, schema=SCHEMA, rng=0, calibrate=bad)


def test_marginal_calibration_needs_original_units(mixed):
    m = next(m for m, c in METHODS.items() if not c.original_units)
    with pytest.raises(ValueError, match='calibrate'): release(mixed, m, 1.0, schema=SCHEMA, rng=0, calibrate=0.1)


# End-to-end audit of a calibrated release: the whole public call (`release(..., calibrate=0.25)`) on the front-door
# pairs, every observable (table, dtypes, returned object, printed text, warnings, errors). 40 runs per table give a
# bound of about 1.6 for a deterministic leak, above the claimed ε = 1.
CALIBRATED_AUDIT = [(m, k) for m in ('dprp', 'ron-gauss', 'pca-gauss', 'dp-syn')
                    for k in ('missing_cell', 'out_of_bounds', 'label', 'absent_category', 'non_integer', 'nan')]


def _calibrated_audit(method, kind):
    import zlib
    from dpnotes.front_door import audit_front_door
    return audit_front_door(method, 'release', kind, n_runs=40, rng=zlib.crc32(f'cal|{method}|{kind}'.encode()), calibrate=0.25)


def test_calibrated_release_audit_fast():
    r = _calibrated_audit('ron-gauss', 'missing_cell')
    assert r.passes(1.0), r.epsilon_lb


@pytest.mark.slow
@pytest.mark.parametrize('method,kind', CALIBRATED_AUDIT)
def test_calibrated_release_audit(method, kind):
    r = _calibrated_audit(method, kind)
    assert r.passes(1.0), (method, kind, r.epsilon_lb)


@pytest.mark.parametrize('kind', ['missing_cell', 'non_integer', 'absent_category', 'nan', 'text_1e999'])
def test_calibrated_release_dtypes_follow_the_schema_only(kind):
    "The pair's tables differ in their own dtypes (a float column, observed categories); the released dtypes do not."
    from dpnotes.audit import front_door_pairs, front_door_table
    schema = front_door_table()[1]
    (_, D, Dp), = front_door_pairs((kind,))
    want = TableCodec(as_schema(schema), D.df.columns, 'y').dtypes
    for data in (D.df, Dp.df):
        for m in ('dprp', 'ron-gauss'):
            out = release(data, m, 1.0, schema=schema, rng=0, calibrate=0.25).data
            assert list(out.columns) == list(want) and out.dtypes.to_dict() == want, (m, kind, out.dtypes.to_dict())


def test_copula_gauss_refuses_calibration(mixed):
    "copula-gauss releases its marginals already: a calibration share would be charged and never used."
    with pytest.raises(ValueError, match='calibrate'): release(mixed, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, calibrate=0.25)


def test_dprp_label_is_noise_dominated_at_eps_1():
    "Why calibration cannot rescue DPRP's classifier: its label (arg-max of a noisy one-hot block) is near a coin flip at ε = 1."
    g = np.random.default_rng(5); n, d = 700, 34
    df = pd.DataFrame({f'x{j}': g.integers(0, 2, n) for j in range(d)}); df['y'] = (g.random(n) < 0.064).astype(int)
    sch = {'dpnotes_schema': 1, 'label': 'y', 'columns': {**{f'x{j}': {'kind': 'integer', 'lower': 0, 'upper': 1} for j in range(d)},
           'y': {'kind': 'categorical', 'categories': [0, 1]}}}
    r = release(df, 'dprp', 1.0, delta=1e-5, schema=sch, rng=0, calibrate=0.25)
    assert (r.data['y'].astype(int) == 1).mean() > 0.3          # the data has 6% positives; the release about half


def test_copula_gauss_passes_class_signal_options(mixed):
    "copula-gauss forwards sums_share and clip_factor and charges the same budget; the retired 'auto' rule is refused."
    from dpnotes.registry import build
    r = release(mixed, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, clip_factor=0.5, sums_share=0.8)
    assert r.model.spec.sums_share == 0.8 and r.model.spec.clip_factor == 0.5
    est = build('copula-gauss', epsilon=1.0, schema=SCHEMA, rng=0, clip_factor=0.5, sums_share=0.8).fit(mixed)
    m = est.model_                                  # the fitter's estimator (never released)
    assert m.sums_share == 0.8 and m.clip_factor == 0.5
    assert np.isclose(m.radius_, 0.5 * np.sqrt(len(m._copula_columns())))
    assert np.isclose(r.ledger.epsilon.sum(), 1.0)
    with pytest.raises(ValueError, match='decisions.html#copula-clip-factor-auto'):
        release(mixed, 'copula-gauss', 1.0, schema=SCHEMA, clip_factor='auto')
    with pytest.raises(ValueError, match='sums_share'): release(mixed, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, sums_share=1.5)


def test_copula_gauss_on_a_table_with_no_binned_column():
    """Every column categorical or a short integer range: no atom state at all, and the default copula still releases
    (it once failed there: the atom threshold was asked for m = 0 states)."""
    g = np.random.default_rng(0)
    df = pd.DataFrame({'a': g.choice(['x', 'y', 'z'], 80), 'k': g.integers(0, 4, 80), 'y': g.choice(['n', 'p'], 80)})
    sch = {'dpnotes_schema': 1, 'label': 'y', 'columns': {'a': dict(kind='categorical', categories=['x', 'y', 'z']),
           'k': dict(kind='integer', lower=0, upper=3), 'y': dict(kind='categorical', categories=['n', 'p'])}}
    r = release(df, 'copula-gauss', 1.0, schema=sch, rng=0)
    assert len(r.data) == 80 and list(r.data.columns) == ['a', 'k', 'y']


def test_copula_gauss_passes_missing_options(mixed):
    "copula-gauss takes complete= and missing= through `release` (issue #38); a declared-complete cell is read publicly."
    from dpnotes.registry import method_params
    assert {'complete', 'missing'} <= set(method_params(METHODS['copula-gauss']))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', SizeWarning)
        r = release(mixed, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, complete=['income', 'sex'], missing='threshold')
        st = r.model.stats['states_']
        assert r.model.spec.missing == 'threshold' and not st['income']['missing'] and not st['sex']['missing']
        assert r.data[['income', 'sex']].notna().all().all()
        old = release(mixed, 'copula-gauss', 1.0, schema=SCHEMA, rng=0, missing=True).model
    assert old.spec.missing is True and old.stats['states_']['income']['missing']
