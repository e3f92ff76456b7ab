"""The front-door audit grid, case by case, one CSV row per case as it finishes (so a long run can be watched and resumed).

    python benchmarks/front_door_grid.py --part release   # release() for every private method, Dask layouts, controls
    python benchmarks/front_door_grid.py --part cli --runs 30   # the command (a forked process per run) for every private method
    python benchmarks/front_door_grid.py --part fresh     # the command as a fresh interpreter (slow: a few cases)

Rows: method, path, pair, control, epsilon_lb, passes, statistic, seconds. A case passes when its 95 % lower bound on ε
stays at or below the claimed ε = 1; a control passes the grid when its bound exceeds it (it must be caught).
"""
import argparse, csv, sys, time, zlib
from pathlib import Path
from dpnotes.audit import FRONT_KINDS, CONTROL_CASES, CONTROL_RUNS, LAYOUTS, audit_front_door
from dpnotes.release import methods

def cases(part):
    M = methods(); names = list(M.index[M['private']])
    if part == 'release':
        out = [(m, 'release', k, None, None) for m in names for k in FRONT_KINDS]
        for m in names:
            if not M.loc[m, 'dask']: continue
            out += [(m, 'dask:empty_last', k, None, None) for k in FRONT_KINDS]
            out += [(m, f'dask:{lay}', 'layout', None, None) for lay in ('empty', 'one_row', 'split', 'empty_last')]
        out += [('suffstat-gauss', p, k, c, CONTROL_RUNS.get(c)) for c, (k, p) in CONTROL_CASES.items()]
        return out
    if part == 'cli':     # DP-SYN trains its generator at full default settings on the command (about 10 s a run): one pair
        first = ('missing_cell', 'label', 'text_1e999', 'unknown_category')     # pairs in rounds, so a partial run covers every method
        kinds = list(first) + [k for k in FRONT_KINDS if k not in first]
        out = [(m, 'cli', k, None, None) for k in kinds for m in names if m != 'dp-syn']
        return out[:4 * (len(names) - 1)] + [('dp-syn', 'cli', 'label', None, 30)] + out[4 * (len(names) - 1):]
    if part == 'fresh': return [('suffstat-gauss', 'cli:fresh', k, None, 30) for k in ('label', 'text_1e999')]
    raise SystemExit(f"--part must be release, cli or fresh, got {part!r}")

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--part', required=True); ap.add_argument('--runs', type=int, default=40)
    ap.add_argument('--out', default=None, help='CSV to append to (default data/results/front_door_<part>.csv)')
    a = ap.parse_args(argv)
    out = Path(a.out or f'data/results/front_door_{a.part}.csv')
    done = set()
    if out.is_file():
        done = {(r['method'], r['path'], r['pair'], r['control']) for r in csv.DictReader(out.open())}
    new = not out.is_file()
    with out.open('a', newline='') as fh:
        w = csv.writer(fh)
        if new: w.writerow(['method', 'path', 'pair', 'control', 'runs', 'epsilon_lb', 'passes', 'statistic', 'seconds'])
        for m, p, k, c, runs in cases(a.part):
            if (m, p, k, c or '') in done: continue
            n = runs or a.runs
            res = audit_front_door(m, p, k, n, control=c, rng=zlib.crc32(f'0|{m}|{p}|{k}|{c}'.encode()))
            ok = res.passes(1.0) if c is None else not res.passes(1.0)
            w.writerow([m, p, k, c or '', n, round(res.epsilon_lb, 3), ok, res.statistic, round(res.seconds, 1)]); fh.flush()
            print(f"{m:15s} {p:16s} {k:17s} {c or '':28s} lb={res.epsilon_lb:.3f} {'ok' if ok else 'FAIL'} {res.seconds:.0f}s", flush=True)

if __name__ == '__main__': main()
