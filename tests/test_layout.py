"""The module graph of `dpnotes` follows the layers of docs (shared notes, "architecture"): data flows one way,
primitives -> results -> mechanisms -> front door, and the modules outside the flow (evaluation, audit, benchmarks,
reproductions) are imported by nothing below them. Checked on the generated sources with `ast`, so a lazy import inside
a function counts as much as one at the top of a module."""
import ast
import importlib.util
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / 'dpnotes'

_spec = importlib.util.spec_from_file_location('import_depth', PKG.parent / 'tools' / 'import_depth.py')
_import_depth = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_import_depth)   # owns the ast reading

PRIMITIVES = {'privacy', 'moments'}
RESULTS = {'jl', 'jl_gauss', 'covariance', 'analyze_gauss', 'cov_release', 'cov_lemmas', 'dfm', 'dprp_reconstruction',
           'dprp_privacy'}
MECHANISMS = {'jl_release', 'gauss_steps', 'gauss', 'identity_release', 'dprp', 'dpsyn', 'suffstat', 'copula'}
DATA = {'data'}
CONTRACT = {'contract'}   # the mechanism contract (Spec, Charge, Released): above the schema, below every front module
FRONT = {'registry', 'release', 'cli', 'plan'}
REPRODUCTIONS = {'reproduce', 'repro_jl', 'repro_gauss', 'repro_dprp', 'repro_dpsyn'}
OUTSIDE = {'evaluate', 'audit', 'sensitivity', 'front_door', 'bench', 'replay'} | REPRODUCTIONS
PRESENTATION = {'panel'}   # static widget panels for the site: numpy/matplotlib/IPython only
LAYERS = dict(primitives=PRIMITIVES, results=RESULTS, mechanisms=MECHANISMS, data=DATA, contract=CONTRACT, front=FRONT, outside=OUTSIDE,
              presentation=PRESENTATION)

# Which dpnotes modules each module may import (the table of the architecture note).
ALLOWED = {
    **{m: set() for m in PRIMITIVES},
    'moments': {'privacy'},   # exact statistics reuse the input checks of the privacy primitives
    **{m: set() for m in PRESENTATION},
    # results build on primitives; a later result may reuse an earlier one it derives from (never the other way round)
    'jl': PRIMITIVES, 'jl_gauss': PRIMITIVES | {'jl'},
    'covariance': PRIMITIVES, 'analyze_gauss': PRIMITIVES, 'cov_release': PRIMITIVES | {'covariance'},
    'cov_lemmas': PRIMITIVES | {'covariance'}, 'dfm': PRIMITIVES,
    'dprp_reconstruction': PRIMITIVES, 'dprp_privacy': PRIMITIVES | {'analyze_gauss', 'dprp_reconstruction'},
    **{m: PRIMITIVES | RESULTS for m in MECHANISMS},
    # the Gaussian models: the estimators and the identity baselines are assembled from the steps (`gauss` no longer
    # re-exports `IdentityRelease`: one level less in the import graph)
    'identity_release': PRIMITIVES | RESULTS | {'gauss_steps'},
    'gauss': PRIMITIVES | RESULTS | {'gauss_steps'},
    'data': PRIMITIVES,
    'contract': PRIMITIVES | DATA,
    # the registry (adapters, protocol, `build`) sits below the front door and the plan, which both read it; the plan
    # never imports the front door, so the two no longer depend on each other
    'registry': PRIMITIVES | RESULTS | MECHANISMS | DATA,
    'release': PRIMITIVES | RESULTS | MECHANISMS | DATA | {'registry', 'plan'},   # plan: lazily, by release(dry_run=True)
    'plan': PRIMITIVES | RESULTS | MECHANISMS | DATA | {'registry'},
    'cli': PRIMITIVES | RESULTS | MECHANISMS | DATA | {'registry', 'release', 'plan', 'evaluate', 'reproduce'},
    # outside the flow: everything below them, and each other, but never the command-line entry point nor the
    # front-door audit that runs it
    **{m: PRIMITIVES | RESULTS | MECHANISMS | DATA | {'registry', 'release'} | (OUTSIDE - {'front_door'}) for m in OUTSIDE},
    # the empirical-ε auditor and the sensitivity search stand on the primitives alone (every page below may use them)
    'audit': PRIMITIVES | {'sensitivity'},     # re-exports `search_sensitivity` for the pages that import it from there
    'sensitivity': PRIMITIVES,
    # ... and the front-door audit runs the command as a black box (`dpnotes.cli.main` in a forked process, imported
    # inside `_forked_main`), so it stands above it; nothing in the package imports it
    'front_door': PRIMITIVES | RESULTS | MECHANISMS | DATA | {'registry', 'release', 'cli'} | (OUTSIDE - {'front_door'}),
}

# every module at or above the front door may use the contract
for _m in FRONT | OUTSIDE: ALLOWED[_m] = ALLOWED[_m] | CONTRACT

# Known exceptions, each with the reason and the fix; the test fails when one disappears so that this list stays true.
KNOWN = {
}


def modules():
    return sorted(p.stem for p in PKG.glob('*.py') if not p.stem.startswith('_'))


def dpnotes_imports(name):
    "The dpnotes modules imported anywhere in dpnotes/<name>.py (top level or inside functions): `tools/import_depth.py`'s reading."
    return _import_depth.imports(name, PKG)


def test_every_module_has_a_layer():
    placed = set().union(*LAYERS.values())
    missing = [m for m in modules() if m not in placed]
    assert not missing, f"modules with no layer in tests/test_layout.py: {missing} (add them to LAYERS and ALLOWED)"


@pytest.mark.parametrize('name', modules())
def test_imports_follow_the_layers(name):
    bad = {m for m in dpnotes_imports(name) - ALLOWED.get(name, set()) if (name, m) not in KNOWN}
    assert not bad, f"dpnotes.{name} imports {sorted(bad)}; allowed: {sorted(ALLOWED.get(name, set()))}"


def test_known_exceptions_still_exist():
    for (a, b), why in KNOWN.items():
        assert b in dpnotes_imports(a), f"dpnotes.{a} no longer imports dpnotes.{b}: remove the exception ({why[:40]}…)"


def test_only_the_command_imports_the_reproductions():
    for name in modules():
        if name in REPRODUCTIONS or name == 'cli': continue
        hits = dpnotes_imports(name) & REPRODUCTIONS
        assert not hits, f"dpnotes.{name} imports {sorted(hits)}: only dpnotes.cli may"
    assert dpnotes_imports('cli') & REPRODUCTIONS == {'reproduce'}


def test_mechanisms_import_no_evaluation_or_experiment_code():
    for name in MECHANISMS:
        hits = dpnotes_imports(name) & OUTSIDE
        assert not hits, f"mechanism dpnotes.{name} imports {sorted(hits)}"
    assert not dpnotes_imports('dprp') & {'gauss', 'gauss_steps', 'identity_release', 'evaluate'}
    assert 'evaluate' not in dpnotes_imports('dpsyn')


def test_cli_imports_reproduce_lazily():
    "`dpnotes release` must not pay for the reproductions: the import sits inside the `reproduce` command only."
    tree = ast.parse((PKG / 'cli.py').read_text(encoding='utf-8'))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    for n in top:
        names = [a.name for a in n.names] + [getattr(n, 'module', None) or '']
        assert not any('reproduce' in x or 'repro_' in x for x in names), ast.unparse(n)


def test_importing_the_package_front_door_does_not_load_reproductions():
    import subprocess, sys
    code = ("import sys, dpnotes.cli, dpnotes.release; "
            "print(sorted(m for m in sys.modules if m.startswith('dpnotes.repro')))")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == '[]', out


# --- Notebooks a reader can follow: no code cell over 40 lines ----------------------------------------------------------
MAX_CELL_LINES = 40
NBS = PKG.parent / 'nbs'
CHECKED_NOTEBOOKS = sorted(p.name for p in NBS.glob('*.ipynb'))   # every notebook


def long_cells(path):
    """(cell number, cell id, lines) of every code cell of the notebook with more than MAX_CELL_LINES lines. The cell's
    `#|` directives (export, fold, its label) are not lines a reader follows, and are not counted."""
    import json
    cells = json.loads(path.read_text(encoding='utf-8'))['cells']
    out = []
    for i, c in enumerate(cells):
        src = ''.join(c['source']) if isinstance(c['source'], list) else c['source']
        n = sum(not l.startswith('#|') for l in src.rstrip('\n').splitlines())
        if c['cell_type'] == 'code' and n > MAX_CELL_LINES: out.append((i, c.get('id', ''), n))
    return out


# a compiled kernel is one function: numba cannot call a plain Python helper from it, so it cannot be cut in steps
LONG_CELL_EXCEPTIONS = {('05_moments.ipynb', '47f752cb'): 'the compiled pass over a piece (_piece_kernel, numba)'}


def test_no_code_cell_over_40_lines():
    offenders = [(name, i, cid, n) for name in CHECKED_NOTEBOOKS for i, cid, n in long_cells(NBS / name)
                 if (name, cid) not in LONG_CELL_EXCEPTIONS]
    for name, i, cid, n in offenders: print(f"nbs/{name}: cell {i} (id {cid}) has {n} lines")
    assert not offenders, f"{len(offenders)} code cells over {MAX_CELL_LINES} lines (listed above): split them into short steps"
