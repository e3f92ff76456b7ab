"""Fit one peer DP method on one training split, in the peer's own virtual environment.

Run by `dpnotes.bench` as a subprocess with the peer's python (see README.md in this folder); it never imports dpnotes.

    <peer python> run_peer.py --method mst --train train.csv --meta meta.json --out out_{eps}.csv --epsilon 1 8 --seed 3
    <peer python> run_peer.py --method dp-lr --train train.csv --test test.csv --meta meta.json --out pred_{eps}.csv --epsilon 1

train.csv: the training split. For the marginal synthesisers (mst, aim) every column, the label included, is already an
integer code 0..B-1 made by the harness from public bounds (meta['cardinality'] gives each B); for the DP classifiers
(dp-lr, dp-nb) the features are in their original units and meta gives the public 'lower'/'upper' bounds, the public
'classes' and the 'label' column. Nothing below reads a bound, a category list or a label set from the data.

Output per epsilon: the synthetic table (integer codes, same columns, same number of rows as train.csv) or, for a
classifier, the test rows' predicted probabilities (one column per public class) to --out with {eps} replaced.
One JSON line per fit on stdout: {"epsilon": ..., "seconds": ..., "cpu_seconds": ..., "out": ...} (wall and CPU time of the fit).
"""
import argparse, json, sys, time, warnings

import numpy as np
import pandas as pd


def fit_synth(kind, train, meta, eps, delta, seed):
    from snsynth import Synthesizer
    from snsynth.transform import TableTransformer, BinTransformer
    cols = list(train.columns)
    card = [int(meta['cardinality'][c]) for c in cols]
    # integer codes 0..B-1 mapped one-to-one to B bins: the domain is declared, never inferred from the rows
    tt = TableTransformer([BinTransformer(bins=b, lower=-0.5, upper=b - 0.5) for b in card])
    np.random.seed(seed)
    synth = Synthesizer.create(kind, epsilon=float(eps), delta=float(delta), verbose=False)
    synth.fit(train, transformer=tt, preprocessor_eps=0.0)
    out = synth.sample(len(train))
    out = pd.DataFrame(out, columns=cols) if not isinstance(out, pd.DataFrame) else out
    return out.round().astype(int).clip(lower=0, upper=np.array(card) - 1, axis=1)


def fit_classifier(kind, train, test, meta, eps, seed):
    import diffprivlib.models as dpm
    lab = meta['label']
    classes = np.asarray(meta['classes'])
    lo, hi = np.asarray(meta['lower'], float), np.asarray(meta['upper'], float)
    scale = lambda A: np.clip((A - lo) / (hi - lo), 0.0, 1.0)        # public-bounds scaling into the unit box
    X = scale(train.drop(columns=[lab]).to_numpy(float)); y = train[lab].to_numpy()
    Xt = scale(test.drop(columns=[lab], errors='ignore').to_numpy(float))
    rs = np.random.RandomState(seed)
    if kind == 'dp-lr':                        # objective perturbation (Chaudhuri et al.), pure ε-DP; rows centred, ‖x‖ ≤ √d/2
        d = X.shape[1]
        m = dpm.LogisticRegression(epsilon=float(eps), data_norm=float(np.sqrt(d) / 2), random_state=rs, max_iter=1000)
        X, Xt = X - 0.5, Xt - 0.5
    else:                                      # Gaussian naive Bayes with public bounds (unit box), pure ε-DP
        m = dpm.GaussianNB(epsilon=float(eps), bounds=(np.zeros(X.shape[1]), np.ones(X.shape[1])), random_state=rs)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m.fit(X, y)
        P = m.predict_proba(Xt)
    full = np.zeros((len(Xt), len(classes)))   # columns in the public class order (a class the model never saw gets 0)
    for j, c in enumerate(m.classes_): full[:, int(np.flatnonzero(classes == c)[0])] = P[:, j]
    return pd.DataFrame(full, columns=[str(c) for c in classes])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--method', required=True, choices=['mst', 'aim', 'dp-lr', 'dp-nb'])
    p.add_argument('--train', required=True)
    p.add_argument('--test', default=None, help='test features (classifiers only)')
    p.add_argument('--meta', required=True, help='JSON: cardinality (synthesisers) or lower/upper/classes/label (classifiers)')
    p.add_argument('--out', required=True, help='output path; {eps} is replaced by the epsilon')
    p.add_argument('--epsilon', nargs='+', type=float, required=True)
    p.add_argument('--delta', type=float, default=1e-5)
    p.add_argument('--seed', type=int, default=0, help='for the harness only; the peers draw their DP noise from fresh entropy')
    a = p.parse_args(argv)
    meta = json.load(open(a.meta))
    train = pd.read_csv(a.train)
    test = pd.read_csv(a.test) if a.test else None
    for eps in a.epsilon:
        t0, c0 = time.perf_counter(), time.process_time()
        if a.method in ('mst', 'aim'): out = fit_synth(a.method, train, meta, eps, a.delta, a.seed)
        else: out = fit_classifier(a.method, train, test, meta, eps, a.seed)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        path = a.out.replace('{eps}', f'{eps:g}')
        out.to_csv(path, index=False)
        print(json.dumps(dict(epsilon=eps, seconds=secs, cpu_seconds=cpu, out=path)), flush=True)


if __name__ == '__main__':
    main()
