"""Depth of the import graph of `dpnotes`: the longest chain of package-internal imports.

    python tools/import_depth.py            # depth, one longest chain, and each module's level
    python tools/import_depth.py --quiet    # the depth only

An edge a -> b means dpnotes/a.py imports dpnotes.b anywhere in its source: at the top, or lazily inside a function
(read with `ast`; tests/test_layout.py uses this reading). A module's level is 1 plus the largest level of what it
imports (a module that imports nothing from the package is at level 1); the depth is the largest level, i.e. the number
of modules on the longest chain. Private modules (`__init__`, `_modidx`, ...) are left out, as in tests/test_layout.py.
Modules on an import cycle share one level (the cycle is reported and counted as one step).
"""
import argparse, ast, sys
from functools import lru_cache
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / 'dpnotes'


def modules(pkg=PKG) -> list:
    return sorted(p.stem for p in pkg.glob('*.py') if not p.stem.startswith('_'))


def imports(name, pkg=PKG) -> set:
    "The dpnotes modules that dpnotes/<name>.py imports anywhere (top level or inside functions)."
    out = set()
    for node in ast.walk(ast.parse((pkg / f'{name}.py').read_text(encoding='utf-8'))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module: out.add(node.module.split('.')[0])      # from .x import y
            elif node.level == 1: out |= {a.name for a in node.names}                   # from . import x
            elif node.module == 'dpnotes': out |= {a.name for a in node.names}          # from dpnotes import x
            elif node.module and node.module.startswith('dpnotes.'): out.add(node.module.split('.')[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split('.')[1] for a in node.names if a.name.startswith('dpnotes.')}
        elif isinstance(node, ast.Call) and getattr(node.func, 'attr', getattr(node.func, 'id', None)) == 'import_module':
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith('dpnotes.'):
                out.add(arg.value.split('.')[1])
    return out - {name}


def graph(pkg=PKG) -> dict:
    ms = set(modules(pkg))
    return {m: imports(m, pkg) & ms for m in ms}


def components(g) -> dict:
    "Each module's strongly connected component (Tarjan), as a frozenset."
    index, low, stack, on, comp, n = {}, {}, [], set(), {}, [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in g[v]:
            if w not in index: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = set()
            while True:
                w = stack.pop(); on.discard(w); c.add(w)
                if w == v: break
            for w in c: comp[w] = frozenset(c)
    sys.setrecursionlimit(10_000)
    for v in sorted(g):
        if v not in index: visit(v)
    return comp


def levels(g) -> tuple:
    "(level of each module, one longest chain, the cycles found)."
    comp = components(g)
    below = {c: {comp[w] for v in c for w in g[v]} - {c} for c in set(comp.values())}
    @lru_cache(None)
    def level(c): return 1 + max((level(d) for d in below[c]), default=0)
    lv = {m: level(comp[m]) for m in g}
    top = max(set(comp.values()), key=lambda c: (level(c), sorted(c)))
    chain, c = [], top
    while True:
        chain.append('/'.join(sorted(c)))
        if not below[c]: break
        c = max(below[c], key=lambda d: (level(d), sorted(d)))
    return lv, chain, [sorted(c) for c in set(comp.values()) if len(c) > 1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pkg', default=str(PKG), help='the package directory (default: this checkout\'s dpnotes/)')
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args(argv)
    lv, chain, cycles = levels(graph(Path(a.pkg)))
    if a.quiet: print(len(chain)); return
    print(f"depth {len(chain)} (modules on the longest chain of imports, lazy ones included)")
    print('chain: ' + ' -> '.join(chain))
    if cycles: print('cycles: ' + '; '.join(' <-> '.join(c) for c in cycles))
    for m in sorted(lv, key=lambda m: (-lv[m], m)): print(f"  {lv[m]:3d}  {m}")


if __name__ == '__main__': main()
