"""The mechanism contract, checked across the whole package: safe by default wherever a user can call a sampler, and
the layers' import graph (no cycle between the front door and the plan)."""
import ast
from collections.abc import Mapping
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpnotes

LIB = Path(dpnotes.__file__).parent


def _modules():
    "Every module of the package, imported (Dask-only modules import lazily, so this needs no extra)."
    for m in pkgutil.iter_modules([str(LIB)]):
        if m.name.startswith('_'): continue
        yield importlib.import_module(f'dpnotes.{m.name}')


def _callables(mod):
    "(qualified name, callable) for every function and class method defined in `mod`."
    for name, obj in vars(mod).items():
        if getattr(obj, '__module__', None) != mod.__name__: continue
        if inspect.isfunction(obj): yield f'{mod.__name__}.{name}', obj
        elif inspect.isclass(obj):
            for k, v in vars(obj).items():
                f = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v
                if inspect.isfunction(f): yield f'{mod.__name__}.{name}.{k}', f


def test_no_numpy_sampler_default_anywhere():
    """Every signature with a `sampler` parameter defaults to the float-safe sampler (or has no default, or None where
    the command passes the choice on to `release`, whose default is 'safe'); NumPy's sampler is reachable only by name."""
    bad, seen = [], 0
    for mod in _modules():
        for q, f in _callables(mod):
            p = inspect.signature(f).parameters.get('sampler')
            if p is None: continue
            seen += 1
            d = getattr(p.default, 'default', p.default)        # a command option (typer) carries its own default
            if d not in ('safe', None, inspect.Parameter.empty): bad.append(f'{q}: sampler={d!r}')
    assert seen >= 30, f'only {seen} signatures with a sampler: the walk missed the package'
    assert not bad, 'NumPy sampler defaults: ' + '; '.join(bad)


def test_the_signature_walk_sees_a_numpy_default():
    "The walk above can fail: a function defined with a NumPy default is reported."
    src = "def f(x, sampler='numpy'): return x\n"
    ns = {}
    exec(compile(src, 'control', 'exec'), ns)
    assert inspect.signature(ns['f']).parameters['sampler'].default == 'numpy'


def _imports(path: Path) -> set:
    "The dpnotes modules a module imports at its top level (lazy imports inside functions are not edges)."
    out = set()
    for node in ast.parse(path.read_text(encoding='utf-8')).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module: out.add(node.module.split('.')[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or '').startswith('dpnotes.'): out.add(node.module.split('.')[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split('.')[1] for a in node.names if a.name.startswith('dpnotes.')}
    return out


def _graph() -> dict:
    return {p.stem: _imports(p) - {p.stem} for p in LIB.glob('*.py') if not p.stem.startswith('_')}


def _depth(g) -> int:
    "Levels of the import graph (a module stands one level above everything it imports); raises on a cycle."
    memo, stack = {}, set()
    def level(m):
        if m in memo: return memo[m]
        if m in stack: raise AssertionError(f'import cycle through {m}')
        stack.add(m)
        memo[m] = 1 + max((level(k) for k in g.get(m, ()) if k in g), default=0)
        stack.discard(m)
        return memo[m]
    return max(level(m) for m in g)


def test_no_import_cycle_and_plan_below_release():
    g = _graph()
    assert 'release' not in g['plan'] and 'release' not in g['registry'], g['plan']
    _depth(g)                                         # raises on a cycle


def test_lazy_imports_do_not_close_a_cycle():
    """The front door's dry run imports the plan inside a function: the plan must not import the front door back,
    not even lazily, or the two modules would again depend on each other."""
    text = (LIB / 'plan.py').read_text(encoding='utf-8')
    assert 'dpnotes.release' not in text.replace('`dpnotes.release.methods()`', '') and 'from .release' not in text


def test_the_cycle_check_can_fail():
    with pytest.raises(AssertionError, match='cycle'): _depth({'a': {'b'}, 'b': {'a'}})


# ---- the returned object holds no private frame: every array, frame or series reachable from a `Release` (through the
# package's own objects, underscore attributes included) is compared with the input's columns, raw and encoded

SCHEMA = {'dpnotes_schema': 1, 'label': 'y', 'columns': {
    'age': {'kind': 'integer', 'lower': 18, 'upper': 90}, 'income': {'kind': 'numeric', 'lower': 0, 'upper': 300000},
    'sex': {'kind': 'categorical', 'categories': ['F', 'M']}, 'city': {'kind': 'categorical', 'categories': ['A', 'B', 'C']},
    'y': {'kind': 'categorical', 'categories': ['no', 'yes']}}}


def _table(n=60, seed=1):
    g = np.random.default_rng(seed)
    return pd.DataFrame({'age': g.integers(18, 90, n), 'income': g.gamma(2.0, 20000.0, n),
                         'sex': g.choice(['F', 'M'], n), 'city': g.choice(['A', 'B', 'C'], n), 'y': g.choice(['no', 'yes'], n)})


def _arrays(o, path='r', depth=0, seen=None):
    "(path, 1-D float array) for every column of every array, frame or series reachable from `o`."
    seen = set() if seen is None else seen
    if depth > 10 or id(o) in seen: return
    seen.add(id(o))
    if isinstance(o, pd.DataFrame):
        for c in o.columns:
            v = pd.to_numeric(o[c].astype(object).where(o[c].notna(), np.nan), errors='coerce')
            yield f'{path}[{c!r}]', np.asarray(v, dtype=float)
        return
    if isinstance(o, pd.Series): yield from _arrays(o.to_frame(), path, depth + 1, seen); return
    if isinstance(o, np.ndarray):
        if o.dtype.kind in 'biuf' and o.ndim in (1, 2):
            a = o.reshape(len(o), -1).astype(float) if o.ndim else o
            for j in range(a.shape[1]): yield f'{path}[:, {j}]', a[:, j]
        return
    kids = (o.items() if isinstance(o, Mapping) else enumerate(o) if isinstance(o, (list, tuple))
            else vars(o).items() if hasattr(o, '__dict__') and type(o).__module__.startswith(('dpnotes', 'test'))
            and not isinstance(o, type) else ())
    for k, v in list(kids): yield from _arrays(v, f'{path}.{k}', depth + 1, seen)


def _private_columns(df):
    "The input's columns as the release reads them: raw numbers, category codes, and the encoded unit-box columns."
    from dpnotes.data import TableCodec, as_schema
    cod = TableCodec(as_schema(SCHEMA), df.columns, 'y')
    E, y = cod.encode(df)
    cols = {f'raw {c}': pd.to_numeric(df[c], errors='coerce').to_numpy(float) for c in ('age', 'income')}
    cols.update({f'encoded {j}': E[:, j] for j in range(E.shape[1]) if len(np.unique(E[:, j])) > 2})
    return cols


def _held_private(release_obj, df) -> list:
    "Paths of every array column reachable from the release object (its table excluded) equal to an input column."
    priv = _private_columns(df)
    out = []
    for path, a in _arrays(release_obj.model, 'model'):
        if len(a) != len(df): continue
        for name, p in priv.items():
            if np.array_equal(np.sort(a), np.sort(p), equal_nan=True): out.append(f'{path} = {name}')
    return out


@pytest.mark.parametrize('method', ['suffstat-gauss', 'copula-gauss', 'dprp', 'ron-gauss', 'pca-gauss', 'jl-laplace'])
def test_release_object_holds_no_private_column(method):
    from dpnotes.release import release
    df = _table()
    r = release(df, method, 1.0, schema=SCHEMA, rng=0)
    assert _held_private(r, df) == []


def _leaky(extra):
    "A control method: suffstat-gauss whose fit also returns `extra(E)` among its released statistics."
    from dpnotes.registry import METHODS
    class Leaky(METHODS['suffstat-gauss']):
        name = 'leaky-control'
        def _fit(self, E, y, eps, delta, sampler, rng):
            return {**super()._fit(E, y, eps, delta, sampler, rng), 'cache': extra(E)}
    return Leaky


@pytest.mark.parametrize('extra,caught_by', [(lambda E: E.copy(), 'values'), (lambda E: pd.DataFrame(E), 'types')])
def test_a_release_storing_the_private_rows_is_caught(extra, caught_by):
    """Controls: a method that returns the encoded rows among its released statistics is caught by the value walk
    (as an array) or by the type walk of `check_released` (as a frame)."""
    from dpnotes.contract import check_released
    from dpnotes.registry import METHODS
    from dpnotes.release import release
    df, cls = _table(), _leaky(extra)
    METHODS[cls.name] = cls
    try: r = release(df, cls.name, 1.0, schema=SCHEMA, rng=0)
    finally: METHODS.pop(cls.name)
    if caught_by == 'values': assert any('cache' in p for p in _held_private(r, df)), 'the walk missed the rows'
    else: assert any('cache' in p for p, _ in check_released(r.model)), 'the type walk missed the frame'


@pytest.mark.parametrize('method', ['suffstat-gauss', 'copula-gauss', 'dprp', 'dprp-paper', 'ron-gauss',
                                    'ron-gauss-paper', 'pca-gauss', 'pca-gauss-paper', 'jl-laplace',
                                    'jl-laplace-paper', 'dp-syn', 'dp-syn-paper'])
def test_every_released_value_holds_declared_plain_data(method):
    """The value `release()` returns as `Release.model`: every field declared a released statistic or a public setting,
    every value plain data (no frame, no generator, no object), before and after pickling; it samples alone."""
    import pickle
    from dpnotes.contract import check_released
    from dpnotes.registry import Fitted, sample
    from dpnotes.release import release
    kw = dict(max_steps=5) if 'syn' in method else {}
    r = release(_table(), method, 1.0, schema=SCHEMA, rng=0, **kw)
    assert isinstance(r.model, Fitted) and check_released(r.model) == []
    r2 = pickle.loads(pickle.dumps(r))
    assert check_released(r2.model) == [] and len(sample(r2.model, 7)) == 7


def test_every_released_type_declares_its_fields():
    "Every subclass of `Released` in the package declares each field a released statistic or a public setting."
    from dataclasses import fields
    from dpnotes.contract import Released
    import dpnotes.registry  # noqa: F401  (defines the types)
    todo, seen = [Released], []
    while todo:
        t = todo.pop(); seen.append(t); todo += t.__subclasses__()
    bad = [(t.__name__, f.name) for t in seen if t.__module__.startswith('dpnotes')
           for f in fields(t) if f.metadata.get('kind') not in ('statistic', 'setting')]
    assert len(seen) >= 2 and not bad, bad


def test_the_fitter_is_not_the_released_value():
    """What a fit keeps while it runs (the encoded rows, generators) stays on the fitter; `Release.model` is another,
    frozen object."""
    import dataclasses
    from dpnotes.release import release
    r = release(_table(), 'suffstat-gauss', 1.0, schema=SCHEMA, rng=0)
    with pytest.raises(dataclasses.FrozenInstanceError): r.model.n = 3


# ---- each default once: the `Spec` is the only place; the command's help, the plan and the docs read it

@pytest.mark.parametrize('method', ['copula-gauss', 'dprp', 'ron-gauss', 'jl-laplace', 'dp-syn', 'suffstat-gauss'])
def test_spec_defaults_are_what_the_command_the_plan_and_the_docs_show(method):
    import inspect
    from typer.testing import CliRunner
    from dpnotes.cli import _app as app
    from dpnotes.contract import spec_fields
    from dpnotes.plan import plan_ledger
    from dpnotes.registry import METHODS, public_inputs
    cls = METHODS[method]
    want = {k: d for k, (d, _) in spec_fields(cls.spec_type).items()}
    # the documentation: the adapter's signature (what show_doc renders) is generated from the Spec
    sig = inspect.signature(cls.__init__).parameters
    assert {k: sig[k].default for k in want} == want
    # the command: `dpnotes methods METHOD` prints each option with its default
    out = CliRunner().invoke(app, ['methods', method]).stdout
    for k, d in want.items(): assert any(ln.split()[:2] == [k, repr(d).split()[0]] for ln in out.splitlines()), (k, out)
    # the plan: its ledger at default settings is the charges of the default Spec
    kw = dict(max_steps=5) if 'syn' in method else {}
    L = plan_ledger(SCHEMA, method, 1.0, 1e-6, 'y', **kw)
    ref = cls.charges(cls.spec_type(**kw), public_inputs(SCHEMA, 'y'), 1.0, 1e-6)
    pd.testing.assert_frame_equal(L, ref)


def test_a_bad_option_is_refused_before_any_row_is_read():
    "Options are checked by the method's `Spec` (and the schema's public shape) in `build`, before any data."
    from dpnotes.registry import build
    with pytest.raises(ValueError, match='dependence'): build('copula-gauss', epsilon=1.0, dependence='nope')
    with pytest.raises(ValueError, match='k2'): build('dprp', epsilon=1.0, schema=SCHEMA, k1=2, k2=3)
    with pytest.raises(ValueError, match='p=40'): build('ron-gauss', epsilon=1.0, schema=SCHEMA, p=40)
    with pytest.raises(ValueError, match='norm_share'): build('pca-gauss', epsilon=1.0, norm_share=0.7)


# ---- each default defined once: an adapter of the front door states no default of the estimator it passes it to

def _estimators():
    from dpnotes.copula import CopulaGauss
    from dpnotes.dprp import DPRP
    from dpnotes.dpsyn import DPSyn
    from dpnotes.gauss import PCAGauss, RONGauss
    from dpnotes.suffstat import SuffStatGauss
    return {'dprp': DPRP, 'ron-gauss': RONGauss, 'pca-gauss': PCAGauss, 'dp-syn': DPSyn, 'copula-gauss': CopulaGauss,
            'suffstat-gauss': SuffStatGauss}


def test_adapter_defaults_are_the_estimators():
    "No known divergence is left: RON-/PCA-Gauss's `count_share` (5 % at the front door, 10 % in the estimator) was aligned."
    from dpnotes.registry import METHODS, method_params
    bad = []
    for m, est in _estimators().items():
        a, b = (inspect.signature(c.__init__).parameters for c in (METHODS[m], est))
        bad += [(m, k, a[k].default, b[k].default) for k in method_params(METHODS[m])
                if k in b and a[k].default != b[k].default]
    assert not bad, bad


def test_plan_uses_the_estimators_radius_rule():
    from dpnotes.plan import suffstat_sigmas
    from dpnotes.suffstat import SuffStatGauss
    for d in (3, 12, 40):
        assert suffstat_sigmas(d, 2, 1.0, 1e-5)['radius'] == SuffStatGauss()._radius(d)


# ---- the low-bits attack on a class used directly: with the default sampler every released count lies on the public
# grid of its noise, whatever the data, so no pattern of low-order bits can tell two neighbours apart; NumPy's sampler
# (by name) does not, and a neighbour's count shifts the set of values it can produce

def _counts(y, sampler=None, seed=0):
    from dpnotes.suffstat import SuffStatGauss
    g = np.random.default_rng(7); X = g.uniform(size=(len(y), 3))
    kw = {} if sampler is None else dict(sampler=sampler)
    m = SuffStatGauss(1.0, 1e-5, bounds=(np.zeros(3), np.ones(3)), classes=[0, 1], rng=seed, **kw).fit(X, y)
    return m.class_counts_, m.sigmas_['counts']


def _on_grid(v, sigma) -> bool:
    from dpnotes.privacy import safe_grid
    q = np.asarray(v) / safe_grid(sigma)
    return bool(np.all(q == np.rint(q)))


def test_direct_use_releases_counts_on_the_public_grid():
    y = np.array([0, 1] * 20)
    y2 = y.copy(); y2[0] = 1                                  # a neighbour: one row changes class
    for seed in range(20):
        for labels in (y, y2):
            c, s = _counts(labels, seed=seed)
            assert _on_grid(c, s), (seed, c)
    assert not all(_on_grid(*_counts(y, 'numpy', seed)) for seed in range(20))   # the control: off the grid
