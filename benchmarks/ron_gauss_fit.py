"""RON-Gauss fit time on Twitter-sized synthetic data, relative to X^T X measured in the same run.

Usage: python benchmarks/ron_gauss_fit.py [--n 573820] [--m 77] [--repeats 3]
Prints, for several (task, p), min-of-repeats fit time / min-of-repeats time of X.T @ X. Target: <= 1.5.
"""
import argparse, time
import numpy as np
from dpnotes.gauss import RONGauss


def best_time(fn, repeats):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=573_820)
    ap.add_argument('--m', type=int, default=77)
    ap.add_argument('--repeats', type=int, default=3)
    a = ap.parse_args()
    g = np.random.default_rng(0)
    # Twitter-like: correlated, skewed non-negative counts plus a bounded target
    X = np.abs(g.standard_normal((a.n, a.m)) @ g.standard_normal((a.m, a.m)) / np.sqrt(a.m)) ** 1.5
    y = np.tanh(X[:, :3].sum(1) - 2.0)
    t_gram = best_time(lambda: X.T @ X, a.repeats)
    print(f"n={a.n} m={a.m}: X^T X {t_gram * 1e3:.1f} ms (min of {a.repeats})")
    for task, p in (('unsupervised', 4), ('regression', 4), ('regression', 10), ('unsupervised', 77)):
        t_fit = best_time(lambda: RONGauss(p, task=task, rng=1).fit(X, y if task == 'regression' else None), a.repeats)
        print(f"RON-Gauss fit task={task:<12} p={p:<3} {t_fit * 1e3:8.1f} ms   ratio fit / X^T X = {t_fit / t_gram:.2f}")


if __name__ == '__main__':
    main()
