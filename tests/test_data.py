"""pytest-level checks of dpnotes.data and dpnotes.evaluate (the notebooks 02_data / 03_evaluate hold the derivations)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpnotes.data import (CACHE_ENV, DATA_ENV, Column, Schema, _file_registry, check_complete, clean_features,
                          data_available, datasets_dir, draft_schema, fetch_dataset, find_data_dir, list_datasets,
                          load_dataset, read_table)
from dpnotes.evaluate import marginal_tvd, real_reference, svm_agreement_rate, svm_misclassification, train_test_split_df, tstr

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ['indian_liver', 'dermatology', 'cervical_cancer', 'adult', 'spambase', 'mammographic_mass']

# name -> (rows, feature columns after one-hot, number of classes); numbers from the provenance notes / UCI .names
SHAPES = {
    'wdbc': (569, 30, 2), 'digits': (1797, 64, 10), 'indian_liver': (583, 11, 2), 'dermatology': (366, 34, 6),
    'cervical_cancer': (858, 35, 2), 'adult': (45222, 104, 2), 'spambase': (4601, 57, 2),
    'mammographic_mass': (961, 5, 2), 'lifesci': (26733, 10, 2), 'clinic_demo': (3000, 14, 2),
}


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    "A user without a data folder: DPNOTES_DATA unset, an empty cache."
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / 'cache'))
    return tmp_path


def test_registry_complete():
    assert sorted(list_datasets()) == sorted(SHAPES)
    reg = _file_registry()
    for name in SHIPPED:
        for f in reg[name]['files']:
            assert reg[name]['licence'] == 'CC BY 4.0' and (datasets_dir() / f['shipped']).is_file(), name
    assert all('shipped' not in f and f['url'].startswith('https://') for f in reg['lifesci']['files'])


@pytest.mark.parametrize('name', list(SHAPES))
def test_shapes_no_nan_label_separate(name, no_env):
    if name == 'lifesci':
        assert not data_available(name)
        pytest.skip('lifesci: not shipped (licence unknown) and not fetched here (no network in tests)')
    assert data_available(name)          # embedded or shipped: no data folder needed
    ds = load_dataset(name)
    n, d, k = SHAPES[name]
    assert ds.X.shape == (n, d)
    assert len(ds.y) == n and len(ds.classes) == k
    assert np.isfinite(ds.X.to_numpy()).all()
    assert ds.y.name not in ds.X.columns
    assert isinstance(ds.schema, Schema) and ds.schema.label == ds.label_name


def test_unknown_name_lists_valid_names_and_read_table():
    with pytest.raises(ValueError, match='valid names') as e:
        load_dataset('iris')
    assert 'read_table(' in str(e.value)


def test_missing_dir_names_file_and_variable(tmp_path):
    with pytest.raises(FileNotFoundError, match='spambase.data') as e:
        load_dataset('spambase', data_dir=tmp_path)
    assert DATA_ENV in str(e.value)


def test_bad_data_dir_is_an_error_even_when_unused(tmp_path):
    for name in ('wdbc', 'adult'):
        with pytest.raises(FileNotFoundError, match='not a directory'):
            load_dataset(name, data_dir=tmp_path / 'nope')
        with pytest.raises(FileNotFoundError, match='not a directory'):
            data_available(name, data_dir=tmp_path / 'nope')


def _fake_lifesci(path: Path) -> bytes:
    body = (','.join(f'a{i}' for i in range(11)) + '\n' +
            '\n'.join(','.join(['1.5'] * 10 + [str(i % 2)]) for i in range(4)) + '\n').encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return body


def test_env_offline_copy_checked(tmp_path, monkeypatch, no_env):
    _fake_lifesci(tmp_path / 'data' / 'lifesci' / 'lifesci.csv')
    monkeypatch.setenv(DATA_ENV, str(tmp_path / 'data'))
    assert find_data_dir() == tmp_path / 'data'
    assert data_available('lifesci')
    with pytest.raises(ValueError, match='sha256'):       # not the registry's file
        load_dataset('lifesci')
    ds = load_dataset('lifesci', verify=False)
    assert ds.X.shape == (4, 10) and ds.y.tolist() == [0, 1, 0, 1]
    monkeypatch.setenv(DATA_ENV, str(tmp_path / 'nope'))
    with pytest.raises(FileNotFoundError, match='not a directory'):
        data_available('lifesci')


def test_fetch_from_local_source(tmp_path, monkeypatch, no_env):
    "The fetcher with a local file source (no network): a wrong checksum keeps nothing, a right one is cached."
    src = tmp_path / 'src' / 'lifesci.csv'
    body = _fake_lifesci(src)
    assert not data_available('lifesci')
    with pytest.raises(FileNotFoundError, match="fetch_dataset"):
        from dpnotes.data import _locate
        _locate('lifesci', None, fetch=False)
    with pytest.raises(ValueError, match="sha256"):
        fetch_dataset('lifesci', source=src)
    assert not (tmp_path / 'cache' / 'lifesci' / 'lifesci.csv').exists()
    reg = _file_registry()
    entry = dict(reg['lifesci']['files'][0], sha256=hashlib.sha256(body).hexdigest(), bytes=len(body))
    monkeypatch.setitem(reg, 'lifesci', dict(reg['lifesci'], files=[entry]))
    p = fetch_dataset('lifesci', source=f'file://{src}')
    assert p == tmp_path / 'cache' / 'lifesci' / 'lifesci.csv' and p.read_bytes() == body
    src.unlink()
    assert data_available('lifesci')
    assert load_dataset('lifesci').y.tolist() == [0, 1, 0, 1]
    with pytest.raises(ValueError, match='nothing to fetch'):
        fetch_dataset('adult')


def test_shipped_checksum_is_checked(tmp_path):
    "A damaged copy is refused (here: a user folder holding a one-byte-different dermatology file)."
    (tmp_path / 'dermatology').mkdir()
    b = (datasets_dir() / 'dermatology' / 'dermatology.data').read_bytes()
    (tmp_path / 'dermatology' / 'dermatology.data').write_bytes(b[:-2] + b'3\n' if b[-2:] != b'3\n' else b[:-2] + b'4\n')
    with pytest.raises(ValueError, match='sha256'):
        load_dataset('dermatology', data_dir=tmp_path)
    (tmp_path / 'dermatology' / 'dermatology.data').write_bytes(b)
    assert load_dataset('dermatology', data_dir=tmp_path).n == 366


def _mammo(tmp_path, rows):
    (tmp_path / 'mammographic_mass').mkdir(exist_ok=True)
    (tmp_path / 'mammographic_mass' / 'mammographic_masses.data').write_text(
        'BI-RADS,Age,Shape,Margin,Density,Severity\n' + rows)


def test_labels_checked_not_truncated(tmp_path):
    _mammo(tmp_path, '5,60,4,5,3,1.5\n4,50,1,1,3,0\n')
    with pytest.raises(ValueError, match='not whole numbers'):
        load_dataset('mammographic_mass', data_dir=tmp_path, verify=False)
    _mammo(tmp_path, '5,60,4,5,3,7\n4,50,1,1,3,0\n')
    with pytest.raises(ValueError, match='outside the documented codes'):
        load_dataset('mammographic_mass', data_dir=tmp_path, verify=False)
    _mammo(tmp_path, '5,60,4,5,3,?\n4,50,1,1,3,0\n')
    with pytest.raises(ValueError, match='missing value'):
        load_dataset('mammographic_mass', data_dir=tmp_path, verify=False)


def test_malformed_file_error_names_the_file(tmp_path):
    _mammo(tmp_path, '5,60,4,5,3,1\n4,50,1,1,3,0,9,9\n')
    with pytest.raises(ValueError, match='mammographic_masses.data'):
        load_dataset('mammographic_mass', data_dir=tmp_path, verify=False)
    (tmp_path / 'x.csv').write_text('a,b\n1,2\n3,4,5,6\n')
    with pytest.raises(ValueError, match='x.csv'):
        read_table(tmp_path / 'x.csv')


def test_clean_features_errors_point_at_the_fix():
    with pytest.raises(ValueError, match='infinite'):
        clean_features(pd.DataFrame({'a': [1.0, np.inf, np.nan]}))
    with pytest.raises(ValueError, match='duplicated column names') as e:
        clean_features(pd.DataFrame([[1.0, 2.0]], columns=['a', 'a']))
    assert 'non-numeric' not in str(e.value)
    with pytest.raises(ValueError, match=r"missing=\['\?'\]"):
        clean_features(pd.DataFrame({'a': ['1', '?', '3']}))
    with pytest.raises(ValueError, match=r'Dataset.imputed\(values='):
        check_complete(pd.DataFrame({'a': [1.0, np.nan]}))


# ---- read_table on four kinds of input ------------------------------------------------------------------------

def test_read_table_uci_style_csv(tmp_path):
    f = tmp_path / 'heart.data'
    f.write_text('age, sex, chol, num\n63, male, 233, 2\n?, female, 250, 0\n41, female, ?, 0\n56, male, 236, 1\n')
    ds = read_table(f, label='num')
    assert list(ds.raw.columns) == ['age', 'sex', 'chol']
    assert ds.raw['age'].isna().tolist() == [False, True, False, False]
    assert int(ds.X.isna().sum().sum()) == 2                         # not imputed
    assert ds.categorical == ('sex',) and list(ds.X.columns) == ['age', 'sex=female', 'sex=male', 'chol']
    assert ds.label_values == [0, 1, 2] and ds.y.tolist() == [2, 0, 0, 1] and ds.task == 'multiclass'
    assert ds.schema.columns['age'] == Column('integer', 41, 63, drafted=True)
    with pytest.raises(ValueError, match=r"missing=\['\?'\]"):
        read_table(f, label='num', missing=[''])


def test_read_table_arff_nominal(tmp_path):
    f = tmp_path / 'w.arff'
    f.write_text("@RELATION w\n@ATTRIBUTE outlook {sunny,overcast,rainy}\n@ATTRIBUTE temp NUMERIC\n"
                 "@ATTRIBUTE class {yes,no}\n@DATA\nsunny,85,no\nrainy,?,yes\n'overcast',70,yes\n")
    ds = read_table(f, label='class')
    assert ds.raw['outlook'].tolist() == ['sunny', 'rainy', 'overcast']
    assert all(isinstance(v, str) for v in ds.raw['outlook'])
    assert ds.schema.columns['outlook'].categories == ['sunny', 'overcast', 'rainy']
    assert ds.label_values == ['yes', 'no'] and ds.y.tolist() == [1, 0, 0]
    assert list(ds.decode_labels(ds.y)) == ['no', 'yes', 'yes']
    assert np.isnan(ds.raw['temp'][1])


def test_read_table_semicolon_bom(tmp_path):
    f = tmp_path / 'export.csv'
    f.write_bytes(b'\xef\xbb\xbf' + 'Größe;Ort;Gruppe\n1.80;Köln;a\n1.65;Zürich;b\n;Köln;a\n'.encode())
    ds = read_table(f, label='Gruppe')
    assert list(ds.raw.columns) == ['Größe', 'Ort']
    assert ds.raw['Größe'].tolist()[:2] == [1.80, 1.65] and np.isnan(ds.raw['Größe'][2])
    assert ds.raw['Ort'].tolist() == ['Köln', 'Zürich', 'Köln']
    assert ds.label_values == ['a', 'b']


def test_read_table_dataframe_categorical_and_schema_json(tmp_path):
    df = pd.DataFrame({'ward': pd.Categorical(['A', 'B', 'A']), 'grade': [1, 3, 2], 'bp': [120.0, 131.5, np.nan],
                       'sex': ['F', 'M', 'F'], 'died': [False, True, False]})
    keep = df.copy()
    ds = read_table(df, label='died')
    pd.testing.assert_frame_equal(df, keep)
    assert ds.categorical == ('ward', 'sex')
    assert read_table(df, label='died', categorical=['ward', 'grade', 'sex']).categorical == ('ward', 'grade', 'sex')
    assert ds.label_values == [False, True]
    s = draft_schema(df, label='died')
    assert s.drafted_fields() == list(df.columns)
    assert Schema.from_json(s.to_json(tmp_path / 's.json')) == s == Schema.from_json(tmp_path / 's.json')
    d = json.loads(s.to_json())
    assert d['dpnotes_schema'] == 1 and d['label'] == 'died' and 'not private' in d['note']
    s.validate(df)
    with pytest.raises(ValueError, match="'bp'"):
        Schema({**s.columns, 'bp': Column('numeric', 0, 125)}, 'died').validate(df)


# ---- the wheel ------------------------------------------------------------------------------------------------

@pytest.mark.slow   # about 35 s on the shared 2-core machine (pip wheel's isolated build dominates)
def test_wheel_ships_the_tables(tmp_path):
    """`pip wheel --no-deps .`, installed (--no-deps) into a fresh venv that sees the project's packages, loads every
    shipped table from a folder outside the repository, with no DPNOTES_DATA and no PYTHONPATH."""
    t0 = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', DATA_ENV, CACHE_ENV)}
    env['PIP_DISABLE_PIP_VERSION_CHECK'] = '1'
    # build from a copy of the files the wheel is made of, so that setuptools' build/ and egg-info stay out of the clone
    src = tmp_path / 'src'
    src.mkdir()
    for f in ('pyproject.toml', 'README.md'): shutil.copy2(ROOT / f, src / f)
    shutil.copytree(ROOT / 'dpnotes', src / 'dpnotes', ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
    r = subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', str(src), '-w', str(tmp_path / 'dist')],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    whl, = (tmp_path / 'dist').glob('dpnotes-*.whl')
    with zipfile.ZipFile(whl) as z:
        names = set(z.namelist())
    for name in SHIPPED:
        for f in _file_registry()[name]['files']:
            assert f"dpnotes/datasets/{f['shipped']}" in names, f
    assert 'dpnotes/datasets/registry.json' in names and 'dpnotes/datasets/schemas/adult.json' in names
    # a venv without pip that sees the project's site-packages through a .pth line (so the editable install's
    # finder is not activated): the wheel's copy of dpnotes is the one imported
    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', str(venv)], check=True, env=env, timeout=120)
    vpy = venv / 'bin' / 'python'
    site = subprocess.run([str(vpy), '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
                          capture_output=True, text=True, check=True, env=env).stdout.strip()
    Path(site, '_project_site.pth').write_text(sysconfig.get_paths()['purelib'] + '\n')
    r = subprocess.run([str(vpy), '-m', 'pip', 'install', '--no-deps', '-q', str(whl)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    work = tmp_path / 'elsewhere'; work.mkdir()
    code = ('import dpnotes, dpnotes.data as d, json; '
            f'assert dpnotes.__file__.startswith({str(venv)!r}), dpnotes.__file__; '
            f'print(json.dumps({{n: d.load_dataset(n).n for n in {SHIPPED!r}}}))')
    r = subprocess.run([str(vpy), '-c', code], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got == {n: SHAPES[n][0] for n in SHIPPED}
    print(f'wheel build + install + load: {time.perf_counter() - t0:.1f} s')


def test_tstr_reference_and_no_mutation():
    Xa, Xb, ya, yb = train_test_split_df(load_dataset('wdbc'), rng=0)
    copies = [o.copy() for o in (Xa, Xb, ya, yb)]
    ref = real_reference(Xa, ya, Xb, yb, model='logreg', rng=1)
    assert ref == tstr(Xa, ya, Xb, yb, model='logreg', rng=1)
    assert ref['accuracy'] > 0.9 and ref['auprc'] > 0.95
    for a, b in zip((Xa, Xb, ya, yb), copies):
        pd.testing.assert_series_equal(a, b) if isinstance(a, pd.Series) else pd.testing.assert_frame_equal(a, b)


def test_tstr_bad_input_names_parameter():
    Xa, Xb, ya, yb = train_test_split_df(load_dataset('wdbc'), rng=0)
    bad = Xb.copy()
    bad.iloc[3, 3] = np.inf
    with pytest.raises(ValueError, match='X_test'):
        tstr(Xa, ya, bad, yb)
    with pytest.raises(ValueError, match='y_syn'):
        tstr(Xa, ya.iloc[:-2], Xb, yb)


def test_marginal_tvd_extremes_and_no_mutation():
    coin = np.r_[np.zeros(20), np.ones(20)]
    corr, anti = np.c_[coin, coin], np.c_[coin, 1 - coin]
    keep = corr.copy()
    assert marginal_tvd(corr, corr, k=2) == 0.0
    assert marginal_tvd(corr, anti, k=1) == pytest.approx(0.0, abs=1e-12)
    assert marginal_tvd(corr, anti, k=2) == pytest.approx(1.0, abs=1e-12)      # disjoint support
    assert marginal_tvd(np.arange(100.0)[:, None], np.zeros((10, 1)), k=1) == pytest.approx(0.8, abs=1e-12)
    np.testing.assert_array_equal(corr, keep)
    with pytest.raises(ValueError, match='max_marginals'):
        marginal_tvd(corr, anti, max_marginals=0)


def test_agreement_with_itself_and_misclassification():
    g = np.random.default_rng(3)
    X = g.normal(size=(200, 4)); y = (X[:, 0] > 0).astype(int)
    assert svm_agreement_rate(X[:150], y[:150], X[:150], y[:150], X[150:], rng=0) == 1.0
    err = svm_misclassification(X[:150], y[:150], X[150:], y[150:], rng=0)
    assert err == pytest.approx(1 - tstr(X[:150], y[:150], X[150:], y[150:], model='svm', rng=0)['accuracy'], abs=1e-12)
    with pytest.raises(ValueError, match='y_train'):
        svm_misclassification(X[:150], y[:149], X[150:], y[150:])


# --- reading for a release: the schema alone decides; the check is separate and not private --------------------------

def _rbs_schema():
    from dpnotes.data import Column, Schema
    return Schema({'age': Column('integer', 18, 90), 'sex': Column('categorical', categories=['F', 'M']),
                   'y': Column('categorical', categories=[0, 1])}, label='y')


def test_read_by_schema_types_come_from_the_schema(tmp_path):
    from dpnotes.data import read_by_schema
    a = tmp_path / 'a.csv'; a.write_text('sex,age,y\nF,30,0\nM,31,1\nF,32,0\n')
    b = tmp_path / 'b.csv'; b.write_text('sex,age,y\nF,30,0\nQ,abc,1\n,1e999,7\n')     # neighbours with odd cells
    A, B = read_by_schema(a, _rbs_schema()), read_by_schema(b, _rbs_schema())
    assert list(A.columns) == list(B.columns) == ['sex', 'age', 'y']
    assert A.dtypes.tolist() == B.dtypes.tolist() == [np.dtype(object), np.dtype('float64'), np.dtype(object)]
    assert B['sex'].tolist() == ['F', None, None] and B['y'].tolist() == [0, 1, None]
    assert np.isnan(B['age'][1]) and np.isinf(B['age'][2])


def test_read_by_schema_refuses_only_public_or_structural_problems(tmp_path):
    from dpnotes.data import Column, Schema, read_by_schema
    s = _rbs_schema()
    f = tmp_path / 'f.csv'; f.write_text('sex,age,y\nF,30,0\n')
    with pytest.raises(ValueError, match="column 'bmi' is not in"):
        read_by_schema(f, Schema({**s.columns, 'bmi': Column('numeric', 10, 60)}, 'y'))
    g = tmp_path / 'g.csv'; g.write_text('sex,age,y,extra\nF,30,0,1\n')
    with pytest.raises(ValueError, match="column 'extra' is not in the schema"): read_by_schema(g, s)
    r = tmp_path / 'r.csv'; r.write_text('sex,age,y\nF,30,0\nM,31\nF,32,0,9\n')
    R = read_by_schema(r, s)                      # ragged records are rows (issue #36): extra fields dropped, absent ones missing
    assert len(R) == 3 and R['sex'].tolist() == ['F', 'M', 'F'] and R['y'].tolist() == [0, None, 0]
    h = tmp_path / 'h.csv'; h.write_text('sex,age,y\n')
    with pytest.raises(ValueError, match='empty'): read_by_schema(h, s)
    t = tmp_path / 't.tsv'; t.write_text('sex\tage\ty\nF\t30\t0\n')                  # the delimiter from the header
    assert read_by_schema(t, s).shape == (1, 3)


def test_check_table_lists_values_counts_and_lines(tmp_path):
    from dpnotes.data import CHECK_WARNING, check_table
    f = tmp_path / 'f.csv'; f.write_text('sex,age,y\nF,30,0\nX,200,1\nM,abc,1\nM,31\n')
    t = check_table(f, _rbs_schema()).set_index(['column', 'finding'])
    assert t.loc[('sex', 'not among the 2 declared categories'), 'examples'] == "'X' x1"
    assert t.loc[('age', 'above upper=90'), 'cells'] == 1 and t.loc[('age', 'not a number'), 'cells'] == 1
    assert t.loc[('(file)', 'lines with fewer than 3 fields'), 'examples'] == '5'   # read with missing cells (#36)
    assert 'NOT PRIVATE' in CHECK_WARNING


def test_read_by_schema_spreadsheet_tail_and_schema_json_compat(tmp_path):
    "A spreadsheet's empty trailing columns are no columns; an old schema JSON reads as before, the new fields optional."
    from dpnotes.data import Column, Schema, check_table, read_by_schema
    s = _rbs_schema()
    f = tmp_path / 'x.csv'; f.write_text('sex;age;y;;\nF;30;0;;\nM;31;1;;\n')
    assert read_by_schema(f, s).shape == (2, 3) and len(check_table(f, s)) == 0
    d = s.to_dict()
    assert set(d) == {'dpnotes_schema', 'label', 'columns'} and Schema.from_dict(d).reader()['encoding'] == 'utf-8'
    s2 = Schema(s.columns, 'y', delimiter=';', decimal=',', skip=['id'])
    assert Schema.from_dict(s2.to_dict()).to_dict() == s2.to_dict() and s2.to_dict()['skip'] == ['id']
    for bad in ({'encoding': 'utf-16'}, {'decimal': ';'}, {'delimiter': ',', 'decimal': ','}, {'format': 'xls'}):
        with pytest.raises(ValueError): Schema(s.columns, 'y', **bad)
