"""The README as a new user meets it: every code block runs as written, in a fresh process.

README.md and the home page are both made from nbs/index.ipynb (`python docs/build.py readme`; `tests/test_repo.py`
checks that README.md is current), so running the README's blocks runs the home page's too.

* Every fenced block says what it is: ```sh (commands: run), ```python (run with `python -c`), ```text (what a
  command printed: compared, not run). An unmarked block fails.
* Shell blocks run in order, in one temporary folder (the walk "release your own table" builds on its earlier steps),
  with `bash -eu -o pipefail`, the `dpnotes` and `python` of this venv first on PATH and this checkout on PYTHONPATH.
* A few commands of the first screen cannot run in a test (a network install, the whole test suite, the site
  build): each has a cheap stand-in in `STAND_INS` that checks what can be checked (the extras exist and are
  installed, the scripts answer). Every other line runs as written.
* A ```text block right after a command block shows what it prints: each shown line must be a line the command
  prints, numbers aside (fresh noise changes them; `…` marks lines left out).
* The first screen holds install, the main job, the test command and the site command.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / 'README.md'
FIRST_SCREEN = 60          # lines: what a reader sees of the README before scrolling far
TIMEOUT = 120              # seconds per block (the whole file takes well under a minute on an idle machine)
SHELL, PYTHON, OUTPUT = {'sh', 'bash'}, {'python'}, {'text'}
_fence = re.compile(r'^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$', re.M | re.S)

CHECK_EXTRAS = r'''
import sys, tomllib
from importlib.metadata import version, PackageNotFoundError
from packaging.requirements import Requirement
extras = tomllib.loads(open(sys.argv[1], 'rb').read().decode())['project']['optional-dependencies']
bad = []
for extra in ('dev', 'dask', 'fast'):
    if extra not in extras: sys.exit(f'pyproject.toml declares no extra {extra!r}')
    for r in map(Requirement, extras[extra]):
        try: v = version(r.name)
        except PackageNotFoundError: bad.append(f'{r} (extra {extra}) is not installed'); continue
        if not r.specifier.contains(v, prereleases=True): bad.append(f'{r} (extra {extra}): {v} is installed')
if bad: sys.exit('\n'.join(bad))
'''

# command line of the README -> what the test runs in its place (a network install, hours of tests and a
# many-minute site build do not belong in a unit test); every other line runs as written
STAND_INS = {
    'python3 -m venv .venv': 'python3 -m venv --without-pip .venv',
    'source .venv/bin/activate': 'source .venv/bin/activate && test "$VIRTUAL_ENV" = "$PWD/.venv" && deactivate',
    'pip install -e ".[dev,dask,fast]"': f'"{sys.executable}" -c "$CHECK_EXTRAS" "{ROOT / "pyproject.toml"}"',
    'bash tools/test.sh': f'bash "{ROOT / "tools" / "test.sh"}" --site-status',
    'python docs/build.py site': f'python "{ROOT / "docs" / "build.py"}" site --help > /dev/null',
}


def blocks(text: str | None = None) -> list[dict]:
    "The fenced blocks of the README: language, body, first line number, and the ```text block right after it."
    text = README.read_text(encoding='utf-8') if text is None else text
    out = []
    for m in _fence.finditer(text):
        b = dict(lang=m.group(1), body=m.group(2), line=text.count('\n', 0, m.start()) + 1, shown=None)
        if out and b['lang'] in OUTPUT and not text[out[-1]['end']:m.start()].strip():
            out[-1]['shown'] = b['body']
        b['end'] = m.end()
        out.append(b)
    return out


def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHECK_EXTRAS=CHECK_EXTRAS, COLUMNS='200')
    env['PATH'] = f'{Path(sys.executable).parent}{os.pathsep}{env.get("PATH", "")}'
    env.pop('VIRTUAL_ENV', None)
    return env


_num = re.compile(r'[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?')


def _skeleton(line: str) -> str: return ' '.join(_num.sub('#', line).split())


def _unshown(shown: str, printed: str) -> list[str]:
    "Lines of `shown` that the command did not print (numbers and spacing aside; `…` lines are elisions)."
    have = {_skeleton(l) for l in printed.splitlines()}
    return [l for l in shown.splitlines() if l.strip() and l.strip() not in ('…', '...') and _skeleton(l) not in have]


def _run(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)


def test_every_block_is_marked():
    "Commands are ```sh, Python is ```python, printed output is ```text: the test (and a reader) knows what to run."
    bad = [f"line {b['line']}: ```{b['lang']}" for b in blocks() if b['lang'] not in SHELL | PYTHON | OUTPUT]
    assert not bad, f'fenced blocks without a known language (mark printed output ```text): {bad}'
    assert any(b['lang'] in SHELL for b in blocks()) and any(b['lang'] in PYTHON for b in blocks())


def test_first_screen():
    "Install (with a venv), the main job, the tests and the site are on the README's first screen."
    lines = README.read_text(encoding='utf-8').splitlines()
    want = ['python3 -m venv .venv', 'source .venv/bin/activate', 'pip install -e ".[dev,dask,fast]"',
            'dpnotes release wdbc', 'bash tools/test.sh', 'python docs/build.py site']
    where = {w: next((i + 1 for i, l in enumerate(lines) if l.strip().startswith(w)), None) for w in want}
    late = {w: n for w, n in where.items() if n is None or n > FIRST_SCREEN}
    assert not late, f'not on the first {FIRST_SCREEN} lines (line numbers; None: missing): {late}'


def test_one_python_spelling():
    "The README calls the front door as `dpnotes.release(...)` and `dpnotes.report(...)`, never by module path."
    text = README.read_text(encoding='utf-8')
    old = [s for s in ('dpnotes.release.release(', 'dpnotes.evaluate.report(', 'release.release(') if s in text]
    assert not old, f'the README still spells {old}'


def test_front_door_names_are_lazy():
    "`import dpnotes` stays light; `dpnotes.release`, `.report`, `.methods`, `.plan_release` load on first use."
    code = ('import sys, dpnotes\n'
            'heavy = [m for m in ("pandas", "scipy", "sklearn", "dpnotes.release") if m in sys.modules]\n'
            'assert not heavy, heavy\n'
            'from dpnotes import evaluate, plan\n'
            'import dpnotes.release as r\n'
            'assert dpnotes.report is evaluate.report and dpnotes.plan_release is plan.plan_release\n'
            'assert dpnotes.methods is r.methods and dpnotes.release is r\n'
            'assert {"release", "report", "methods", "plan_release"} <= set(dir(dpnotes))\n'
            'try: dpnotes.no_such_name\n'
            'except AttributeError as e: assert "no_such_name" in str(e)\n'
            'else: raise AssertionError("dpnotes.no_such_name did not raise")\n')
    r = _run([sys.executable, '-c', code], ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_shell_blocks_run(tmp_path):
    "Every command block, in order, in one fresh folder; what a ```text block after it shows is what it prints."
    failed = []
    for b in [b for b in blocks() if b['lang'] in SHELL]:
        script = '\n'.join(STAND_INS.get(l.strip(), l) for l in b['body'].splitlines())
        r = _run(['bash', '-eu', '-o', 'pipefail', '-c', script], tmp_path)
        if r.returncode != 0:
            failed.append(f"block at line {b['line']} exited {r.returncode}:\n{b['body']}\n{r.stdout[-1500:]}{r.stderr[-1500:]}")
        elif b['shown'] and (miss := _unshown(b['shown'], r.stdout + r.stderr)):
            failed.append(f"block at line {b['line']}: the README shows lines it does not print: {miss[:5]}\n"
                          f"printed:\n{r.stdout[-2000:]}{r.stderr[-1000:]}")
    assert not failed, '\n\n'.join(failed)


@pytest.mark.parametrize('b', [b for b in blocks() if b['lang'] in PYTHON], ids=lambda b: f"line{b['line']}")
def test_python_block_runs(b, tmp_path):
    "Each Python block, in a fresh process (`python -c`), prints what the README shows after it."
    r = _run([sys.executable, '-c', b['body']], tmp_path)
    assert r.returncode == 0, f"block at line {b['line']}:\n{b['body']}\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
    if b['shown']:
        miss = _unshown(b['shown'], r.stdout)
        assert not miss, f"block at line {b['line']}: shown but not printed: {miss[:5]}\nprinted:\n{r.stdout[-2000:]}"
