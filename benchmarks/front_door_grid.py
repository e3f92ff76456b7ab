"""The front-door audit grid, case by case, one CSV row per case as it finishes (so a long run can be watched and resumed).

    python benchmarks/front_door_grid.py --part release   # release() for every private method, Dask layouts, controls, non-default options
    python benchmarks/front_door_grid.py --part cli --runs 30   # the command (a forked process per run) for every private method, and `CLI_OPTIONS`
    python benchmarks/front_door_grid.py --part fresh     # the command as a fresh interpreter (slow: a few cases)

The cases come from `dpnotes.front_door.front_door_cases` (the one list of methods, pairs, controls and options).
Rows: method, path, pair, control, runs, epsilon_lb, passes, statistic, seconds, params (JSON of the non-default method
parameters, empty at defaults), rows (of the front-door table). A case passes when its 95 % lower bound on ε stays at or
below the claimed ε = 1; a control passes the grid when its bound exceeds it (it must be caught).
"""
import argparse, csv, json
from pathlib import Path
from dpnotes.audit import FRONT_KINDS
from dpnotes.front_door import FrontCase, audit_front_door, front_door_cases

DPSYN_CLI_PAIRS = ('label', 'missing_cell', 'text_1e999', 'unknown_category')   # DP-SYN trains at full default settings on the command (15-30 s a run)

def cases(part):
    if part == 'release':     # every pair on release() and one Dask layout; the pair 'layout' on the four; controls; options
        return (front_door_cases(paths=('release', 'dask:empty_last'), controls=False, options=False)
                + front_door_cases(paths=('dask:empty', 'dask:one_row', 'dask:split'), kinds=(), controls=False, options=False)
                + front_door_cases(paths=()))
    if part == 'cli':
        first = ('missing_cell', 'label', 'text_1e999', 'unknown_category')     # pairs in rounds, so a partial run covers every method
        kinds = list(first) + [k for k in FRONT_KINDS if k not in first]
        out = [c for c in front_door_cases(paths=('cli',), kinds=kinds, controls=False, options=False) if c.method != 'dp-syn']
        out.sort(key=lambda c: kinds.index(c.pair))                  # stable: every method on a pair before the next pair
        per = len({c.method for c in out})
        opts = [c for c in front_door_cases(paths=('cli',), kinds=kinds, controls=False) if c.params and c.path == 'cli']   # `CLI_OPTIONS`
        return out[:4 * per] + [FrontCase('dp-syn', 'cli', k, runs=30) for k in DPSYN_CLI_PAIRS] + out[4 * per:] + opts
    if part == 'fresh': return [FrontCase('suffstat-gauss', 'cli:fresh', k, runs=30) for k in ('label', 'text_1e999')]
    raise SystemExit(f"--part must be release, cli or fresh, got {part!r}")

def _key(c: FrontCase) -> tuple:
    return (c.method, c.path, c.pair, c.control or '', json.dumps(c.params) if c.params else '', str(c.rows))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--part', required=True); ap.add_argument('--runs', type=int, default=40)
    ap.add_argument('--out', default=None, help='CSV to append to (default data/results/front_door_<part>.csv)')
    a = ap.parse_args(argv)
    out = Path(a.out or f'data/results/front_door_{a.part}.csv')
    done = set()
    if out.is_file():
        done = {(r['method'], r['path'], r['pair'], r['control'], r.get('params') or '', r.get('rows') or '24')
                for r in csv.DictReader(out.open())}
    new = not out.is_file()
    with out.open('a', newline='') as fh:
        w = csv.writer(fh, lineterminator='\n')
        if new: w.writerow(['method', 'path', 'pair', 'control', 'runs', 'epsilon_lb', 'passes', 'statistic', 'seconds', 'params', 'rows'])
        for c in cases(a.part):
            if _key(c) in done: continue
            n = c.runs or a.runs
            res = audit_front_door(c.method, c.path, c.pair, n, control=c.control, rng=c.seed(0), rows=c.rows, **c.params)
            ok = res.passes(1.0) if c.control is None else not res.passes(1.0)
            w.writerow([c.method, c.path, c.pair, c.control or '', n, round(res.epsilon_lb, 3), ok, res.statistic,
                        round(res.seconds, 1), _key(c)[4], c.rows]); fh.flush()
            print(f"{c.method:15s} {c.path:16s} {c.pair:17s} {c.control or '':28s} {_key(c)[4]:40s} lb={res.epsilon_lb:.3f} "
                  f"{'ok' if ok else 'FAIL'} {res.seconds:.0f}s", flush=True)

if __name__ == '__main__': main()
