"""The decisions page (nbs/92_decisions.ipynb) holds what the rest of the project points to:
a target for every section a retired option's error message names, and a stored file for every
result its record names."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / 'nbs' / '92_decisions.ipynb'
RESULTS = ROOT / 'data' / 'results'


@pytest.fixture(scope='module')
def markdown() -> str:
    "The page's markdown cells, joined."
    cells = json.loads(PAGE.read_text(encoding='utf-8'))['cells']
    return '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')


def targets(md: str) -> set:
    "MyST targets, `(name)=` on a line of its own (Sphinx gives the section after it that id)."
    return set(re.findall(r'^\(([a-z0-9-]+)\)=$', md, re.M))


def record_rows(md: str) -> list:
    "Cells of each record row (`| D1 | option | rule | tables | result | verdict | page |`)."
    return [l.split('|')[1:-1] for l in md.splitlines() if re.match(r'\| D\d+ \|', l)]


def test_every_retired_anchor_is_a_target(markdown):
    from dpnotes.registry import DECISIONS, RETIRED
    assert DECISIONS == re.sub(r'^\d+_', '', PAGE.stem) + '.html'      # the messages name this page
    missing = (set(RETIRED.values()) | {'no-report'}) - targets(markdown)
    assert not missing, f'sections named by the error messages, missing here: {sorted(missing)}'


def test_every_result_file_exists(markdown):
    rows = record_rows(markdown)
    assert [r[0].strip() for r in rows] == [f'D{i}' for i in range(1, len(rows) + 1)], 'D1, D2, ...'
    named = sorted({f for r in rows for f in re.findall(r'[\w.-]+\.csv', r[4])})  # result column
    assert named, 'the record names no result file'
    absent = [f for f in named if not (RESULTS / f).exists()]
    assert not absent, f'result files named on the decisions page, not in data/results/: {absent}'
