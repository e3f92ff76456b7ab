"""Checks on the errata page and the covariance pages as documents: every erratum row says whether it was checked two ways,
tables write norms so that a table does not eat them, one `show_doc` per cell, papers named by authors."""
import json, re
from pathlib import Path

NBS = Path(__file__).resolve().parent.parent / 'nbs'
VERDICT = re.compile(r'^(yes|no|partly): \S')
# the pages that hold errata tables (each erratum on the page that derives its result), and the covariance pages as documents
ERRATA_PAGES = ('90_errata.ipynb', '20_covariance_sensitivity.ipynb', '21_analyze_gauss.ipynb', '23_covariance_lemmas.ipynb')
PAGES = ERRATA_PAGES + ('22_covariance_release.ipynb', '24_gaussian_release.ipynb')


def _markdown(name):
    nb = json.loads((NBS / name).read_text(encoding='utf-8'))
    return [''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown']


def _tables(text):
    "Markdown tables in `text` as (header cells, list of row cells)."
    out, cur = [], []
    for line in text.splitlines() + ['']:
        if line.startswith('|'): cur.append([c.strip() for c in line.strip().strip('|').split('|')])
        elif cur: out.append((cur[0], [r for r in cur[2:]])); cur = []
    return out


def _errata_tables(name):
    return [t for md in _markdown(name) for t in _tables(md) if 'witness' in t[0]]


def test_every_errata_row_is_checked_two_ways_or_says_why_not():
    for name in ERRATA_PAGES:
        tables = _errata_tables(name)
        assert tables, name
        for header, rows in tables:
            assert header[-1] == 'checked two ways', (name, header)
            for row in rows:
                assert len(row) == len(header), (name, row[:2])
                assert VERDICT.match(row[-1]), (name, row[:2], row[-1])


def test_corrected_in_dpnotes_section_exists_and_names_the_tightness_claim():
    md = '\n'.join(_markdown('90_errata.ipynb'))
    assert '## Corrected in dpnotes' in md
    section = md.split('## Corrected in dpnotes', 1)[1]
    assert 'sqrt{2p^2-1}' in section and 'even $p$' in section


def test_pages_name_papers_and_functions_not_project_internals():
    for name in PAGES:
        text = (NBS / name).read_text(encoding='utf-8')
        assert not re.search(r'seed 00\d', text), name
        assert 'foundation' not in text, name


def test_norms_in_markdown_tables_use_lVert():
    for name in PAGES:
        for md in _markdown(name):
            for line in md.splitlines():
                if line.startswith('|'): assert '\\|' not in line, (name, line[:80])


def test_one_show_doc_per_cell():
    for name in PAGES:
        nb = json.loads((NBS / name).read_text(encoding='utf-8'))
        for c in nb['cells']:
            if c['cell_type'] == 'code': assert ''.join(c['source']).count('show_doc(') <= 1, (name, c.get('id'))


def test_each_erratum_sits_on_the_page_of_its_result():
    "Lemma 4 on the covariance page, Lemmas 5 and 6 on the corollaries, the Analyze Gauss note on its own page."
    def items(name): return [row[1] for _, rows in _errata_tables(name) for row in rows]
    assert any('Lemma 4' in i for i in items('20_covariance_sensitivity.ipynb'))
    assert not any('Lemma 5' in i or 'Lemma 6' in i or 'Analyze Gauss' in i for i in items('20_covariance_sensitivity.ipynb'))
    lem = items('23_covariance_lemmas.ipynb')
    assert any('Lemma 5' in i for i in lem) and any('Lemma 6' in i for i in lem)
    assert any('Analyze Gauss' in i for i in items('21_analyze_gauss.ipynb'))
