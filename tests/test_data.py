"""pytest-level checks of dpnotes.data and dpnotes.evaluate (the notebooks 02_data / 03_evaluate hold the derivations)."""
import numpy as np
import pandas as pd
import pytest

from dpnotes.data import DATA_ENV, data_available, find_data_dir, list_datasets, load_dataset
from dpnotes.evaluate import marginal_tvd, real_reference, svm_agreement_rate, svm_misclassification, train_test_split_df, tstr

# name -> (rows, feature columns after one-hot, number of classes); numbers from PROVENANCE.md / UCI .names
SHAPES = {
    'wdbc': (569, 30, 2), 'digits': (1797, 64, 10), 'indian_liver': (583, 11, 2), 'dermatology': (366, 34, 6),
    'cervical_cancer': (858, 35, 2), 'adult': (45222, 104, 2), 'spambase': (4601, 57, 2),
    'mammographic_mass': (961, 5, 2), 'lifesci': (26733, 10, 2),
}


def test_registry_complete():
    assert sorted(list_datasets()) == sorted(SHAPES)


@pytest.mark.parametrize('name', list(SHAPES))
def test_shapes_no_nan_label_separate(name):
    if not data_available(name):
        pytest.skip(f'{name}: shared data directory not found (set {DATA_ENV})')
    ds = load_dataset(name)
    n, d, k = SHAPES[name]
    assert ds.X.shape == (n, d)
    assert len(ds.y) == n and len(ds.classes) == k
    assert np.isfinite(ds.X.to_numpy()).all()
    assert ds.y.name not in ds.X.columns


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match='valid names'):
        load_dataset('iris')


def test_missing_dir_names_file_and_variable(tmp_path):
    with pytest.raises(FileNotFoundError, match='spambase.data') as e:
        load_dataset('spambase', data_dir=tmp_path)
    assert DATA_ENV in str(e.value)


def test_env_override(tmp_path, monkeypatch):
    (tmp_path / 'lifesci').mkdir()
    (tmp_path / 'lifesci' / 'lifesci.csv').write_text(
        ','.join(f'a{i}' for i in range(11)) + '\n' + '\n'.join(','.join(['1.5'] * 10 + [str(i % 2)]) for i in range(4)))
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert find_data_dir() == tmp_path
    ds = load_dataset('lifesci')
    assert ds.X.shape == (4, 10) and ds.y.tolist() == [0, 1, 0, 1]


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
