"""The shape of the notebooks' code cells (issue #35) and the tool that measures and reshapes it, tools/cells.py.

The acceptance numbers over every code cell of nbs/*.ipynb: median length <= 6 lines, 90th percentile <= 20 lines,
under 3 % of lines longer than 120 characters (lengths as `tools/cells.py stats` counts them: non-blank lines). The
other tests run `split` and `wrap` on small made-up notebooks, including what they must refuse."""
import ast
import importlib.util
import io
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location('cells', ROOT / 'tools' / 'cells.py')
cells = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cells)


def test_notebook_shape_thresholds():
    out = io.StringIO()
    tot = cells.cmd_stats(cells.notebooks([]), out=out)
    print(out.getvalue())
    assert tot['median'] <= 6, f"median code-cell length {tot['median']} > 6"
    assert tot['p90'] <= 20, f"90th percentile of code-cell length {tot['p90']} > 20"
    assert tot['long_pct'] < 3, f"{tot['long_pct']:.1f} % of code lines are longer than 120 characters"


# --- made-up notebooks --------------------------------------------------------------------------------------------
def nb_of(*sources):
    return new_notebook(cells=[new_markdown_cell(s[3:]) if s.startswith('md:') else new_code_cell(s) for s in sources])


def code_sources(nb): return [c.source for c in nb.cells if c.cell_type == 'code']


def split(*sources, ids=False):
    nb = nb_of(*sources)
    log = []
    cells.split_notebook(nb, log=log.append)
    return (code_sources(nb), log) + (([c.id for c in nb.cells],) if ids else ())


def same_program(before, after):
    "The concatenated code of the cells, directives aside, parses to the same tree."
    code = lambda srcs: '\n'.join(cells.split_directives(s)[1] for s in srcs)
    return ast.dump(ast.parse(code(before))) == ast.dump(ast.parse(code(after)))


def test_stats_counts_non_blank_lines(tmp_path):
    nb = nb_of('#| export\n\ndef f():\n\n    return 1\n', 'x = 1', 'md:# text\nmore', 'y = "' + 'a' * 130 + '"')
    path = tmp_path / 'n.ipynb'
    nbformat.write(nb, str(path))
    m = cells.measure([path])[path.name]
    assert m == ([3, 1, 1], 5, 1)
    s = cells.summary(*m)
    assert (s['cells'], s['median'], s['p90'], round(s['long_pct'])) == (3, 1, 3, 20)


EXPORTED = '''#| export
import math
from functools import lru_cache

LIMIT = 3
NAME = 'x'

@lru_cache
def f(x):
    "Doc of f."
    return x + LIMIT

# a comment that belongs to g
def g(y): return math.sqrt(y)'''


def test_split_exported_one_definition_per_cell_and_show_doc_after_it():
    before = [EXPORTED, 'show_doc(f)\nshow_doc(g)', 'show_doc(NAME)', 'f(1)']
    after, _ = split(*before)
    assert after == ['#| export\nimport math\nfrom functools import lru_cache\n\nLIMIT = 3\nNAME = \'x\'',
                     'show_doc(NAME)',
                     '#| export\n@lru_cache\ndef f(x):\n    "Doc of f."\n    return x + LIMIT', 'show_doc(f)',
                     '#| export\n# a comment that belongs to g\ndef g(y): return math.sqrt(y)', 'show_doc(g)',
                     'f(1)']
    assert same_program(before[:1], [s for s in after if s.startswith('#| export')])


def test_split_exported_show_doc_stays_when_the_name_is_defined_twice_or_after_other_cells():
    before = [EXPORTED, '#| export\n@patch\ndef f(x: int): pass', 'show_doc(f)\nshow_doc(g)', 'x = 1', 'show_doc(LIMIT)']
    after, _, ids = split(*before, ids=True)
    assert after.count('show_doc(f)') == 1 and after.index('show_doc(f)') == after.index('show_doc(g)') + 2
    assert after[-1] == 'show_doc(LIMIT)'        # after a cell that is neither exported nor show_doc: not moved
    assert len(ids) == len(set(ids))


def test_split_exported_patched_methods_are_documented_as_class_attributes():
    src = '#| export\n@patch\ndef a(self: K): return 1\n\n@patch\ndef b(self: K): return 2'
    after, _ = split('#| export\nclass K: pass', src, 'show_doc(K)\nshow_doc(K.a)\nshow_doc(K.b)')
    assert after == ['#| export\nclass K: pass', 'show_doc(K)', '#| export\n@patch\ndef a(self: K): return 1',
                     'show_doc(K.a)', '#| export\n@patch\ndef b(self: K): return 2', 'show_doc(K.b)']


STEPS = '''#| hide
a = 1
b = a + 1
c = b + 1
# a comment block
# about d
d = c + 1
with open(__file__) as fh:
    e = 1
    f = 2
g = 3'''


def test_split_steps_keep_directives_comments_and_blocks():
    after, _ = split(STEPS)
    assert len(after) > 1 and all(s.startswith('#| hide\n') for s in after)
    assert same_program([STEPS], after)
    for s in after:
        code = cells.split_directives(s)[1]
        assert cells.nonblank(code.split('\n')) >= cells.MIN_PIECE
        assert not code.startswith('# about d') and not code.rstrip().endswith('# about d')
        ast.parse(code)                                       # never cut inside the `with` block


def test_split_refuses_a_cut_after_a_bare_expression():
    src = 'x = 1\ny = 2\nz = 3\nx + y\nw = 4\nv = 5\nu = 6\nt = x + y'
    after, _ = split(src)
    for s in after[:-1]:                                       # no piece but the last ends with the displayed `x + y`
        assert not isinstance(ast.parse(s).body[-1], ast.Expr), after
    assert same_program([src], after)
    # every statement a bare expression of unknown value: nothing may be cut
    calls = '\n'.join(f'f({i})' for i in range(10))
    after, log = split('def f(i): return i', calls)
    assert after == ['def f(i): return i', calls] and any('no safe cut' in l for l in log)


def test_split_cuts_after_fastcore_tests_only_when_they_come_from_fastcore():
    checks = '\n'.join(f'test_eq({i}, {i})' for i in range(8))
    after, _ = split('from fastcore.test import test_eq', checks)
    assert len(after) > 2
    after, _ = split('def test_eq(a, b): return a == b', checks)   # the notebook's own test_eq returns a value
    assert after == ['def test_eq(a, b): return a == b', checks]


def test_split_leaves_magics_figures_short_cells_and_default_exp_alone():
    long = '\n'.join(f'x{i} = {i}' for i in range(10))
    for src in ['%%time\n' + long, 'import matplotlib.pyplot as plt\n' + long + '\nplt.plot([1])', 'a = 1\nb = 2',
                '#| default_exp m\n' + long, '#| export\ndef f(): pass']:
        after, _ = split(src)
        assert after == [src], src


def test_split_refuses_when_the_tree_changes(monkeypatch):
    real = cells.pieces_of
    monkeypatch.setattr(cells, 'pieces_of', lambda cell, cut_at, head: real(cell, cut_at, head)[:-1])  # loses code
    src = '\n'.join(f'x{i} = {i}' for i in range(10))
    after, log = split(src)
    assert after == [src] and any('AST changed: refused' in l for l in log)


# --- wrap ---------------------------------------------------------------------------------------------------------
def wrapped(src):
    new, left = cells.wrap_source(src)
    assert cells.key(new) == cells.key(src)
    return new, left


def test_wrap_breaks_at_commas_operators_strings_comments_and_semicolons():
    args = ', '.join(f'argument_{i}' for i in range(12))
    new, left = wrapped(f'result = some_function({args})')
    assert not left and all(len(l) <= cells.TARGET for l in new.split('\n')) and new.count('\n') == 1
    assert new.split('\n')[1].startswith(' ' * len('result = some_function('))   # aligned with the bracket
    expr = ' + '.join(f'value_{i}' for i in range(16))
    new, left = wrapped(f'total = ({expr})')
    assert not left and new.split('\n')[1].lstrip().startswith('+ ')
    words = ' '.join(['word'] * 30)
    new, left = wrapped(f'raise ValueError(f"{{x}} {words}")')
    assert not left and new.count('"') == 4 and all(len(l) <= cells.TARGET for l in new.split('\n'))
    new, left = wrapped('    # ' + words)
    assert not left and [l[:6] for l in new.split('\n')] == ['    # '] * 2
    new, left = wrapped('; '.join(f'variable_{i} = {i}' for i in range(8)))
    assert not left and len(new.split('\n')) == 8


def test_wrap_keeps_the_semicolon_that_hides_a_value():
    args = ', '.join(f'argument_{i}' for i in range(12))
    new, _ = wrapped(f'x = 1; register({args});')
    assert new.rstrip().endswith(');') and cells.quiet(new)
    assert not cells.quiet('x = 1; f(x)') and cells.quiet('f(x);  # quiet')


def test_wrap_leaves_a_line_alone_without_a_safe_break():
    src = "x = '" + 'a' * 130 + "'"                       # a string outside brackets: no break keeps the tree
    assert wrapped(src) == (src, [src])
    src = 'def f(): """' + 'doc ' * 40 + '"""'           # a docstring is content
    assert wrapped(src)[0] == src


def test_wrap_refuses_a_break_that_changes_the_tree():
    src = 'if condition: ' + '; '.join(f'statement_{i}()' for i in range(9))  # cut at `;`: the tail leaves the `if`
    new, _ = wrapped(src)
    assert cells.key(new) == cells.key(src)
    assert new.split('\n')[0].startswith('if condition: statement_0(); ')


def test_wrap_keeps_the_documentation_comments_of_fields_and_parameters():
    long = ' '.join(['note'] * 28)
    src = f'class K:\n    a: int = 1  # {long}\n    b: int = 2\n\ndef f(x, # {long}\n      y): pass'
    assert wrapped(src)[0] == src


def test_wrap_does_not_push_a_cell_over_the_cell_rule():
    args = ', '.join(f'argument_{i}' for i in range(12))
    src = '\n'.join([f'r{i} = 1' for i in range(39)] + [f'r = g({args})'])
    new, left = wrapped(src)
    assert cells.cell_lines(new) == 40 and left
