"""The `dpnotes` console script: bad input exits with code 2 and one line naming the problem, the input file is
never modified, and every command's happy path works."""
import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from dpnotes.cli import main
from dpnotes.data import as_schema, output_decimals


def run(capsys, *args):
    "Run the CLI in-process; returns (exit code, stdout, stderr)."
    try:
        main([str(a) for a in args]); code = 0
    except SystemExit as e:
        code = e.code
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def table(tmp_path):
    "A small mixed-type CSV (integers, floats with missing cells, two categorical columns, a string label) and its reviewed schema."
    g = np.random.default_rng(0); n = 80
    df = pd.DataFrame({'age': g.integers(18, 90, n), 'income': g.gamma(2.0, 20000.0, n).round(2),
                       'sex': g.choice(['F', 'M'], n), 'city': g.choice(['A', 'B', 'C'], n), 'y': g.choice(['no', 'yes'], n)})
    df.loc[[2, 7], 'income'] = np.nan
    csv = tmp_path / 'people.csv'; df.to_csv(csv, index=False)
    schema = {'dpnotes_schema': 1, 'label': 'y', 'columns': {
        'age': {'kind': 'integer', 'lower': 18, 'upper': 90}, 'income': {'kind': 'numeric', 'lower': 0, 'upper': 300000},
        'sex': {'kind': 'categorical', 'categories': ['F', 'M']}, 'city': {'kind': 'categorical', 'categories': ['A', 'B', 'C']},
        'y': {'kind': 'categorical', 'categories': ['no', 'yes']}}}
    sj = tmp_path / 'schema.json'; sj.write_text(json.dumps(schema))
    return csv, sj, schema, tmp_path


def _schema_variant(tmp_path, schema, name, change):
    s = json.loads(json.dumps(schema)); change(s)
    p = tmp_path / name; p.write_text(json.dumps(s)); return p


def bad_cases(csv, sj, schema, d):
    "(arguments, a word the one-line message must contain) for each bad input."
    out = d / 'out.csv'
    base = ['release', csv, '-o', out, '--schema', sj, '--seed', 0]
    empty = d / 'empty.csv'; empty.write_text('age,income,sex,city,y\n')
    blank = d / 'blank.csv'; blank.write_text('')
    notjson = d / 'bad.json'; notjson.write_text('{"columns": ')
    onecls = _schema_variant(d, schema, 'one.json', lambda s: s['columns']['y'].update(categories=['no']))
    nocol = _schema_variant(d, schema, 'nocol.json', lambda s: s['columns'].pop('income'))
    badb = _schema_variant(d, schema, 'badb.json', lambda s: s['columns']['age'].update(lower=90, upper=18))
    drafted = _schema_variant(d, schema, 'drafted.json', lambda s: s['columns']['age'].update(drafted=True))
    return [
        (['release', d / 'missing.csv', '-o', out, '-e', 1, '--schema', sj], 'not found'),
        (base + ['-m', 'nope', '-e', 1], "'nope'"),
        (base + ['-e', 0], 'epsilon'),
        (base + ['-e', -1], 'epsilon'),
        (base + ['-e', 'abc'], 'epsilon'),
        (base + ['-e', 1, '--delta', 0], 'delta'),
        (base + ['-e', 1, '--delta', 1.5], 'delta'),
        (base + ['-e', 1, '--label', 'nope'], "'nope'"),
        (['release', csv, '-o', out, '-e', 1, '--schema', d / 'none.json'], 'schema'),
        (['release', csv, '-o', out, '-e', 1, '--schema', notjson], 'JSON'),
        (['release', csv, '-o', out, '-e', 1, '--schema', nocol], "'income'"),
        (['release', csv, '-o', out, '-e', 1, '--schema', badb], "'age'"),
        (['release', csv, '-o', out, '-e', 1, '--schema', onecls], 'two'),
        (['release', csv, '-o', out, '-e', 1, '--schema', drafted], 'drafted'),
        (['release', csv, '-o', out, '-e', 1], '--schema'),
        (['release', empty, '-o', out, '-e', 1, '--schema', sj], 'empty'),
        (['release', blank, '-o', out, '-e', 1, '--schema', sj], 'blank.csv'),
        (['release', csv, '-o', csv, '-e', 1, '--schema', sj], 'overwrite'),
        (['release', csv, '-o', d / 'out.txt', '-e', 1, '--schema', sj], '.csv'),
        (base + ['-e', 1, '--sampler', 'nope'], 'sampler'),
        (base + ['-e', 1, '--rows', 0], 'rows'),
        (['release', csv, '-e', 1, '--schema', sj], "'-o'"),
        (['frobnicate'], 'frobnicate'),
        (['schema', d / 'missing.csv', '-o', d / 's.json'], 'not found'),
        (['schema', csv, '-o', d / 's.json', '--categorical', 'nope'], "'nope'"),
        (['report', csv, d / 'missing.csv', '-o', d / 'r.png'], 'not found'),
        (['report', csv, csv, '-o', d / 'r.pdf'], '.png'),
        (['report', csv, csv, '-o', d / 'r.png', '--label', 'nope'], "'nope'"),
    ]


def test_bad_input_exits_2_with_one_line(table, capsys):
    csv, sj, schema, d = table
    before = digest(csv)
    cases = bad_cases(csv, sj, schema, d)
    assert len(cases) >= 15
    for args, word in cases:
        code, out, err = run(capsys, *args)
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.endswith('…')]
        assert code == 2, (args, code, out, err)
        assert len(lines) == 1 and lines[0].startswith('error: '), (args, err)
        assert 'Traceback' not in err + out, (args, err)
        assert word.lower() in lines[0].lower(), (args, word, lines[0])
        assert digest(csv) == before, args
    assert not (d / 'out.csv').exists()


def test_methods(capsys):
    code, out, err = run(capsys, 'methods')
    assert code == 0 and 'ron-gauss-paper' in out and 'dprp' in out and 'original_units' in out


def test_help_has_an_example_per_command(capsys):
    for cmd in ('release', 'methods', 'schema', 'check', 'report', 'reproduce'):
        code, out, _ = run(capsys, cmd, '--help')
        assert code == 0 and 'Example:' in out and f'dpnotes {cmd}' in out, (cmd, out)


def test_schema_drafts_and_flags(table, capsys):
    csv, sj, schema, d = table
    before = digest(csv)
    code, out, err = run(capsys, 'schema', csv, '-o', d / 'draft.json', '--label', 'y')
    assert code == 0 and 'drafted' in out
    s = json.loads((d / 'draft.json').read_text())
    assert s['label'] == 'y' and set(s['columns']) == {'age', 'income', 'sex', 'city', 'y'}
    assert all(c.get('drafted') for c in s['columns'].values()) and 'NOT private' in s['note'] or 'not private' in s['note']
    assert digest(csv) == before
    # a drafted schema is refused by release, unless explicitly allowed (teaching only)
    code, _, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', d / 'draft.json')
    assert code == 2 and 'drafted' in err
    code, out, _ = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', d / 'draft.json',
                       '--allow-drafted', '-m', 'ron-gauss', '--seed', 1)
    assert code == 0 and (d / 'o.csv').exists()


def test_release_mixed_table(table, capsys):
    csv, sj, schema, d = table
    before = digest(csv)
    out = d / 'rel.csv'
    code, text, err = run(capsys, 'release', csv, '-o', out, '-m', 'ron-gauss', '-e', 2, '--schema', sj, '--seed', 3, '--summary')
    assert code == 0, err
    rel, real = pd.read_csv(out), pd.read_csv(csv)
    assert list(rel.columns) == list(real.columns) and len(rel) == len(real)
    assert rel['age'].dtype.kind == 'i' and rel['age'].between(18, 90).all()
    assert set(rel['sex']) <= {'F', 'M'} and set(rel['y']) <= {'no', 'yes'}
    assert 'privacy ledger' in text and 'TSTR' in text and 'majority rate' in text
    assert digest(csv) == before


def test_release_shipped_wdbc_with_report(tmp_path, capsys):
    out = tmp_path / 'wdbc_dp.csv'
    code, text, err = run(capsys, 'release', 'wdbc', '-o', out, '-m', 'dprp', '-e', 1, '--seed', 0)
    assert code == 0, err
    rel = pd.read_csv(out)
    assert rel.shape == (569, 31) and 'target' in rel and set(rel['target']) <= {0, 1}
    led = text[text.index('privacy ledger'):]
    assert 'spent ε=1 of 1' in led
    # the report command on the same files: PNG and self-contained HTML
    from dpnotes.data import load_dataset
    ds = load_dataset('wdbc'); real = ds.X.copy(); real['target'] = ds.y
    rp = tmp_path / 'real.csv'; real.to_csv(rp, index=False)
    for name in ('r.png', 'r.html'):
        code, text, err = run(capsys, 'report', rp, out, '--label', 'target', '-o', tmp_path / name, '--seed', 0)
        assert code == 0, err
        assert 'TSTR' in text and (tmp_path / name).stat().st_size > 1000


def test_release_not_original_units_says_so(table, capsys):
    csv, sj, schema, d = table
    code, text, err = run(capsys, 'release', csv, '-o', d / 'jl.csv', '-m', 'jl-laplace', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0, err
    assert "NOT the input's units" in text
    rel = pd.read_csv(d / 'jl.csv')
    assert not set(rel.columns) & {'age', 'income', 'sex', 'city'}
    code, text, err = run(capsys, 'release', csv, '-o', d / 'p.csv', '-m', 'ron-gauss-paper', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and 'NOT differentially private' in text


def test_installed_entry_point(tmp_path):
    "The console script `dpnotes` (after `pip install -e .`): same behaviour as `main` through a real process."
    import shutil, subprocess
    exe = shutil.which('dpnotes')
    if exe is None: pytest.skip('the dpnotes console script is not installed (pip install -e .)')
    r = subprocess.run([exe, 'methods'], capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and 'No module named' in r.stderr: pytest.skip('the installed dpnotes is an older version without the CLI')
    assert r.returncode == 0 and 'dprp' in r.stdout
    r = subprocess.run([exe, 'release', 'wdbc', '-o', str(tmp_path / 'o.csv'), '-e', '0'], capture_output=True, text=True, timeout=300)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.endswith('…')]
    assert r.returncode == 2 and len(lines) == 1 and 'epsilon' in lines[0] and 'Traceback' not in r.stderr


# --- dpnotes reproduce -------------------------------------------------------------------------------------------------

def test_reproduce_list_shows_every_registered_experiment(capsys):
    from dpnotes.reproduce import experiments
    code, text, err = run(capsys, 'reproduce', '--list')
    assert code == 0, err
    reg = experiments()
    assert len(reg) >= 11
    for name, paper in zip(reg.name, reg.paper):
        assert name in text and paper.split()[0] in text


def test_reproduce_small_run_writes_csv_and_png(tmp_path, capsys):
    "The cheapest items regenerate their CSV (and figure) into a fresh folder in seconds; the same seed gives the same table."
    import time
    t0 = time.perf_counter()
    code, text, err = run(capsys, 'reproduce', 'jl-table1', '-o', tmp_path / 'out', '--seed', 3)
    assert code == 0, err
    t = pd.read_csv(tmp_path / 'out' / 'jl-table1.csv')
    assert list(t.columns) == ['mechanism', 'd', 'k', 'mean', 'std', 'count'] and len(t) == 16
    assert t['mean'].between(0.5, 1).all() and 'seed 3' in text and 'wrote' in text
    code, text, err = run(capsys, 'reproduce', 'jl-fig4', '-o', tmp_path / 'out', '--seed', 3)
    assert code == 0, err
    assert (tmp_path / 'out' / 'jl-fig4.png').stat().st_size > 1000 and (tmp_path / 'out' / 'jl-fig4.csv').exists()
    assert time.perf_counter() - t0 < 60
    first = (tmp_path / 'out' / 'jl-table1.csv').read_text()
    run(capsys, 'reproduce', 'jl-table1', '-o', tmp_path / 'out', '--seed', 3)
    assert (tmp_path / 'out' / 'jl-table1.csv').read_text() == first


@pytest.mark.parametrize('args, word', [
    (['reproduce', 'dprp-table9'], 'jl-table1'),          # an unknown name lists the valid ones
    (['reproduce'], '--list'),
    (['reproduce', 'jl-fig4', '--seed', '-1'], 'seed'),
])
def test_reproduce_bad_input_exits_2_with_one_line(args, word, tmp_path, capsys):
    code, text, err = run(capsys, *args)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and word in lines[0], (code, err)


def test_reproduce_output_must_be_a_folder(tmp_path, capsys):
    f = tmp_path / 'a_file.csv'; f.write_text('x\n1\n')
    code, text, err = run(capsys, 'reproduce', 'jl-fig4', '-o', f)
    assert code == 2 and 'folder' in err and f.read_text() == 'x\n1\n'


# --- what a release prints is a function of public inputs and released values only ------------------------------------

def _edit_cell(csv, d, row, col, value, name):
    "A replace-one neighbour of the CSV: one cell of data row `row` set to the text `value`."
    lines = csv.read_text().splitlines()
    head = lines[0].split(','); cells = lines[row + 1].split(','); cells[head.index(col)] = value
    lines[row + 1] = ','.join(cells)
    p = d / name; p.write_text('\n'.join(lines) + '\n'); return p


NEIGHBOURS = [('age', '200'), ('age', '-5'), ('age', 'abc'), ('age', 'inf'), ('age', '1e999'), ('age', ''), ('age', '40.5'),
              ('income', 'NaN'), ('income', '-inf'), ('sex', 'X'), ('sex', ''), ('city', 'Z'), ('city', '?')]


def test_release_output_text_and_exit_do_not_depend_on_a_cell(table, capsys):
    "Neighbours that differ in one cell (outside the domain, not a number, infinite, missing, unknown category) give the same exit status and text."
    csv, sj, schema, d = table
    seen = {}
    for i, (col, val) in enumerate(NEIGHBOURS):
        p = _edit_cell(csv, d, 4, col, val, f'n{i}.csv')
        code, out, err = run(capsys, 'release', p, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
        seen.setdefault((code, out.replace(str(p), 'IN'), err.replace(str(p), 'IN')), []).append((col, val))
        if code == 0:
            rel = pd.read_csv(d / 'o.csv')
            assert list(rel.columns) == ['age', 'income', 'sex', 'city', 'y']
    assert len(seen) == 1, list(seen.values())
    (code, out, err), = seen
    assert code == 0 and 'privacy ledger' in out
    assert 'TSTR' not in out and 'majority' not in out           # nothing computed from the real rows by default


def test_label_cell_neighbours_give_the_same_text(table, capsys):
    "A missing or undeclared label is mapped by release()'s public rule: the same exit status and text as its neighbour."
    from dpnotes.release import release
    csv, sj, schema, d = table
    probe = pd.DataFrame({'age': [30, 40], 'income': [1.0, 2.0], 'sex': ['F', 'M'], 'city': ['A', 'B'], 'y': ['no', None]})
    try: release(probe, 'suffstat-gauss', 1.0, schema=sj, rng=0)
    except ValueError: pytest.skip("this release() still refuses a missing label (the public label rule comes with the front-door change)")
    seen = set()
    for i, val in enumerate(['yes', 'no', '', 'maybe']):
        p = _edit_cell(csv, d, 4, 'y', val, f'l{i}.csv')
        code, out, err = run(capsys, 'release', p, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
        seen.add((code, out.replace(str(p), 'IN'), err.replace(str(p), 'IN')))
    assert len(seen) == 1 and list(seen)[0][0] == 0


def test_release_prints_no_real_statistics_unless_asked(table, capsys):
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and 'TSTR' not in out and 'utility' not in out.lower()
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0, '--summary')
    assert code == 0 and 'TSTR' in out
    head = out[out.index('utility summary'):].splitlines()[0]
    assert 'NOT PRIVATE' in head and 'real rows' in head


def test_a_refusal_inside_the_release_is_withheld(table, capsys, monkeypatch):
    "Should release() ever refuse on the data, the command prints one fixed line: no value, no count."
    import dpnotes.cli as cli
    def leaky(*a, **k): raise ValueError("column 'age': 3 value(s) outside the bounds (e.g. 1234)")
    monkeypatch.setattr(cli, 'release', leaky)
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj)
    assert code == 2 and '1234' not in err and '3 value' not in err and 'withheld' in err
    assert not (d / 'o.csv').exists()


def test_check_lists_what_falls_outside_and_says_not_private(table, capsys):
    csv, sj, schema, d = table
    p = _edit_cell(csv, d, 4, 'age', '200', 'bad.csv')
    p = _edit_cell(p, d, 6, 'city', 'Z', 'bad2.csv')
    code, out, err = run(capsys, 'check', p, '--schema', sj)
    assert code == 1 and out.startswith('NOT PRIVATE') and out.rstrip().endswith('release.')
    assert "'200' x1" in out and "'Z' x1" in out and 'clipped to the bound' in out and 'read as missing' in out
    code, out, err = run(capsys, 'check', csv, '--schema', sj)
    assert code == 0 and 'NOT PRIVATE' in out
    rag = d / 'rag.csv'; rag.write_text(csv.read_text() + '1,2\n')
    code, out, err = run(capsys, 'check', rag, '--schema', sj)
    assert code == 1 and 'lines with fewer than 5 fields' in out and str(len(csv.read_text().splitlines()) + 1) in out
    code, out, err = run(capsys, 'check', d / 'none.csv', '--schema', sj)
    assert code == 2 and 'not found' in err


# --- the command guides the user --------------------------------------------------------------------------------------

def test_default_method_is_the_registrys(table, capsys):
    "The command's default is `dpnotes.registry.DEFAULT_METHOD` (decision D26), shown in its help and used without -m."
    from dpnotes.cli import DEFAULT_METHOD
    from dpnotes.registry import DEFAULT_METHOD as REGISTRY_DEFAULT
    assert DEFAULT_METHOD == REGISTRY_DEFAULT == 'copula-gauss'
    code, out, _ = run(capsys, 'release', '--help')
    assert f'--method {DEFAULT_METHOD}' in ' '.join(out.split()) and 'dprp' not in out.split('Example:')[1]
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and 'zCDP' in out and 'copula' in out
    assert all('copula_min_rows' in ln for ln in err.splitlines() if 'warning' in ln)   # only the size rule may warn


def test_paper_method_at_the_majority_rate_warns_with_numbers(table, capsys):
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-m', 'dprp', '-e', 1, '--schema', sj, '--seed', 0)
    warn = [l for l in err.splitlines() if l.startswith('warning:')]
    assert code == 0 and len(warn) == 1
    assert 'dprp: on wdbc at ε=1' in warn[0] and 'accuracy 0.45' in warn[0] and 'majority rate of 0.63' in warn[0]
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-m', 'ron-gauss', '-e', 8, '--schema', sj, '--seed', 0)
    assert code == 0 and 'warning: ron-gauss: on wdbc at ε=8' in err


def test_benchmark_constants_match_the_measured_table():
    "The constants in dpnotes.cli are the numbers of data/results/bench_methods.csv (when the repository is at hand)."
    from pathlib import Path
    from dpnotes.cli import BENCHMARK
    f = Path(__file__).resolve().parents[1] / 'data' / 'results' / 'bench_methods.csv'
    if not f.exists(): pytest.skip('no data/results/bench_methods.csv beside the tests')
    t = pd.read_csv(f)
    names = {'dprp': 'DPRP', 'ron-gauss': 'RON-Gauss', 'pca-gauss': 'PCA-Gauss', 'dp-syn': 'DP-SYN', 'suffstat-gauss': 'SuffStatGauss'}
    for (m, e), rows in BENCHMARK.items():
        for ds, (acc, maj) in rows.items():
            r = t[(t.method == names[m]) & (t.epsilon == e) & (t.dataset == ds)].iloc[0]
            assert abs(r.accuracy - acc) < 6e-4 and abs(r.majority - maj) < 6e-4, (m, e, ds)


def test_label_keeps_the_input_column_order(tmp_path, capsys):
    g = np.random.default_rng(2); n = 60
    df = pd.DataFrame({'y': g.choice(['a', 'b'], n), 'x1': g.uniform(0, 1, n), 'x2': g.uniform(0, 1, n)})
    csv = tmp_path / 't.csv'; df.to_csv(csv, index=False)
    sj = tmp_path / 's.json'; sj.write_text(json.dumps({'dpnotes_schema': 1, 'columns': {   # the schema in another order
        'x1': {'kind': 'numeric', 'lower': 0, 'upper': 1}, 'x2': {'kind': 'numeric', 'lower': 0, 'upper': 1},
        'y': {'kind': 'categorical', 'categories': ['a', 'b']}}}))
    code, out, err = run(capsys, 'release', csv, '-o', tmp_path / 'o.csv', '-e', 1, '--schema', sj, '--label', 'y', '--seed', 0)
    assert code == 0, err
    assert list(pd.read_csv(tmp_path / 'o.csv').columns) == ['y', 'x1', 'x2']
    code, out, err = run(capsys, 'schema', csv, '-o', tmp_path / 'd.json', '--label', 'y')
    assert code == 0 and list(json.loads((tmp_path / 'd.json').read_text())['columns']) == ['y', 'x1', 'x2']


def test_output_that_is_a_link_to_the_input_is_refused(table, capsys):
    import os
    csv, sj, schema, d = table
    before = digest(csv)
    hard = d / 'hard.csv'; os.link(csv, hard)
    soft = d / 'soft.csv'; os.symlink(csv, soft)
    for alias in (hard, soft):
        code, out, err = run(capsys, 'release', csv, '-o', alias, '-e', 1, '--schema', sj)
        assert code == 2 and 'overwrite' in err, (alias, err)
        code, out, err = run(capsys, 'release', alias, '-o', csv, '-e', 1, '--schema', sj)
        assert code == 2 and 'overwrite' in err
    assert digest(csv) == before


def test_messages_name_the_fix(table, capsys):
    csv, sj, schema, d = table
    ynum = _schema_variant(d, schema, 'ynum.json', lambda s: s['columns'].update(y={'kind': 'numeric', 'lower': 0, 'upper': 1}))
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', ynum)
    assert code == 2 and 'classes=' not in err and '"kind": "categorical"' in err and '"categories"' in err
    rag = d / 'rag.csv'; rag.write_text(csv.read_text() + '1,2\n')     # a short record is a row with missing cells (#36)
    code, out, err = run(capsys, 'release', rag, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and 'error' not in err and len(pd.read_csv(d / 'o.csv')) == len(pd.read_csv(csv)) + 1
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1e-300, '--schema', sj)
    assert code == 2 and '1e-300' in err and '0.0' not in err
    dup = d / 'dup.csv'; dup.write_text('age,age,sex,city,y\n30,31,F,A,no\n')
    code, out, err = run(capsys, 'release', dup, '-o', d / 'o.csv', '-e', 1, '--schema', sj)
    assert code == 2 and 'duplicated column names' in err


def test_extra_schema_column_is_refused(table, capsys):
    csv, sj, schema, d = table
    extra = _schema_variant(d, schema, 'extra.json', lambda s: s['columns'].update(bmi={'kind': 'numeric', 'lower': 10, 'upper': 60}))
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', extra)
    lines = [l for l in err.splitlines() if l.startswith('error')]
    assert code == 2 and len(lines) == 1 and "'bmi'" in lines[0] and 'schema' in lines[0]


def test_inf_follows_the_python_rule(table, capsys):
    "A file with inf and 1e999 is released, and the command's output equals release() on the same rows read by the schema."
    from dpnotes.data import read_by_schema
    from dpnotes.release import release
    csv, sj, schema, d = table
    p = _edit_cell(_edit_cell(csv, d, 3, 'income', 'inf', 'i1.csv'), d, 5, 'age', '-1e999', 'i2.csv')
    code, out, err = run(capsys, 'release', p, '-o', d / 'o.csv', '-m', 'ron-gauss', '-e', 1, '--schema', sj, '--seed', 7)
    assert code == 0, err
    r = release(read_by_schema(p, sj), 'ron-gauss', 1.0, schema=sj, rng=7, sampler='safe')
    py = r.data.copy()                                   # the command writes each column at the schema's precision
    for c in py.columns:
        k = output_decimals(as_schema(sj).columns[c]) if as_schema(sj).columns[c].kind != 'categorical' else None
        if k is not None: py[c] = np.round(py[c].astype(float), k) + 0.0
    py.to_csv(d / 'py.csv', index=False)
    pd.testing.assert_frame_equal(pd.read_csv(d / 'o.csv'), pd.read_csv(d / 'py.csv'), check_dtype=False)


def test_release_written_at_public_precision(table, capsys):
    "The release is written at the schema's decimals (declared, or the rule from the bounds), labels unquoted, in memory and on Dask."
    from dpnotes.moments import have_dask
    csv, sj, schema, d = table
    dec = _schema_variant(d, schema, 'dec.json', lambda s: s['columns']['income'].update(decimals=2))
    for extra in ([], ['--dask', '-m', 'dprp']) if have_dask() else ([],):
        code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', dec, '--seed', 3, *extra)
        assert code == 0, err
        text = (d / 'o.csv').read_text()
        assert '"' not in text and len(text) < 1.2 * csv.stat().st_size, (extra, len(text))
        back = pd.read_csv(d / 'o.csv', dtype=str, keep_default_na=False)
        assert back['income'].str.fullmatch(r'(-?\d+(\.\d{1,2})?)?').all(), (extra, back['income'].head())
        assert back['income'].str.contains(r'\.[1-9]|\.\d[1-9]').any()          # the declared 2, not the rule's 0
        assert back['age'].str.fullmatch(r'\d*').all() and set(back['y']) <= {'no', 'yes'}


def test_missing_value_rule_is_shown(table, capsys):
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and any(l.startswith('missing') and 'values: ' in l for l in out.splitlines())
    assert 'out of domain:' in out and 'clipped to the bounds' in out
    code, out, err = run(capsys, 'schema', csv, '-o', d / 'd.json')
    assert code == 0 and 'reads as missing' in out
    code, out, err = run(capsys, 'release', '--help')
    assert 'missing-value rule' in ' '.join(out.split())


def test_report_note_names_the_option(table, capsys):
    csv, sj, schema, d = table
    run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    code, out, err = run(capsys, 'report', csv, d / 'o.csv', '--label', 'y', '-o', d / 'r.png', '--seed', 0)
    assert code == 0, err
    assert 'real_test=' not in out and '--test' in out


def test_dry_run_reads_no_data(table, capsys, monkeypatch):
    import dpnotes.cli as cli
    def no(*a, **k): raise AssertionError('the dry run read the table')
    monkeypatch.setattr(cli, 'read_by_schema', no); monkeypatch.setattr(cli, 'read_input', no)
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '--dry-run', '-e', 1, '--schema', sj, '--input-rows', 1000)
    assert code == 0 and out.startswith('DRY RUN — no data read') and 'copula-gauss' in out, err   # the default
    ss = ('-m', 'suffstat-gauss')                         # the method with an analytic forecast
    code, out, err = run(capsys, 'release', csv, '--dry-run', '-e', 1, '--schema', sj, '--input-rows', 1000, *ss)
    assert code == 0, err
    assert out.startswith('DRY RUN — no data read') and 'privacy ledger' in out and 'n=1,000' in out
    assert 'class mean' in out and 'income' in out and not (d / 'o.csv').exists()
    code, out, err = run(capsys, 'release', csv, '--dry-run', '-e', 1, '--schema', sj, *ss)
    assert code == 0 and 'n=100' in out and 'n=100,000' in out
    code, out, err = run(capsys, 'release', csv, '--dry-run', '-e', 1, '--schema', sj, '-m', 'dprp', '--input-rows', 80)
    assert code == 0 and 'ledger only' in out and 'warning: dprp' in err


def test_release_on_dask_from_a_glob(table, capsys):
    "--dask: a glob of CSV parts read by the schema on Dask, released, and written partition by partition into one file."
    pytest.importorskip('dask', reason='--dask needs the optional extra: pip install "dpnotes[dask]"')
    csv, sj, schema, d = table
    real = pd.read_csv(csv)
    (d / 'parts').mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(real)), 3)): real.iloc[part].to_csv(d / 'parts' / f'p{i}.csv', index=False)
    code, out, err = run(capsys, 'release', d / 'parts' / 'p*.csv', '-o', d / 'dk.csv', '-e', 1, '--schema', sj, '--dask', '--seed', 0)
    assert code == 0, err
    rel = pd.read_csv(d / 'dk.csv')
    assert rel.shape == real.shape and list(rel.columns) == list(real.columns) and f'{len(real)} rows' in out
    assert rel['age'].dtype.kind == 'i' and rel['age'].between(18, 90).all() and set(rel['city']) <= {'A', 'B', 'C'}
    code, out, err = run(capsys, 'release', d / 'parts' / 'p*.csv', '-o', d / 'dk.csv', '-e', 1, '--schema', sj, '--dask', '-m', 'pca-gauss')
    assert code == 2 and 'does not run on Dask' in err
    code, out, err = run(capsys, 'release', d / 'parts' / 'p*.csv', '-o', d / 'dk.csv', '-e', 1, '--schema', sj, '--dask', '-m', 'dprp', '--rows', 5)
    assert code == 2 and '--rows' in err
    code, out, err = run(capsys, 'release', d / 'parts' / 'q*.csv', '-o', d / 'dk.csv', '-e', 1, '--schema', sj, '--dask')
    assert code == 2 and 'no such file' in err


def test_no_warning_escapes_while_the_rows_are_touched(table, capsys, monkeypatch):
    "A warning raised inside the release (it could name a value) is neither printed nor passed on."
    import warnings
    import dpnotes.cli as cli
    real = cli.release
    def chatty(*a, **k):
        warnings.warn("column 'age' holds 1234 (a private value)", RuntimeWarning)
        return real(*a, **k)
    monkeypatch.setattr(cli, 'release', chatty)
    csv, sj, schema, d = table
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter('always')
        code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and '1234' not in out + err and not [w for w in seen if '1234' in str(w.message)]


# --- issue #36: drafting real files, and a drafted release marked NOT PRIVATE everywhere ------------------------------

def test_schema_help_lists_the_column_kinds(capsys):
    code, out, err = run(capsys, 'schema', '--help')
    assert code == 0 and all(k in out for k in ('numeric', 'integer', 'categorical'))


def test_schema_flags_identifiers_and_dates_and_a_decimal_comma(tmp_path, capsys):
    import codecs
    rows = ['id;seen;height;pay;y'] + [f'{i + 1};{1 + i % 28:02d}/03/2024;"1,{60 + i}";"{1 + i % 3}.{100 + i:03d},50";{"ab"[i % 2]}'
                                        for i in range(20)]
    f = tmp_path / 'export.csv'; f.write_bytes(codecs.BOM_UTF8 + '\r\n'.join(rows).encode() + b'\r\n')
    code, out, err = run(capsys, 'schema', f, '-o', tmp_path / 's.json', '--label', 'y')
    assert code == 0, err
    s = json.loads((tmp_path / 's.json').read_text(encoding='utf-8'))
    assert s['skip'] == ['id', 'seen'] and set(s['columns']) == {'height', 'pay', 'y'}
    assert (s['delimiter'], s['decimal'], s['thousands']) == (';', ',', '.') and s['columns']['pay']['upper'] == 3117.5
    assert "'id': looks like an identifier" in out and "'seen': looks like a date" in out


def test_drafted_release_is_marked_not_private(table, capsys):
    csv, sj, schema, d = table
    run(capsys, 'schema', csv, '-o', d / 'draft.json', '--label', 'y')
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', d / 'draft.json', '--allow-drafted', '--seed', 0)
    side = d / 'o.csv.NOT-PRIVATE.txt'
    assert code == 0 and out.startswith('NOT PRIVATE') and '— NOT PRIVATE' in out.splitlines()[1]
    assert side.read_text().startswith('NOT PRIVATE') and 'drafted' in side.read_text()
    assert pd.read_csv(d / 'o.csv').shape == pd.read_csv(csv).shape           # the CSV stays a plain CSV
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--seed', 0)
    assert code == 0 and 'NOT PRIVATE' not in out and not side.exists()         # a stale mark is removed


def test_partition_rows_only_with_dask(table, capsys):
    csv, sj, schema, d = table
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--partition-rows', 8)
    assert code == 2 and '--partition-rows' in err
    code, out, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', sj, '--dask', '--partition-rows', 8, '--seed', 0, '-m', 'dprp')
    assert code == 0 and '10/10 partitions' in err and len(pd.read_csv(d / 'o.csv')) == 80


def test_the_shipped_benchmark_summary_is_the_stored_rows():
    """The command's benchmark numbers are read from `dpnotes/datasets/benchmark_accuracy.json`, which must hold
    exactly the stored rows of `data/results/bench_methods.csv` (the papers' methods and suffstat-gauss, ε = 1 and 8):
    refresh it with the two lines in this test when the benchmark is re-run."""
    import csv, json
    from pathlib import Path
    from dpnotes.cli import BENCHMARK, benchmark_summary
    root = Path(__file__).resolve().parents[1]
    with (root / 'data' / 'results' / 'bench_methods.csv').open() as fh: stored = benchmark_summary(csv.DictReader(fh))
    assert BENCHMARK == stored and len(stored) == 10
    assert stored[('suffstat-gauss', 1)]['wdbc'] == (0.911, 0.632)
