"""The command line on a table larger than it needs to hold: `dpnotes release --dask` on a generated CSV of n rows
(d numeric columns, default 50, in the public box [0, 10] written with 3 decimals, and a two-class label), timed with
`/usr/bin/time -v` for the wall time and the peak resident memory of the whole command (the Dask threads included).

The floor measured in the same run is one read of the same file by the same reader (`read_by_schema_dask`, typed by
the schema) reduced to the column sums: a release reads the rows at least once. The CSV and the release are written
under --dir (default /tmp) and deleted afterwards. Not a test. Usage:
    nice -n 10 python benchmarks/cli_big.py [--n 1e7] [--d 50] [--dir /tmp] [--write]
(--write merges the row into data/results/cli_big.csv).

With --mixed, the table is the issue's kind instead (#36): n rows of 8 numeric columns (bounds [0, 100], written with
2 decimals), 3 integer and 3 categorical columns and a two-class label, each feature cell missing with probability
5 %; the commands `schema`, `check`, `release` (default method, in memory) and `report` are each timed under
`/usr/bin/time -v`, and the release's size is compared with the input's. Usage:
    nice -n 10 python benchmarks/cli_big.py --mixed --n 2e6 [--dir /tmp] [--write] [--keep] [--only schema,check]
(--write merges one row per command into data/results/cli_big.csv, marked with the git commit or --tag; run it
with PYTHONPATH set to another checkout to measure that checkout's `dpnotes`).
"""
import argparse, json, os, re, shutil, subprocess, sys, time
from pathlib import Path
import numpy as np
import pandas as pd

D = 50                      # numeric columns (--d)
COLS = [f'x{j}' for j in range(D)]


def set_width(d: int):
    global D, COLS
    D, COLS = d, [f'x{j}' for j in range(d)]
CHUNK = 250_000


def write_csv(path: Path, n: int):
    """n rows written chunk by chunk through Arrow's CSV writer (never more than CHUNK rows in memory): two Gaussian
    classes in the box [0, 10], each value written with 3 decimals (as the text of an integer number of thousandths,
    shifted into place, so that the file is written at disk speed rather than at float-formatting speed)."""
    import pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as pcsv
    g = np.random.default_rng(0)
    with open(path, 'wb') as f:
        f.write((','.join(COLS + ['y']) + '\n').encode())
        for s in range(0, n, CHUNK):
            m = min(CHUNK, n - s)
            y = g.integers(0, 2, m)
            X = np.clip(5.0 + (y[:, None] - 0.5) * np.linspace(-1, 1, D) + 1.5 * g.standard_normal((m, D)), 0, 10)
            milli = np.rint(X * 1000).astype(np.int64)                     # 0 … 10000 thousandths
            cols = [pc.binary_join_element_wise(pc.cast(pa.array(milli[:, j] // 1000), pa.string()),
                                                pc.utf8_lpad(pc.cast(pa.array(milli[:, j] % 1000), pa.string()), 3, '0'), '.')
                    for j in range(D)]
            cols.append(pa.array(np.where(y == 1, 'b', 'a')))
            pcsv.write_csv(pa.Table.from_arrays(cols, names=COLS + ['y']), f,
                           pcsv.WriteOptions(include_header=False, quoting_style='none'))


def write_schema(path: Path):
    cols = {c: {'kind': 'numeric', 'lower': 0, 'upper': 10} for c in COLS}
    cols['y'] = {'kind': 'categorical', 'categories': ['a', 'b']}
    path.write_text(json.dumps({'dpnotes_schema': 1, 'label': 'y', 'columns': cols}))


def read_floor(csv: Path, schema: Path) -> float:
    "Seconds of one pass of the same reader over the file (typed by the schema, reduced to column sums)."
    from dpnotes.data import read_by_schema_dask
    t0 = time.perf_counter()
    read_by_schema_dask(csv, str(schema))[COLS].sum().compute()
    return time.perf_counter() - t0


def timed_release(csv: Path, schema: Path, out: Path) -> dict:
    "Wall seconds, peak RSS (MB) and exit status of `dpnotes release --dask` under /usr/bin/time -v."
    cmd = ['/usr/bin/time', '-v', shutil.which('dpnotes') or 'dpnotes', 'release', str(csv), '-o', str(out), '-e', '1',
           '--schema', str(schema), '--dask', '--seed', '0']
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    rss = re.search(r'Maximum resident set size \(kbytes\): (\d+)', p.stderr)
    if p.returncode: print(p.stdout[-2000:], p.stderr[-3000:], file=sys.stderr)
    return dict(seconds=wall, peak_mb=int(rss.group(1)) / 1024 if rss else float('nan'), exit=p.returncode)


def main(n: int, where: str, write: bool):
    d = Path(where) / f'dpnotes_cli_big_{os.getpid()}'
    d.mkdir(parents=True)
    try:
        csv, sj, out = d / 'big.csv', d / 'schema.json', d / 'released.csv'
        t0 = time.perf_counter(); write_csv(csv, n); t_gen = time.perf_counter() - t0
        write_schema(sj)
        gb = csv.stat().st_size / 2**30
        print(f"generated {n} rows, {gb:.2f} GiB in {t_gen:.0f}s", flush=True)
        t_read = read_floor(csv, sj)
        print(f"floor (one typed read of the file): {t_read:.1f}s", flush=True)
        r = timed_release(csv, sj, out)
        n_out = sum(1 for _ in open(out, 'rb')) - 1 if out.exists() else 0
        row = dict(n=n, d=D, csv_gib=round(gb, 3), read_pass_s=t_read, release_s=r['seconds'],
                   ratio_to_read=r['seconds'] / t_read, peak_rss_mb=r['peak_mb'], rows_written=n_out, exit=r['exit'])
        print(', '.join(f'{k}={v:.4g}' if isinstance(v, float) else f'{k}={v}' for k, v in row.items()), flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if write:
        dest = Path(__file__).resolve().parents[1] / 'data' / 'results' / 'cli_big.csv'
        new = pd.DataFrame([row])
        if dest.exists():
            old = pd.read_csv(dest)
            new = pd.concat([old[(old['n'] != n) | (old['d'] != D)], new], ignore_index=True)
        new.to_csv(dest, index=False, float_format='%.4g')
        print(f"wrote {dest}")


NUM, INT, CAT = [f'num{j}' for j in range(8)], ['age', 'visits', 'score'], ['region', 'plan', 'code']
LEVELS = {'region': ['north', 'south', 'east', 'west', 'central'], 'plan': ['basic', 'plus', 'premium'],
          'code': [f'c{j}' for j in range(10)]}


def write_mixed_csv(path: Path, n: int, p_missing: float = 0.05):
    "The issue's kind of table, written chunk by chunk through Arrow (unquoted; a missing cell empty)."
    import pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as pcsv
    g = np.random.default_rng(1)
    names = NUM + INT + CAT + ['y']
    with open(path, 'wb') as f:
        f.write((','.join(names) + '\n').encode())
        for s in range(0, n, CHUNK):
            m = min(CHUNK, n - s)
            y = g.integers(0, 2, m)
            cols = []
            for j in range(len(NUM)):
                cent = np.rint(np.clip(50 + 10 * (y - 0.5) * (j % 3) + 15 * g.standard_normal(m), 0, 100) * 100)
                cent = cent.astype(np.int64)
                cols.append(pc.binary_join_element_wise(pc.cast(pa.array(cent // 100), pa.string()),
                            pc.utf8_lpad(pc.cast(pa.array(cent % 100), pa.string()), 2, '0'), '.'))
            for c, hi in zip(INT, (90, 30, 120)):
                cols.append(pc.cast(pa.array(g.integers(0, hi + 1, m)), pa.string()))
            for c in CAT:
                cols.append(pa.array(np.array(LEVELS[c])[g.integers(0, len(LEVELS[c]), m)]))
            miss = g.random((m, len(cols))) < p_missing
            cols = [pc.if_else(pa.array(miss[:, k]), pa.scalar(None, pa.string()), col) for k, col in enumerate(cols)]
            cols.append(pa.array(np.where(y == 1, 'yes', 'no')))
            pcsv.write_csv(pa.Table.from_arrays(cols, names=names), f,
                           pcsv.WriteOptions(include_header=False, quoting_style='none'))


def write_mixed_schema(path: Path):
    cols = {c: {'kind': 'numeric', 'lower': 0, 'upper': 100} for c in NUM}
    cols.update({c: {'kind': 'integer', 'lower': 0, 'upper': hi} for c, hi in zip(INT, (90, 30, 120))})
    cols.update({c: {'kind': 'categorical', 'categories': LEVELS[c]} for c in CAT})
    cols['y'] = {'kind': 'categorical', 'categories': ['no', 'yes']}
    path.write_text(json.dumps({'dpnotes_schema': 1, 'label': 'y', 'columns': cols}))


def timed(args: list) -> dict:
    "Wall seconds, peak RSS (MB) and exit status of one `dpnotes` command under /usr/bin/time -v."
    t0 = time.perf_counter()
    p = subprocess.run(['/usr/bin/time', '-v', shutil.which('dpnotes') or 'dpnotes', *map(str, args)],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    rss = re.search(r'Maximum resident set size \(kbytes\): (\d+)', p.stderr)
    if p.returncode not in (0, 1): print(p.stdout[-1500:], p.stderr[-2500:], file=sys.stderr)
    return dict(seconds=wall, peak_rss_mb=int(rss.group(1)) / 1024 if rss else float('nan'), exit=p.returncode)


def main_mixed(n: int, where: str, write: bool, keep: bool, only, tag=None):
    "Each command on the generated mixed table; one row per command."
    d = Path(where) / f'dpnotes_cli_mixed_{n}'
    d.mkdir(parents=True, exist_ok=True)
    csv, sj, out = d / 'big.csv', d / 'schema.json', d / 'released.csv'
    if not csv.exists():
        t0 = time.perf_counter(); write_mixed_csv(csv, n)
        print(f"generated {n} rows, {csv.stat().st_size / 2**20:.0f} MiB in {time.perf_counter() - t0:.0f}s", flush=True)
    write_mixed_schema(sj)
    runs = {'schema': ['schema', csv, '-o', d / 'drafted.json', '--label', 'y'],
            'check': ['check', csv, '--schema', sj],
            'release': ['release', csv, '-o', out, '-e', 1, '--schema', sj, '--seed', 0],
            'report': ['report', csv, out, '-o', d / 'report.html', '--label', 'y', '--seed', 0]}
    commit = tag or subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True,
                                   cwd=Path(__file__).parent).stdout.strip()
    rows = []
    try:
        for cmd, args in runs.items():
            if only and cmd not in only: continue
            r = timed(args)
            ratio = out.stat().st_size / csv.stat().st_size if cmd == 'release' and out.exists() else float('nan')
            rows.append(dict(n=n, d=len(NUM + INT + CAT), csv_gib=round(csv.stat().st_size / 2**30, 3), command=cmd,
                             seconds=r['seconds'], peak_rss_mb=r['peak_rss_mb'], out_ratio=ratio, exit=r['exit'],
                             commit=commit))
            print(', '.join(f'{k}={v:.4g}' if isinstance(v, float) else f'{k}={v}' for k, v in rows[-1].items()),
                  flush=True)
    finally:
        if not keep: shutil.rmtree(d, ignore_errors=True)
    if write and rows:
        dest = Path(__file__).resolve().parents[1] / 'data' / 'results' / 'cli_big.csv'
        old = pd.read_csv(dest)
        if 'command' not in old: old['command'] = 'release --dask'
        new = pd.DataFrame(rows)
        key = lambda f: list(zip(f['n'], f['command'], f.get('commit', pd.Series([''] * len(f)))))
        old = old[[k not in set(key(new)) for k in key(old)]]
        both = pd.concat([old, new], ignore_index=True)
        if 'rows_written' in both: both['rows_written'] = both['rows_written'].astype('Int64')
        both.to_csv(dest, index=False, float_format='%.4g')
        print(f"wrote {dest}")

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--n', type=float, default=1e7); p.add_argument('--d', type=int, default=50)
    p.add_argument('--dir', default='/tmp'); p.add_argument('--write', action='store_true')
    p.add_argument('--mixed', action='store_true'); p.add_argument('--keep', action='store_true')
    p.add_argument('--only', default=None, help='with --mixed: comma-separated commands to run')
    p.add_argument('--tag', default=None, help="with --mixed: the code measured (default: this checkout's commit)")
    a = p.parse_args()
    set_width(a.d)
    if a.mixed: main_mixed(int(a.n), a.dir, a.write, a.keep, None if a.only is None else a.only.split(','), a.tag)
    else: main(int(a.n), a.dir, a.write)
