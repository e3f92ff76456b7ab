"""Repository hygiene, checked the way nbdev's own CI checks it.

* notebooks are clean: `nbdev-clean` changes nothing in nbs/;
* the library is exported: `nbdev-export` changes nothing in dpnotes/;
  (both run on a temporary copy of the repository, so a working tree is never modified);
* one Quarto configuration: `_quarto.yml` is valid YAML and `nbs/_quarto.yml` resolves to it;
* every notebook exports a module (`#| default_exp`), except the home page and the errata page;
* README.md is what `python docs/build.py readme` makes from nbs/index.ipynb;
* the notebooks passed `nbdev-test` (run by `tools/test.sh` just before pytest, result read here).
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT / 'nbs'
LIB = ROOT / 'dpnotes'
BIN = Path(sys.executable).parent  # nbdev's commands live next to the interpreter running pytest
NO_MODULE = {'index', '03_evaluate_reference', '05_moments_speed', '24_gaussian_release_audits', '25_suffstat_gauss_budget',
             '26_copula_experiments', '26_copula_options', '30_dfm_effect_experiments', '50_dp_syn_accounting',
             '50_dp_syn_audits', '80_benchmark_neighbours', '91_paper_review', '92_decisions'}  # notebooks that need no `default_exp`, besides the errata page (name contains "errata")


def notebooks() -> list[Path]:
    return sorted(p for p in NBS.glob('*.ipynb') if not p.name.startswith(('_', '.')))


def _tool(name: str) -> str:
    exe = BIN / name
    return str(exe) if exe.exists() else (shutil.which(name) or pytest.fail(f'{name} not found (pip install -e ".[dev]")'))


@pytest.fixture(scope='module')
def repo_copy(tmp_path_factory) -> Path:
    "The files nbdev reads, copied (symlinks kept) into a temporary folder."
    dst = tmp_path_factory.mktemp('repo')
    for name in ('pyproject.toml', '_quarto.yml'):
        shutil.copy2(ROOT / name, dst / name)
    ignore = shutil.ignore_patterns('__pycache__', '.ipynb_checkpoints', '*.pyc')
    shutil.copytree(NBS, dst / 'nbs', symlinks=True, ignore=ignore)
    shutil.copytree(LIB, dst / 'dpnotes', symlinks=True, ignore=ignore)
    return dst


def _snapshot(folder: Path, pattern: str) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob(pattern))
            if '.ipynb_checkpoints' not in p.parts and '__pycache__' not in p.parts}


def _diff(before: dict, after: dict) -> list[str]:
    changed = [k for k in before if k in after and before[k] != after[k]]
    return ([f'changed: {k}' for k in changed] + [f'created: {k}' for k in after if k not in before]
            + [f'deleted: {k}' for k in before if k not in after])


def _run(cmd, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


def _leaves_no_diff(repo, tool, folder, pattern):
    "Run an nbdev `tool` in `repo` and return the files under `folder` it changed."
    before = _snapshot(repo / folder, pattern)
    r = _run([_tool(tool)], repo)
    assert r.returncode == 0, f'{tool} failed:\n{r.stdout}\n{r.stderr}'
    return _diff(before, _snapshot(repo / folder, pattern))


def test_notebooks_are_clean(repo_copy):
    "`nbdev-clean` leaves no diff: notebooks carry no outputs, execution counts or stray metadata."
    diff = _leaves_no_diff(repo_copy, 'nbdev-clean', 'nbs', '*.ipynb')
    assert not diff, 'nbdev-clean changes notebooks; run `nbdev-clean` and commit:\n' + '\n'.join(diff)


def test_library_is_exported(repo_copy):
    "`nbdev-export` leaves no diff in dpnotes/: the modules are what the notebooks export."
    diff = _leaves_no_diff(repo_copy, 'nbdev-export', 'dpnotes', '*.py')
    assert not diff, 'dpnotes/ differs from the notebooks; run `nbdev-export` and commit:\n' + '\n'.join(diff)


def test_one_quarto_config():
    cfg = yaml.safe_load((ROOT / '_quarto.yml').read_text())
    assert isinstance(cfg, dict) and cfg.get('project', {}).get('type') == 'website', '_quarto.yml: not a Quarto website'
    link = NBS / '_quarto.yml'
    assert link.exists(), 'nbs/_quarto.yml is missing (nbdev reads it)'
    assert link.is_symlink() and link.resolve() == (ROOT / '_quarto.yml').resolve(), \
        'nbs/_quarto.yml must be a symbolic link to the top-level _quarto.yml (one source of truth)'


def test_every_notebook_exports_a_module():
    assert notebooks(), 'no notebooks in nbs/'
    pat = re.compile(r'^\s*#\s*\|\s*default_exp\s+\S+', re.M)
    missing = []
    for nb in notebooks():
        if nb.stem in NO_MODULE or 'errata' in nb.stem: continue
        cells = json.loads(nb.read_text())['cells']
        src = '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'code')
        if not pat.search(src): missing.append(nb.name)
    assert not missing, f'notebooks without `#| default_exp`: {missing}'


def test_readme_is_up_to_date():
    "README.md is generated from nbs/index.ipynb (offline, by docs/build.py; nbdev-readme needs Quarto)."
    r = _run([sys.executable, str(ROOT / 'docs' / 'build.py'), 'readme', '--check'], ROOT)
    out = r.stdout if len(r.stdout) < 4000 else r.stdout[:1500] + '\n[...]\n' + r.stdout[-1500:]
    assert r.returncode == 0, f'{out}\n{r.stderr[-4000:]}'


def test_notebooks_pass_nbdev_test():
    "The result of `nbdev-test` over all notebooks, which tools/test.sh runs just before pytest."
    rc = os.environ.get('DPNOTES_NBDEV_TEST_RC')
    if rc is None: pytest.skip('nbdev-test runs in tools/test.sh (the test command), not inside this pytest run')
    log = Path(os.environ.get('DPNOTES_NBDEV_TEST_LOG', '/nonexistent'))
    out = log.read_text() if log.exists() else '(no log)'
    failed = re.findall(r'^\s+(\S+\.ipynb)\s*$', out.split('Failed On The Following Notebooks:')[-1], re.M) \
        if 'Failed On' in out else []
    assert rc == '0', (f'nbdev-test exited with {rc}; failing notebooks: {failed or "see log"}\n'
                       f'log: {log}\n' + out[-6000:])


# ----------------------------------------------------------------------------- docs/build.py's cleaning step
def _build():
    import importlib.util
    spec = importlib.util.spec_from_file_location('dpnotes_docs_build', ROOT / 'docs' / 'build.py')
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_docs_build_cleaning():
    "The rewriting docs/build.py applies before Sphinx (nbdev directives, Quarto-only markup, page names)."
    b = _build()
    assert b.page_name('00_privacy') == 'privacy' and b.page_name('index') == 'index'
    assert b.split_directives('#| export\n#| echo: false\nx = 1  #| not a directive') == \
        ({'export': '', 'echo': 'false'}, 'x = 1  #| not a directive')
    assert b.split_directives('#|default_exp privacy\n') == ({'default_exp': 'privacy'}, '')
    md = '---\n\n[source](https://x/y.py#L3){target="_blank" style="float:right"}\n\n### f\n\n*Doc $b$.*'
    assert b.clean_show_doc_md(md) == '[source](https://x/y.py#L3)\n\n### f\n\n*Doc $b$.*'
    b.PAGES.update({'00_privacy': 'privacy', 'privacy': 'privacy'})
    assert b.clean_markdown('see [p](privacy.html#budget), [q](00_privacy.ipynb), [r](https://a.b/c.html)') == \
        'see [p](./privacy.ipynb#budget), [q](./privacy.ipynb), [r](https://a.b/c.html)'
    assert b.clean_markdown('::: {.callout-warning}\nx\n:::') == ':::{warning}\nx\n:::'
    code = lambda src, outs=(): {'cell_type': 'code', 'source': src, 'metadata': {}, 'outputs': list(outs)}
    nb = {'metadata': {}, 'nbformat': 4, 'nbformat_minor': 5, 'cells': [
        code('#| hide\nimport secret'), code('#| default_exp privacy'), code('#| exporti\ndef _h(): pass'),
        code('#| export\ndef f(): pass'), code('#| echo: false\nprint(1)'), code('show_doc(f)'),
        code('w', [{'output_type': 'display_data', 'metadata': {},
                    'data': {'text/plain': 'IntSlider()', 'application/vnd.jupyter.widget-view+json': {}}}])]}
    cells = b.clean_notebook(nb)['cells']
    assert [c['source'] for c in cells] == ['def f(): pass', 'print(1)', 'show_doc(f)', 'w']
    assert cells[1]['metadata']['tags'] == ['remove-input'] and cells[2]['metadata']['tags'] == ['remove-input']
    assert cells[3]['outputs'][0]['data'] == {'text/markdown': b.WIDGET_NOTE}
    assert all(c.get('id') for c in cells)
    assert nb['cells'][0]['source'] == '#| hide\nimport secret', 'the input notebook was modified'


def test_docs_build_tables():
    "Pipes inside code spans and math of a table row no longer split its cells; outside tables nothing changes."
    b = _build()
    md = ('| what | command |\n|---|---|\n| slow cells (`#| slow`) | `a \\| b` |\n'
          '| norm | $\\|x\\|_2 \\le |y|$ |\n\nprose $\\|x\\|$ and `#| slow`')
    out = b.fix_tables(md)
    assert out.splitlines()[2] == '| slow cells (`#\\| slow`) | `a \\| b` |'
    assert out.splitlines()[3] == '| norm | $\\Vert x\\Vert _2 \\le \\vert y\\vert $ |'
    assert out.splitlines()[-1] == 'prose $\\|x\\|$ and `#| slow`', 'text outside tables was rewritten'
    fenced = '```\n| a | `b|c` |\n|---|---|\n```'
    assert b.fix_tables(fenced) == fenced, 'a table inside fenced code was rewritten'
    from markdown_it import MarkdownIt
    html = MarkdownIt('commonmark').enable('table').render(out)
    assert '<code>#| slow</code>' in html and html.count('<td>') == 4, html


def test_docs_build_show_doc_and_fold(tmp_path):
    "A cell with two `show_doc` calls (and one in a loop) gives one API entry each, with nbdev's anchors; folding."
    nb = {'nbformat': 4, 'nbformat_minor': 5, 'metadata': {}, 'cells': [
        {'cell_type': 'code', 'id': 'a', 'metadata': {}, 'outputs': [], 'execution_count': None,
         'source': 'class K:\n    "Doc K."\n    def m(self): "Doc m."\n    def n(self): "Doc n."\n'
                   'def f(a): "Doc f."\ndef g(b): "Doc g."'},
        {'cell_type': 'code', 'id': 'b', 'metadata': {}, 'outputs': [], 'execution_count': None,
         'source': 'show_doc(f); show_doc(g)'},
        {'cell_type': 'code', 'id': 'c', 'metadata': {}, 'outputs': [], 'execution_count': None,
         'source': 'show_doc(K)\nfor m in (K.m, K.n): show_doc(m)'},
        {'cell_type': 'code', 'id': 'd', 'metadata': {}, 'outputs': [], 'execution_count': None,
         'source': '#| code-fold: true\n#| code-summary: "Plot setup"\nimport matplotlib.pyplot as plt\n'
                   'fig, ax = plt.subplots(figsize=(4, 2)); ax.plot([0, 1], label="line"); ax.legend(fontsize=7)'}]}
    src, dst = tmp_path / 'nbs' / '05_fixture.ipynb', tmp_path / 'fixture.ipynb'
    src.parent.mkdir()
    src.write_text(json.dumps(nb))
    r = _run([sys.executable, str(ROOT / 'docs' / 'build.py'), 'exec-one', str(src), str(dst), '--cwd', str(src.parent)], ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(dst.read_text())
    mds = [o['data']['text/markdown'] for c in out['cells'] for o in c.get('outputs', []) if 'text/markdown' in o.get('data', {})]
    anchors = [re.search(r'id="([^"]+)"', m).group(1) for m in mds]
    assert anchors == ['f', 'g', 'k', 'k.m', 'k.n'], anchors
    assert all(f'### {n}' in m for n, m in zip(['f', 'g', 'K', 'K.m', 'K.n'], mds))
    cells = {c['id']: c for c in out['cells']}
    assert cells['b']['source'] == 'show_doc(f); show_doc(g)', 'the page must show the source as written'
    assert cells['d']['metadata']['tags'] == ['hide-input']
    assert cells['d']['metadata']['mystnb']['code_prompt_show'] == 'Plot setup'
    figs = out['metadata']['dpnotes']['figures']
    assert len(figs) == 1 and figs[0]['min_font_pt'] == 7 and figs[0]['px_per_pt'] > 0, figs
    assert not any(FIG_KEY_LEFT in json.dumps(o.get('metadata', {})) for c in out['cells'] for o in c.get('outputs', []))


FIG_KEY_LEFT = '"dpnotes"'


# ----------------------------------------------------------------------------- package docstring and llms.txt
FORBIDDEN = re.compile(r'seed 0\d\d|\(issue \d+\)|issue #\d+', re.I)


def test_package_docs_are_generated(tmp_path):
    """`dpnotes/__init__.py`'s docstring and `nbs/llms.txt` are what `nbdev-export` generates from the notebooks
    (each module's line is its notebook's description, the `> ...` under the title): fix the notebook, re-export."""
    for name in ('pyproject.toml', '_quarto.yml'): shutil.copy2(ROOT / name, tmp_path / name)
    ignore = shutil.ignore_patterns('__pycache__', '.ipynb_checkpoints', '*.pyc')
    shutil.copytree(NBS, tmp_path / 'nbs', symlinks=True, ignore=ignore)
    shutil.copytree(LIB, tmp_path / 'dpnotes', symlinks=True, ignore=ignore)
    # make both stale (keeping the rest of __init__.py), so that passing means nbdev-export regenerates them
    import ast
    init = (LIB / '__init__.py').read_text()
    doc = ast.parse(init).body[0]
    (tmp_path / 'dpnotes/__init__.py').write_text('"""stale"""\n' + ''.join(init.splitlines(True)[doc.end_lineno:]))
    (tmp_path / 'nbs/llms.txt').write_text('# stale\n\n<!-- Generated by nbdev-export; edit the index notebook, not this file -->\n')
    r = _run([_tool('nbdev-export')], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    for f in ('dpnotes/__init__.py', 'nbs/llms.txt'):
        assert (ROOT / f).read_text() == (tmp_path / f).read_text(), f'{f} is stale: run `nbdev-export` and commit it'


def test_package_docs_name_papers_by_authors():
    "The package docstring, llms.txt and module docstrings name papers by authors, not by file number or issue."
    import ast
    texts = {'nbs/llms.txt': (NBS / 'llms.txt').read_text()}
    for p in sorted(LIB.glob('*.py')):
        texts[f'dpnotes/{p.name}'] = ast.get_docstring(ast.parse(p.read_text())) or ''
    hits = [f'{f}: ...{t[max(0, m.start() - 50):m.end() + 10]}...' for f, t in texts.items() for m in FORBIDDEN.finditer(t)]
    assert not hits, ('fix the description of the notebook named, then `nbdev-export`:\n' + '\n'.join(hits))


def test_generated_sources_compile_without_warnings():
    """Every generated module compiles with warnings as errors: a page lead copied into the package docstring must not
    carry a TeX backslash that Python reads as an escape (`\\t` of `\\top` became a tab; `\\o` is an invalid escape)."""
    import warnings
    bad = []
    for f in sorted((ROOT / 'dpnotes').glob('*.py')):
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            try: compile(f.read_text(encoding='utf-8'), str(f), 'exec')
            except (SyntaxError, SyntaxWarning, DeprecationWarning) as e: bad.append(f'{f.name}: {e}')
    assert not bad, bad
    doc = (ROOT / 'dpnotes' / '__init__.py').read_text(encoding='utf-8').split('"""')[1]
    assert '\t' not in doc and '\\' not in doc, 'the package docstring holds a backslash or a tab (TeX in a page lead?)'


# ----------------------------------------------------------------------------- a failing page does not hide the others
def _toy_notebooks(folder: Path, cells: dict):
    import nbformat as nbf
    folder.mkdir(parents=True, exist_ok=True)
    for name, srcs in cells.items():
        nb = nbf.v4.new_notebook()
        nb.cells = [nbf.v4.new_markdown_cell(s[3:]) if s.startswith('md:') else nbf.v4.new_code_cell(s) for s in srcs]
        nbf.write(nb, folder / name)


def test_site_build_writes_every_page_and_names_failures(tmp_path):
    """`python docs/build.py site` on a toy site with one failing notebook: the other pages are written, the failed page
    says it did not build, the exit status is 1, the last line names the notebook, and dpnotes-build.json lists it."""
    nbs = tmp_path / 'nbs'
    _toy_notebooks(nbs, {'index.ipynb': ['md:# Toy\n\nA toy site.', '1 + 1'],
                         '01_good.ipynb': ['md:# Good page\n\nIt builds.', 'print("fine")'],
                         '02_bad.ipynb': ['md:# Bad page\n\nIt fails.', 'print("before")', 'raise ValueError("deliberate")']})
    r = _run([sys.executable, str(ROOT / 'docs' / 'build.py'), 'site', '--nbs', str(nbs), '--build-dir', str(tmp_path / 'b'),
              '--jobs', '1'], ROOT)
    html = tmp_path / 'b' / 'html'
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ''
    assert r.returncode == 1, f'exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}'
    assert 'SITE BUILD FAILED' in last and '02_bad.ipynb' in last and 'good' not in last, last
    for page in ('index', 'good', 'bad'): assert (html / f'{page}.html').exists(), f'{page}.html not written'
    assert 'This page did not build' in (html / 'bad.html').read_text() and 'fine' in (html / 'good.html').read_text()
    assert 'did not build' not in (html / 'good.html').read_text()
    test_eq_failed = json.loads((html / 'dpnotes-build.json').read_text())['failed']
    assert test_eq_failed == ['02_bad.ipynb'], test_eq_failed


def test_failed_page_without_output_gets_a_page(tmp_path):
    "A notebook that wrote no page (a timeout) still gets one: its title and the error box; the home page keeps its contents."
    b = _build()
    b.set_build_dir(tmp_path / 'b'); b.SRC.mkdir(parents=True)
    _toy_notebooks(tmp_path / 'nbs', {'index.ipynb': ['md:# Toy'], '01_slow.ipynb': ['md:# Slow']})
    page = json.loads(b.mark_failed_page(tmp_path / 'nbs' / '01_slow.ipynb', 'timed out after 5 s').read_text())
    assert [c['source'][:2] for c in page['cells']] == ['# ', '::'] and 'timed out after 5 s' in page['cells'][1]['source']
    home = json.loads(b.mark_failed_page(tmp_path / 'nbs' / 'index.ipynb', 'exit status 1').read_text())
    assert '{toctree}' in home['cells'][-1]['source'] and 'slow' in home['cells'][-1]['source']
    again = json.loads(b.mark_failed_page(tmp_path / 'nbs' / '01_slow.ipynb', 'exit status 1').read_text())
    assert sum('did not build' in c['source'] for c in again['cells']) == 1        # marked once, however often


# ----------------------------------------------------------------------------- floating point on any CPU
SIMD_OFF = subprocess.run([sys.executable, str(ROOT / '.ci' / 'simd_features.py')], capture_output=True, text=True).stdout.strip()


def test_simd_restriction_names_are_accepted():
    "The names .ci/run passes in NPY_DISABLE_CPU_FEATURES are ones this NumPy dispatches to, and NumPy accepts them."
    assert SIMD_OFF, 'no dispatched CPU features found'
    r = subprocess.run([sys.executable, '-W', 'error', '-c', 'import numpy'], capture_output=True, text=True,
                       env={**os.environ, 'NPY_DISABLE_CPU_FEATURES': SIMD_OFF})
    assert r.returncode == 0 and 'cannot disable' not in r.stderr, r.stderr[-2000:]
    ci = (ROOT / '.ci' / 'run').read_text()
    assert re.search(r'NPY_DISABLE_CPU_FEATURES="\$simd_off" nbdev-test nbs/00_privacy\.ipynb', ci), 'CI does not rerun the privacy notebook'


def _cell(nb: str, cell_id: str) -> str:
    cells = [c for c in json.loads((NBS / nb).read_text())['cells'] if c.get('id') == cell_id]
    assert cells, f'{nb}: no cell {cell_id}'
    return ''.join(cells[0]['source'])


@pytest.mark.parametrize('simd', ['default', 'restricted'])
def test_laplace_replay_is_exact_on_either_code_path(simd):
    """00_privacy's replay of NumPy's Laplace sampler (the first part of its attack cell) gives NumPy's doubles bit for bit,
    with NumPy's SIMD dispatch as it is and restricted to the baseline: the replay uses the sampler's own arithmetic."""
    # the replay's two cells (libm's log, then the sampler's arithmetic), as the notebook runs them
    src = _cell('00_privacy.ipynb', 'd9b584bf') + '\n' + _cell('00_privacy.ipynb', '94834b89').split('def numpy_reachable')[0]
    assert 'np.log(' not in src, 'the replay must call the C library\'s scalar log, as the sampler does, not the SIMD np.log'
    code = ('import math, numpy as np\n' + src + '\nraw = np.random.default_rng(11).bit_generator.random_raw(200_000)\n'
            'got = numpy_laplace_noise_of(raw >> np.uint64(11), 1.0)\n'
            'want = np.random.default_rng(11).laplace(0.0, 1.0, 200_000)\n'
            'assert np.array_equal(got, want), int((got != want).sum())\n')
    env = {**os.environ, **({'NPY_DISABLE_CPU_FEATURES': SIMD_OFF} if simd == 'restricted' else {})}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]


# ----------------------------------------------------------------------------- running a notebook leaves the clone clean
WRITE = re.compile(r'\.(to_csv|to_parquet|to_json|savefig|write_text|write_bytes)\(|\bopen\([^)]*[\'"][wa]b?[\'"]|json\.dump\(')
INTO_REPO = re.compile(r'\bresults_path\(|\.\./data\b|data/results|\bRESULTS\b|data_root\(')
# notebooks of other owners whose `#| slow` cells still write into data/ (to be moved to `slow_result_path`); the test
# fails for any notebook not listed here, so the list can only shrink
KNOWN_WRITERS = set()   # every slow cell writes through dpnotes.reproduce.slow_result_path


def _writes_into_repo(nb: Path) -> list[str]:
    out = []
    for c in json.loads(nb.read_text())['cells']:
        if c['cell_type'] != 'code': continue
        for line in ''.join(c['source']).splitlines():
            if WRITE.search(line) and INTO_REPO.search(line): out.append(f'{nb.name} [{c.get("id")}]: {line.strip()[:100]}')
    return out


def test_notebooks_do_not_write_into_the_repository():
    """No code cell (slow ones included: Jupyter's Run All runs them) writes a file into data/ of the clone; results of long
    runs go through `dpnotes.reproduce.slow_result_path` (a temporary folder unless DPNOTES_RESULTS names one)."""
    hits = [h for nb in notebooks() if nb.name not in KNOWN_WRITERS for h in _writes_into_repo(nb)]
    assert not hits, 'notebook cells that write into the repository:\n' + '\n'.join(hits)


def test_test_command_says_when_it_skips_the_site_tests():
    "tools/test.sh prints one line saying whether the browser tests run, and why not (no site, no Chromium); under CI they fail instead."
    env = {k: v for k, v in os.environ.items() if k != 'CI'}
    run = lambda **e: subprocess.run(['bash', str(ROOT / 'tools' / 'test.sh'), '--site-status'], capture_output=True, text=True,
                                     env={**env, 'DPNOTES_CHROMIUM': '/nonexistent/chromium', **e}, timeout=60)
    r = run()
    lines = r.stdout.strip().splitlines()
    assert r.returncode == 0 and len(lines) == 1, r.stdout + r.stderr
    built = (ROOT / 'docs' / '_build' / 'html' / 'dpnotes-build.json').exists()
    assert lines[0].startswith('== site tests: SKIPPED, ') and (('Chromium not found' in lines[0]) if built else ('docs/build.py site' in lines[0])), lines
    assert 'will FAIL (CI is set)' in run(CI='true').stdout
    sh = (ROOT / 'tools' / 'test.sh').read_text()
    assert 'not site' in sh and 'echo "$site_line"' in sh
