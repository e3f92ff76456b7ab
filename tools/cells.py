"""The shape of the notebooks' code cells: measure it, split long cells, rewrap long lines (issue #35).

    python tools/cells.py stats [notebooks...]     lengths of code cells and share of long lines
    python tools/cells.py split [notebooks...]     one exported definition per cell; long test/example cells in steps
    python tools/cells.py wrap  [notebooks...]     lines over 120 characters rewrapped where the AST stays the same
    python tools/cells.py same-modules [REF]       the generated dpnotes/*.py have the AST they have at git REF

The order that gets the most out of them: `wrap`, then `split` (a cell the rewrap made longer may now be cut), then
`wrap` again (it finds the lines it left alone because a cell would have passed 40 lines), then `nbdev-export` and
`same-modules` (the generated modules must parse to the trees they had), `nbdev-clean`, and `nbdev-test`.

Without notebooks, every `nbs/*.ipynb` is used.  `split` and `wrap` rewrite the notebooks in place (run `nbdev-clean`
afterwards) and print what they did and what they refused; `--dry-run` only prints.

What `stats` counts: the code cells of a notebook (markdown and raw cells are not counted).  The length of a cell is the
number of its non-blank source lines (a line holding only spaces is blank); directive lines (`#| export`) and comment
lines count like code, because a reader of the notebook sees them.  A long line is one of those lines with more than
120 characters.  The median and the 90th percentile are taken over the cells' lengths (the 90th percentile is the
nearest-rank one: the smallest length with at least 90 % of the cells no longer than it); the share of long lines is
over all counted lines.

Every change is checked on the cell's code with `ast`: `split` refuses a cell unless its pieces, put back together,
parse to the same tree as the cell (`ast.dump`), and `wrap` keeps a new line break only when the cell's tree is the same
(`ast.dump` without positions), so neither changes what runs.  Only the standard library and `nbformat` are used.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import io
import math
import re
import statistics
import subprocess
import sys
import tokenize
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
LONG = 120            # a line longer than this is long
TARGET = 110          # `wrap` aims at lines no longer than this
SPLIT_ABOVE = 6       # `split` cuts a non-exported cell with more code lines than this ...
MIN_PIECE = 3         # ... into pieces of at least this many code lines
MAX_CELL_LINES = 40   # the cell rule of tests/test_layout.py
# notebooks `split` leaves alone: README.md is made from the home page, and each of its python blocks runs by itself
# in a fresh process (tests/test_readme.py), so a block cut in two would lose its imports
KEEP_WHOLE = {'index.ipynb': "README.md's code blocks are its cells, each run alone by tests/test_readme.py"}
DIRECTIVE = re.compile(r'^\s*#\|\s*([\w-]+)')
EXPORT = {'export', 'exports', 'exporti'}
NEVER_SPLIT = {'default_exp', 'label', 'fig-cap', 'tbl-cap'}   # ids and captions must stay unique
# calls that return None, so a cut after them hides nothing (only trusted when the notebook imports them from
# fastcore.test, or for `print`, and does not define the name itself)
NONE_CALLS = {'test_eq', 'test_ne', 'test_close', 'test_fail', 'test_is', 'test_warns', 'test_stdout', 'test_eq_type',
              'test_shuffled', 'test_fig_exists'}
# a non-exported cell that draws may not be cut: the inline backend shows and closes the open figures at the end of
# every cell, so a figure begun in one piece and finished in the next would be shown half-drawn
PLOTS = re.compile(r'\b(plt|fig|figs|ax|axs|axes|sns|matplotlib|seaborn)\b|plot|subplot|imshow|savefig')


# ------------------------------------------------------------------------------------------------------------------
# reading
def notebooks(names):
    if not names: return sorted((ROOT / 'nbs').glob('*.ipynb'))
    out = []
    for n in names:
        p = Path(n)
        if not p.suffix: p = p.with_suffix('.ipynb')
        if not p.exists() and (ROOT / 'nbs' / p.name).exists(): p = ROOT / 'nbs' / p.name
        out.append(p)
    return out


def read(path): return nbformat.read(str(path), as_version=nbformat.NO_CONVERT)


def write(nb, path):
    ids = [c.get('id') for c in nb.cells]
    if len(set(ids)) != len(ids): raise ValueError(f'{path}: duplicated cell ids')
    nbformat.validate(nb)
    Path(path).write_text(nbformat.writes(nb) + '\n', encoding='utf-8')


def counted(source):
    "The lines `stats` counts: the non-blank ones."
    return [l for l in source.splitlines() if l.strip()]


def split_directives(source):
    "(directive lines at the top of the cell, the rest of the source)."
    lines = source.split('\n')
    k = 0
    while k < len(lines) and DIRECTIVE.match(lines[k]): k += 1
    return lines[:k], '\n'.join(lines[k:])


def directive_names(source): return {DIRECTIVE.match(l).group(1) for l in split_directives(source)[0]}


def key(code, positions=False):
    "The AST of `code` as text (None when it does not parse)."
    try: return ast.dump(ast.parse(code), include_attributes=positions)
    except SyntaxError: return None


# ------------------------------------------------------------------------------------------------------------------
# stats
def nearest_rank(xs, p):
    xs = sorted(xs)
    return xs[max(0, math.ceil(p * len(xs)) - 1)] if xs else 0


def measure(paths):
    "{notebook name: (lengths of the code cells, number of counted lines, number of long lines)}."
    out = {}
    for p in paths:
        lens, lines, long = [], 0, 0
        for c in read(p).cells:
            if c.cell_type != 'code': continue
            ls = counted(c.source)
            lens.append(len(ls)); lines += len(ls); long += sum(len(l) > LONG for l in ls)
        out[Path(p).name] = (lens, lines, long)
    return out


def summary(lens, lines, long):
    return dict(cells=len(lens), median=statistics.median(lens) if lens else 0, p90=nearest_rank(lens, 0.9),
                long_pct=100 * long / lines if lines else 0.0)


def overall(measured):
    lens = [n for v in measured.values() for n in v[0]]
    return summary(lens, sum(v[1] for v in measured.values()), sum(v[2] for v in measured.values()))


def fmt(name, s):
    return f"{name:<40} {s['cells']:>6} {s['median']:>7g} {s['p90']:>5} {s['long_pct']:>9.1f}"


def cmd_stats(paths, out=sys.stdout):
    m = measure(paths)
    print(f"{'notebook':<40} {'cells':>6} {'median':>7} {'p90':>5} {'% >120ch':>9}", file=out)
    for name, v in m.items(): print(fmt(name, summary(*v)), file=out)
    tot = overall(m)
    print(fmt('overall', tot), file=out)
    return tot


# ------------------------------------------------------------------------------------------------------------------
# split
def stmt_start(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, 'decorator_list', [])])


def is_definition(node): return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
                                                  ast.AnnAssign))


def silent_names(nb):
    "Names of calls known to return None in this notebook (fastcore.test's, imported there; `print`)."
    imported, defined = {'print'}, set()
    for c in nb.cells:
        if c.cell_type != 'code': continue
        try: tree = ast.parse(split_directives(c.source)[1])
        except SyntaxError: continue
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module == 'fastcore.test':
                imported |= NONE_CALLS if any(a.name == '*' for a in n.names) else {a.asname or a.name for a in n.names
                                                                                    if a.name in NONE_CALLS}
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): defined.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store): defined.add(n.id)
    return imported - defined


def shows_something(node, silent):
    "Would this statement, last in a cell, display a value? (a bare expression, unless a call known to return None)"
    if not isinstance(node, ast.Expr): return False
    v = node.value
    return not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in silent)


def cut_lines(lines, body):
    "For each statement after the first, the line (0-based) where a piece that starts with it would start."
    out = []
    for prev, node in zip(body, body[1:]):
        lo, hi = prev.end_lineno, stmt_start(node) - 1          # gap: 0-based lines lo .. hi-1
        k = lo
        while k < hi and lines[k].strip().startswith('#') and lines[k][:1] in (' ', '\t'): k += 1  # indented: before
        out.append(k)
    return out


def nonblank(lines): return sum(1 for l in lines if l.strip())


def choose_cuts(lines, cuts, allowed):
    "Cut lines for a non-exported cell: halve the longest piece at a natural boundary until pieces are short."
    ok = sorted(c for c, a in zip(cuts, allowed) if a)

    def go(lo, hi):
        if nonblank(lines[lo:hi]) <= SPLIT_ABOVE: return []
        cands = [c for c in ok if lo < c < hi and nonblank(lines[lo:c]) >= MIN_PIECE and nonblank(lines[c:hi]) >= MIN_PIECE]
        if not cands: return []
        mid = nonblank(lines[lo:hi]) / 2
        natural = [c for c in cands if not lines[c - 1].strip() or lines[c].strip().startswith('#')]
        c = min(natural or cands, key=lambda c: abs(nonblank(lines[lo:c]) - mid))
        return go(lo, c) + [c] + go(c, hi)
    return go(0, len(lines))


def defined_names(node):
    "The names `show_doc` would be called with for a top-level definition."
    if isinstance(node, ast.ClassDef): return {node.name}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        out = {node.name}
        patched = any((isinstance(d, ast.Name) and d.id == 'patch') or (isinstance(d, ast.Call) and
                      getattr(d.func, 'id', None) == 'patch') for d in node.decorator_list)
        args = node.args.posonlyargs + node.args.args
        if patched and args and args[0].annotation is not None:
            ann = args[0].annotation
            classes = [ann] if not isinstance(ann, ast.BinOp) else [ann.left, ann.right]
            out |= {f'{ast.unparse(c).strip(chr(39) + chr(34))}.{node.name}' for c in classes}
        return out
    if isinstance(node, ast.Assign): return {ast.unparse(t) for t in node.targets}
    if isinstance(node, ast.AnnAssign): return {ast.unparse(node.target)}
    return set()


def export_cuts(lines, body, cuts, silent):
    "Cut lines for an exported cell: before each definition (adjacent one-line constants stay together)."
    out, seen_def = [], is_definition(body[0])
    for i, (node, c) in enumerate(zip(body[1:], cuts), 1):
        prev = body[i - 1]
        if not is_definition(node): continue
        if not seen_def:                                   # leading imports stay with the first definition
            seen_def = True; continue
        if shows_something(prev, silent) or prev.end_lineno >= stmt_start(node): continue
        simple = (ast.Assign, ast.AnnAssign)
        if isinstance(prev, simple) and isinstance(node, simple) and c == prev.end_lineno \
                and prev.end_lineno == stmt_start(node) - 1: continue   # constants on adjacent lines: one block
        out.append(c)
    return out


TAKEN: set = set()    # the cell ids of the notebook being split (`split_notebook` fills it)


def new_id(cid, k):
    "A cell id made from `cid` and `k` (the same on every run), unused in the notebook."
    h = hashlib.sha1(f'{cid}:{k}'.encode()).hexdigest()
    while h[:8] in TAKEN: h = hashlib.sha1(h.encode()).hexdigest()
    TAKEN.add(h[:8])
    return h[:8]


def pieces_of(cell, cut_at, head):
    code_lines = split_directives(cell.source)[1].split('\n')
    bounds = [0] + list(cut_at) + [len(code_lines)]
    out = []
    for a, b in zip(bounds, bounds[1:]):
        body = '\n'.join(code_lines[a:b]).strip('\n')
        out.append('\n'.join(head + [body]))
    return out


def show_doc_only(cell):
    "The statements of a cell holding only `show_doc(...)` calls (None otherwise)."
    try: tree = ast.parse(split_directives(cell.source)[1])
    except SyntaxError: return None
    calls = [n for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
             and getattr(n.value.func, 'id', None) == 'show_doc' and n.value.args]
    return calls if calls and len(calls) == len(tree.body) else None


def plan_cell(nb, i, silent):
    """(pieces' sources, reason): how cell `i` would be split (pieces None when it is refused or left alone)."""
    cell = nb.cells[i]
    if cell.cell_type != 'code': return None, 'not code'
    head, code = split_directives(cell.source)
    names = directive_names(cell.source)
    if names & NEVER_SPLIT: return None, f'directive {sorted(names & NEVER_SPLIT)}'
    if re.search(r'^\s*%%', cell.source, re.M): return None, 'cell magic'
    try: tree = ast.parse(code)
    except SyntaxError: return None, 'does not parse (magics?)'
    body = tree.body
    if len(body) < 2: return None, 'one statement'
    lines = code.split('\n')
    cuts = cut_lines(lines, body)
    if names & EXPORT: cut_at = export_cuts(lines, body, cuts, silent)
    else:
        if nonblank(lines) <= SPLIT_ABOVE: return None, 'short'
        if PLOTS.search(code): return None, 'draws a figure'
        allowed = [not shows_something(prev, silent) and prev.end_lineno < stmt_start(node)
                   for prev, node in zip(body, body[1:])]
        cut_at = choose_cuts(lines, cuts, allowed)
    if not cut_at: return None, 'no safe cut'
    pieces = pieces_of(cell, cut_at, head)
    if key('\n'.join(split_directives(p)[1] for p in pieces)) != key(code): return None, 'AST changed: refused'
    if quiet(split_directives(pieces[-1])[1]) != quiet(code): return None, 'trailing `;` lost: refused'
    return pieces, f'{len(pieces)} pieces'


def piece_names(piece):
    try: tree = ast.parse(split_directives(piece)[1])
    except SyntaxError: return set()
    return set().union(*(defined_names(n) for n in tree.body)) if tree.body else set()


def code_cell(source, cid):
    c = nbformat.v4.new_code_cell(source)
    c.id = cid
    return c


def split_notebook(nb, log=print, name=''):
    "Split the cells of `nb` in place, then put the `show_doc` calls after their definitions; return the cells split."
    silent = silent_names(nb)
    TAKEN.clear(); TAKEN.update(c.get('id') for c in nb.cells)
    i, done, touched = 0, 0, set()
    while i < len(nb.cells):
        cell = nb.cells[i]
        pieces, why = plan_cell(nb, i, silent)
        if pieces is None:
            if why not in ('not code', 'one statement', 'short'): log(f'{name} cell {i} ({cell.get("id")}): {why}')
            i += 1; continue
        new = [code_cell(p, cell.id if k == 0 else new_id(cell.id, k)) for k, p in enumerate(pieces)]
        nb.cells[i:i + 1] = new
        if directive_names(cell.source) & EXPORT: touched |= {c.id for c in new}
        log(f'{name} cell {i} ({cell.id}): {why}')
        done += 1
        i += len(new)
    moved = place_show_docs(nb, touched)
    if moved: log(f'{name}: {moved} show_doc calls placed after their definitions')
    return done


def is_exported(c): return c.cell_type == 'code' and bool(directive_names(c.source) & EXPORT)


def is_show_doc(c): return c.cell_type == 'code' and not is_exported(c) and show_doc_only(c) is not None


def place_show_docs(nb, touched):
    """In each run of exported cells and `show_doc` cells (no other cell between them) that holds a split cell, put
    every `show_doc(name)` call of the run in its own cell right after the one cell of the run defining `name`, in the
    order the calls had.  A call whose name the run defines more than once, or only after the call, stays."""
    i, moved = 0, 0
    while i < len(nb.cells):
        if not is_exported(nb.cells[i]): i += 1; continue
        j = i
        while j < len(nb.cells) and (is_exported(nb.cells[j]) or is_show_doc(nb.cells[j])): j += 1
        run = nb.cells[i:j]
        if any(c.id in touched for c in run):
            new, m = reorder_run(run)
            nb.cells[i:j] = new
            moved += m
            j = i + len(new)
        i = j
    return moved


def reorder_run(run):
    "The cells of a run with its `show_doc` calls placed (see `place_show_docs`), and how many calls were placed."
    defs = {}
    for k, c in enumerate(run):
        if is_exported(c):
            for n in piece_names(c.source): defs.setdefault(n, []).append(k)
    after, stay, moved = {k: [] for k in range(len(run))}, {}, 0
    for k, c in enumerate(run):
        if is_exported(c): continue
        head, code = split_directives(c.source)
        keep, reused = [], False
        for n in show_doc_only(c):
            where = defs.get(ast.unparse(n.value.args[0]), [])
            src = ast.get_source_segment(code, n)
            if len(where) == 1 and where[0] < k:
                if not reused: new, reused = c, True               # the first call keeps the cell (and its id)
                else: new = code_cell('', new_id(c.id, 100 + moved))
                new.source = '\n'.join(head + [src])
                after[where[0]].append(new)
                moved += 1
            else: keep.append(src)
        if keep: stay[k] = code_cell('\n'.join(head + keep), new_id(c.id, 99) if reused else c.id)
    out = []
    for k, c in enumerate(run):
        if is_exported(c): out += [c] + after[k]
        elif k in stay: out.append(stay[k])
    return out, moved


def cmd_split(paths, dry=False):
    total = 0
    for p in paths:
        if Path(p).name in KEEP_WHOLE:
            print(f'{Path(p).name}: left whole ({KEEP_WHOLE[Path(p).name]})'); continue
        nb = read(p)
        n = split_notebook(nb, name=Path(p).name)
        total += n
        if n and not dry: write(nb, p)
    print(f'{total} cells split')


# ------------------------------------------------------------------------------------------------------------------
# wrap
BINOPS = {'+', '-', '*', '/', '//', '%', '@', '|', '&', '^', '<<', '>>', '==', '!=', '<', '>', '<=', '>=', '**'}
WORDOPS = {'and', 'or', 'if', 'else', 'for'}
KEYWORDS = {'return', 'in', 'not', 'and', 'or', 'if', 'else', 'lambda', 'yield', 'is', 'for', 'await', 'assert',
            'del', 'raise', 'from', 'import', 'print'}


def tokens(source):
    try: return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError): return None


def protected_lines(tree, toks):
    """1-based lines that `wrap` leaves alone: function signatures and the direct lines of class bodies, when they
    hold a comment (fastcore's `docments` reads a parameter's or a field's documentation from the comment on its line
    or on the lines above it, so moving a comment or a line break there changes what `show_doc` prints)."""
    comments = {t.start[0] for t in toks if t.type == tokenize.COMMENT}
    out = set()
    for n in ast.walk(tree):
        regions = []
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            regions.append(set(range(stmt_start(n), n.body[0].lineno)))
        elif isinstance(n, ast.ClassDef):
            inner = set()
            for b in n.body:
                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner |= set(range(stmt_start(b), b.end_lineno + 1))
            regions.append(set(range(stmt_start(n), n.end_lineno + 1)) - inner)
        for r in regions:
            if r & comments: out |= r
    return out


def line_tokens(toks, row):
    """(token, depth, continuation column, closing token) of the tokens starting on line `row`: the depth in brackets,
    the column of the first token after the innermost open bracket, and the token closing that bracket."""
    stack, out, closes, opens = [], [], {}, []
    for i, t in enumerate(toks):
        if t.type == tokenize.OP and t.string in '([{': opens.append(i)
        elif t.type == tokenize.OP and t.string in ')]}' and opens: closes[opens.pop()] = t
    for i, t in enumerate(toks):
        if t.start[0] > row: break
        if t.start[0] == row:
            out.append((i, t, len(stack), stack[-1][0] if stack else None, stack[-1][1] if stack else None))
        if t.type == tokenize.OP and t.string in '([{':
            nxt = next((u for u in toks[i + 1:] if u.type not in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE)),
                       None)
            stack.append((nxt.start[1] if nxt is not None else t.end[1], closes.get(i)))
        elif t.type == tokenize.OP and t.string in ')]}' and stack: stack.pop()
    return out


def string_split(s, room):
    "Two adjacent literals for the one-line string literal `s`, the first at most `room` characters long (or None)."
    m = re.match(r'^([rRbBfFuU]{0,2})(\'|")', s)
    if not m or s[len(m.group(1)):].startswith(("'''", '"""')): return None
    pre, q = m.group(1), m.group(2)
    body = s[len(pre) + 1:-1]
    fstr, raw = 'f' in pre.lower(), 'r' in pre.lower()
    depth, ok = 0, []
    i = 0
    while i < len(body):
        ch = body[i]
        if fstr and body[i:i + 2] in ('{{', '}}') and depth == 0: i += 2; continue
        if fstr and ch == '{': depth += 1
        elif fstr and ch == '}': depth -= 1
        elif ch == '\\' and not raw: i += 2; continue
        elif ch == ' ' and depth == 0: ok.append(i + 1)      # cut after a space
        i += 1
    ok = [k for k in ok if len(pre) + 2 + k <= room and 0 < k < len(body)]
    if not ok: return None
    k = max(ok)

    def lit(b): return f'{pre.replace("f", "").replace("F", "") if fstr and not re.search("[{}]", b) else pre}{q}{b}{q}'
    return lit(body[:k]), lit(body[k:])


def comment_split(text, room):
    "The comment `text` (starting with '#') cut at a space so that the first part is at most `room` long (or None)."
    if text.startswith('#|') or room < 20: return None
    words = [m.start() for m in re.finditer(r' (?=\S)', text)]
    ok = [k for k in words if k <= room and k > 2]
    if not ok: return None
    k = max(ok)
    return text[:k].rstrip(), '# ' + text[k:].strip()


def candidates(source, row, toks):
    "New sources, each with line `row` (1-based) broken once, best first."
    lines = source.split('\n')
    line = lines[row - 1]
    indent = len(line) - len(line.lstrip())
    out = []                          # (rank, new line list replacing line `row`)
    lt = line_tokens(toks, row)
    comment = next((t for _, t, _, _, _ in lt if t.type == tokenize.COMMENT), None)
    code_end = comment.start[1] if comment else len(line)
    code_only = line[:code_end].rstrip()

    def add(rank, first, rest):
        if len(first) <= LONG and len(rest.rstrip()) < len(line) and first.strip() and rest.strip():
            out.append(((len(first) > TARGET,) + rank, [first.rstrip(), rest.rstrip()]))

    # comments: a comment line, or a trailing comment once the code fits
    if comment is not None and len(code_only) <= TARGET:
        if not code_only.strip():
            cs = comment_split(comment.string, TARGET - comment.start[1])
            if cs: add((0, 0, 0), ' ' * comment.start[1] + cs[0], ' ' * comment.start[1] + cs[1])
        else:
            cs = comment_split(comment.string, TARGET - comment.start[1])
            if cs: add((0, 1, 0), line[:comment.start[1]] + cs[0], ' ' * comment.start[1] + cs[1])
            else:                      # the comment on its own line(s) above the code
                cs = comment_split(comment.string, TARGET - indent) or (comment.string, None)
                above = [' ' * indent + cs[0]] + ([' ' * indent + cs[1]] if cs[1] else [])
                if all(len(l) <= LONG for l in above):
                    out.append(((False, 0, 2, 0), above + [code_only]))
    # `a; b` on one line
    semis = [t for _, t, d, _, _ in lt if t.type == tokenize.OP and t.string == ';' and d == 0]
    if semis:
        parts, last = [], 0
        for t in semis:
            parts.append(line[last:t.start[1]].strip()); last = t.end[1]
        tail = line[last:].strip()
        if tail and not tail.startswith('#'): parts.append(tail)
        else: parts[-1] += ';' + (f'  {tail}' if tail else '')   # a trailing `;` (it hides the cell's value) stays
        new = [(' ' * indent + p) for p in parts if p]
        if all(len(l) <= LONG for l in new[:-1]): out.append(((False, 1, 0, 0), new))
    for k, (i, t, depth, col, close) in enumerate(lt):
        if depth == 0 or col is None or t.start[1] >= code_end: continue
        # a bracket that closes early on this line is not where the line is long (`if x in (a, b): raise E('...')`)
        if close is not None and close.start[0] == row and code_end - close.end[1] > 25: continue
        prev = lt[k - 1][1] if k else None
        if t.type == tokenize.OP and t.string == ',' and k + 1 < len(lt):
            nxt = lt[k + 1][1]
            if nxt.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE): continue
            add((2, 2 * depth, -t.end[1]), line[:t.end[1]], ' ' * col + line[t.end[1]:].lstrip())
        elif (t.type == tokenize.OP and t.string in BINOPS) or (t.type == tokenize.NAME and t.string in WORDOPS):
            if prev is None or not (prev.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
                                    or (prev.type == tokenize.OP and prev.string in ')]}')): continue
            if prev.type == tokenize.NAME and prev.string in KEYWORDS: continue
            add((2, 2 * depth + 1, -t.start[1]), line[:t.start[1]], ' ' * col + line[t.start[1]:])
        elif t.type == tokenize.STRING and t.start[0] == t.end[0] and t.end[1] > TARGET:
            sp = string_split(t.string, TARGET - t.start[1])
            if sp: add((3, depth, 0), line[:t.start[1]] + sp[0], ' ' * t.start[1] + sp[1] + line[t.end[1]:])
    out.sort(key=lambda x: x[0])
    for _, new in out: yield '\n'.join(lines[:row - 1] + new + lines[row:])


def quiet(source):
    "Does the cell end with `;` (IPython then shows no value)? The AST does not say, so it is checked apart."
    toks = tokens(source) or []
    last = [t for t in toks if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER,
                                              tokenize.DEDENT, tokenize.INDENT)]
    return bool(last) and last[-1].type == tokenize.OP and last[-1].string == ';'


def cell_lines(source):
    "Lines of a cell as tests/test_layout.py counts them for its 40-line rule (blank ones included)."
    return len(source.rstrip('\n').splitlines())


def wrap_source(source):
    """The cell's source with its long lines rewrapped where the AST stays the same; (source, lines left long).
    A cell is not made longer than MAX_CELL_LINES lines by it (nor than it was): a long line is no way around the
    40-line rule of tests/test_layout.py, and neither is a rewrap a way to break it."""
    want, limit, hush = key(source), max(MAX_CELL_LINES, cell_lines(source)), quiet(source)
    if want is None: return source, [l for l in source.split('\n') if len(l) > LONG]
    row, left = 1, []
    for _ in range(500):
        lines = source.split('\n')
        while row <= len(lines) and len(lines[row - 1]) <= LONG: row += 1
        if row > len(lines): break
        toks = tokens(source)
        tree = ast.parse(source)
        if toks is None or row in protected_lines(tree, toks):
            left.append(lines[row - 1]); row += 1; continue
        for new in candidates(source, row, toks):
            if key(new) == want and cell_lines(new) <= limit and quiet(new) == hush: source = new; break
        else:
            left.append(lines[row - 1]); row += 1
    return source, left


def cmd_wrap(paths, dry=False):
    for p in paths:
        nb, changed, left = read(p), 0, 0
        for c in nb.cells:
            if c.cell_type != 'code' or not any(len(l) > LONG for l in c.source.split('\n')): continue
            new, rest = wrap_source(c.source)
            left += len(rest)
            if new != c.source: c.source, changed = new, changed + 1
        print(f'{Path(p).name}: {changed} cells rewrapped, {left} long lines left')
        if changed and not dry: write(nb, p)


# ------------------------------------------------------------------------------------------------------------------
# the generated modules
def cmd_same_modules(ref):
    "Compare the AST of every dpnotes/*.py with its version at git `ref` (comments and line breaks do not count)."
    bad = 0
    for p in sorted((ROOT / 'dpnotes').glob('*.py')):
        rel = p.relative_to(ROOT).as_posix()
        old = subprocess.run(['git', 'show', f'{ref}:{rel}'], cwd=ROOT, capture_output=True, text=True)
        if old.returncode: print(f'{rel}: not at {ref}'); bad += 1; continue
        if key(old.stdout) != key(p.read_text(encoding='utf-8')): print(f'{rel}: AST differs'); bad += 1
    print('same AST' if not bad else f'{bad} modules differ')
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('command', choices=['stats', 'split', 'wrap', 'same-modules'])
    ap.add_argument('args', nargs='*', help='notebooks (default: nbs/*.ipynb); for same-modules: the git ref')
    ap.add_argument('--dry-run', action='store_true')
    a = ap.parse_intermixed_args(argv)
    if a.command == 'same-modules': return 1 if cmd_same_modules(a.args[0] if a.args else 'HEAD') else 0
    paths = notebooks(a.args)
    if a.command == 'stats': cmd_stats(paths)
    elif a.command == 'split': cmd_split(paths, a.dry_run)
    else: cmd_wrap(paths, a.dry_run)
    return 0


if __name__ == '__main__': sys.exit(main())
