"""The `dpnotes` console script: bad input exits with code 2 and one line naming the problem, the input file is
never modified, and every command's happy path works."""
import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from dpnotes.cli import main


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
    base = ['release', csv, '-o', out, '--schema', sj, '--seed', 0, '--no-report']
    empty = d / 'empty.csv'; empty.write_text('age,income,sex,city,y\n')
    blank = d / 'blank.csv'; blank.write_text('')
    notjson = d / 'bad.json'; notjson.write_text('{"columns": ')
    onecls = _schema_variant(d, schema, 'one.json', lambda s: s['columns']['y'].update(categories=['no']))
    nocat = _schema_variant(d, schema, 'nocat.json', lambda s: s['columns']['city'].update(categories=['A', 'B']))
    nocol = _schema_variant(d, schema, 'nocol.json', lambda s: s['columns'].pop('income'))
    badb = _schema_variant(d, schema, 'badb.json', lambda s: s['columns']['age'].update(lower=90, upper=18))
    drafted = _schema_variant(d, schema, 'drafted.json', lambda s: s['columns']['age'].update(drafted=True))
    strnum = _schema_variant(d, schema, 'strnum.json', lambda s: s['columns'].update(sex={'kind': 'numeric', 'lower': 0, 'upper': 1}))
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
        (['release', csv, '-o', out, '-e', 1, '--schema', nocat], "'city'"),
        (['release', csv, '-o', out, '-e', 1, '--schema', nocol], "'income'"),
        (['release', csv, '-o', out, '-e', 1, '--schema', badb], "'age'"),
        (['release', csv, '-o', out, '-e', 1, '--schema', strnum], "'sex'"),
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
    for cmd in ('release', 'methods', 'schema', 'report', 'reproduce'):
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
    code, _, err = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', d / 'draft.json', '--no-report')
    assert code == 2 and 'drafted' in err
    code, out, _ = run(capsys, 'release', csv, '-o', d / 'o.csv', '-e', 1, '--schema', d / 'draft.json', '--no-report',
                       '--allow-drafted', '-m', 'ron-gauss', '--seed', 1)
    assert code == 0 and (d / 'o.csv').exists()


def test_release_mixed_table(table, capsys):
    csv, sj, schema, d = table
    before = digest(csv)
    out = d / 'rel.csv'
    code, text, err = run(capsys, 'release', csv, '-o', out, '-m', 'ron-gauss', '-e', 2, '--schema', sj, '--seed', 3)
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
