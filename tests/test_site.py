"""The documentation site, tested like a reader would: pages opened in headless Debian Chromium.

Needs `python docs/build.py site` first (the site is `docs/_build/html`).  Without a built site these tests
are skipped with the reason, except under CI (env `CI` set), where a missing site is a failure.
Run alone with `pytest -m site`.  The browser is /usr/bin/chromium (`apt-get install -y chromium`), driven by
Python playwright through `executable_path` (playwright's own browser download does not work offline);
override the path with env `DPNOTES_CHROMIUM`.

Every request the pages make is watched: anything that is not served by the local test server (a CDN, a font
service, ...) fails the test, so "offline" is checked, not assumed.

What a reader needs beyond that, each a check that can fail:
* an API entry for every name of every module's `__all__` and every public method of its exported classes, at the
  anchor nbdev's doc links (`dpnotes/_modidx.py`) point to;
* tables intact: no cell split by a `|` of a code span or of math (`\\|x\\|` must stay a norm);
* nothing cut off at 1280 px: a table or display formula wider than its column sits in a box that scrolls sideways,
  and most code cells do not scroll sideways (they wrap: docs/README.md);
* figure text at least 10 CSS px on the page: the build records each figure's smallest font (points) and the PNG's
  pixels per point; displayed width / natural width x points x pixels per point is the size a reader sees;
* no page names a paper by a file number or refers to the project's issues;
* every norm the notebooks write (`\\|x\\|`, `\\lVert x\\rVert`) is still a norm on the page, not bars `|x|`;
* nothing wider than its column (tables, display formulas, code blocks, outputs) unless it scrolls in its own box;
* the navigation and "Contents" columns stay inside the window and their width at 1280, 1400 and 1920 px, and a static
  panel's printed text wraps;
* no table wider than its column (a wide table is made to fit by the CSS: cells wrap, wide outputs use a smaller
  font), and no stderr output (warnings, progress lines) shown on a page;
* pages of at most MAX_SCREENS screens of a 1280 x 800 window, except the pages listed in SCREEN_CEILINGS, which may
  not grow; each page's count is written to artifacts/site-screens/<page>.txt;
* the build had no failed notebook (`dpnotes-build.json` lists them; their pages are written with an error box);
* static panels (`dpnotes.panel`) respond to their controls: moving a slider or choosing from a menu shows the matching
  pre-rendered view, with no kernel and nothing fetched; their figures' text is readable too.
"""
import functools
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path
from html import unescape
from urllib.parse import urljoin, urlparse

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / 'docs' / '_build' / 'html'
STAMP = HTML / 'dpnotes-build.json'
ARTIFACTS = ROOT / 'artifacts'
CHROMIUM = os.environ.get('DPNOTES_CHROMIUM', '/usr/bin/chromium')
# the flags of ../shared/notes/docs-offline.md (headless and the profile directory are playwright's own)
CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
                 '--disable-sync', '--no-first-run']
MATH_TIMEOUT_MS = 60_000
MIN_TEXT_PX = 10          # smallest figure text a reader should have to read (docs/README.md)
MAX_SCROLLING_CODE = 0.1  # share of code cells (sources) allowed to scroll sideways at 1280 px
FORBIDDEN = re.compile(r'seed 0\d\d|\(issue \d+\)|issue #\d+', re.I)
SCREEN = (1280, 800)      # the window a page's length is measured in: screens = page height / 800 px at 1280 px wide
MAX_SCREENS = 25          # a page longer than this is too long to read: split it, or move material to a slow section
# A ratchet. These pages were written before the 25-screen limit and are not yet rewritten for length: shortening
# each (folding setup code, moving experiments to `slow` cells, splitting the page) is work of its own, and one
# (copula) is being rewritten. Each may not grow past its screen count when the limit
# came in (the larger of two builds, rounded up); lower a ceiling when a page shrinks, and remove a page once it is
# within MAX_SCREENS (test_screen_ceilings_name_long_pages fails on a ceiling that is no longer needed).
# Raised once since, by the session that added material to them (the reader, the hook of the primitives, the missing
# state, the exact pieces, DP-SYN under replace-one, the retired options' cells): privacy 71 -> 76, data 84 -> 95,
# evaluate 50 -> 56, moments 28 -> 41, suffstat_gauss 45 -> 46, copula 70 -> 76, dp_syn 56 -> 65, registry 43 -> 45,
# cli 34 -> 37, dprp 41 -> 42 (long lines wrapped), and the new replay page (30); release fell 90 -> 42.
# Raised again by the session that split every notebook into one definition per cell (the same code in shorter
# cells, each with its own gap; the compact-cell rule 9 of docs/_static/dpnotes.css recovers part) and added the
# contract, copula-on-Dask, the DP-SGD replace-one check and the exact coins: registry 45 -> 55, copula 76 -> 95,
# privacy 76 -> 81, data 95 -> 99, dp_syn 65 -> 76, cli 37 -> 40, suffstat_gauss 46 -> 48, gaussian_release
# 56 -> 57, dprp 42 -> 43, paper_review 32 -> 33; benchmark (23.6 before the split), errata (23.4) and
# jl_gaussian_release came back above 25 (28, 27, 26); release fell 42 -> 18 and is off the list.
# Then every page was rewritten for length (implementations folded, regression checks hidden but run, experiments and
# audits on companion pages, API entries and folded lines compact: rules 10 and 11 of docs/_static/dpnotes.css), and
# every page but one is within 25. privacy (81 -> 32) is the reference of 56 public primitives: their API entries
# alone take about 13 screens; it goes under 25 only by splitting dpnotes.privacy into two modules.
SCREEN_CEILINGS = {
    'privacy': 32,   # 30.5 here; one screen of margin for the CI machine's renderer (it measured +0.4 on the data page)
}


def page_name(stem: str) -> str: return re.sub(r'^\d+_', '', stem)  # as docs/build.py (and nbdev) name pages


def notebooks() -> list[Path]:
    return sorted(p for p in (ROOT / 'nbs').glob('*.ipynb') if not p.name.startswith(('_', '.')))


def _unavailable(reason: str):
    if os.environ.get('CI'): pytest.fail(f'{reason} (CI is set: the site must be built before this test)')
    pytest.skip(reason)


def _nb_text(nb: Path) -> str:
    cells = json.loads(nb.read_text())['cells']
    return '\n'.join(''.join(c['source']) if isinstance(c['source'], list) else c['source'] for c in cells)


def _default_code(nb: Path) -> str:
    "Source of the code cells the site build executes (not `slow`, `notest`, `eval: false`, `hide`)."
    out = []
    for c in json.loads(nb.read_text())['cells']:
        if c['cell_type'] != 'code': continue
        src = ''.join(c['source']) if isinstance(c['source'], list) else c['source']
        heads = re.findall(r'^\s*#\s*\|\s*(.*)$', src, re.M)
        if any(re.match(r'(slow|notest|hide)\b|eval:\s*false', h) for h in heads): continue
        out.append(src)
    return '\n'.join(out)


def _has_math(nb: Path) -> bool:
    "Does a markdown cell of the notebook contain `$...$` math?"
    cells = json.loads(nb.read_text())['cells']
    md = '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')
    md = re.sub(r'`[^`]*`', '', re.sub(r'```.*?```', '', md, flags=re.S))
    return re.search(r'\$[^$\s][^$]*\$', md) is not None


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope='session')
def site():
    "The built site (checked complete and current) served over HTTP on localhost."
    if not (HTML / 'index.html').exists():
        _unavailable(f'site not built: {HTML / "index.html"} is missing; run `python docs/build.py site`')
    if not STAMP.exists():
        _unavailable(f'site build did not complete ({STAMP.name} missing); run `python docs/build.py site`')
    built = json.loads(STAMP.read_text())['notebooks']
    now = [p.name for p in notebooks()]
    if built != now and not os.environ.get('CI'):
        pytest.skip(f'site is stale (built from {built}, nbs/ now has {now}); run `python docs/build.py site`')
    handler = functools.partial(QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}'
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass


@pytest.fixture(scope='session')
def browser():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f'Chromium not found at {CHROMIUM}; `apt-get install -y chromium`')
    sync_api = pytest.importorskip('playwright.sync_api')
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, site):
    "A fresh page that records failed requests, requests leaving the local server and console errors."
    ctx = browser.new_context(viewport={'width': 1280, 'height': 1600})
    pg = ctx.new_page()
    pg.external, pg.failed, pg.errors = [], [], []
    host = urlparse(site).netloc

    def route(r):
        u = urlparse(r.request.url)
        if u.scheme in ('http', 'https') and u.netloc != host:
            pg.external.append(r.request.url)
            return r.abort()
        return r.continue_()

    pg.route('**/*', route)
    pg.on('requestfailed', lambda req: pg.failed.append(req.url))
    pg.on('response', lambda resp: pg.failed.append(f'{resp.status} {resp.url}') if resp.status >= 400 else None)
    pg.on('pageerror', lambda e: pg.errors.append(str(e)))
    yield pg
    ctx.close()


def _open(page, url: str):
    resp = page.goto(url, wait_until='load')
    assert resp is not None and resp.ok, f'{url}: HTTP {resp.status if resp else "no response"}'
    return resp


def _wait_math(page):
    "Wait until MathJax (served from _static) has typeset the page, if the page loads it."
    if not page.evaluate('() => !!document.querySelector("script[src*=\'mathjax\']")'): return False
    page.wait_for_function('() => window.MathJax && MathJax.startup && MathJax.startup.promise', timeout=MATH_TIMEOUT_MS)
    page.evaluate('() => MathJax.startup.promise')
    return True


RAW_MATH_JS = '''() => {
  const main = document.querySelector('main') || document.body;
  const clone = main.cloneNode(true);
  clone.querySelectorAll('pre, code, script, mjx-container, .highlight, style').forEach(e => e.remove());
  return clone.innerText;
}'''

IMAGES_JS = '''() => Array.from(document.querySelectorAll('main img')).map(i => ({
  src: i.currentSrc || i.src, complete: i.complete, w: i.naturalWidth, h: i.naturalHeight}))'''


# ----------------------------------------------------------------------------- tests
def test_every_notebook_has_a_page(site):
    "Every notebook has its page (each page's title and the absence of a traceback are checked by the per-page test below)."
    assert notebooks(), 'no notebooks in nbs/'
    missing = [nb.name for nb in notebooks() if not (HTML / f'{page_name(nb.stem)}.html').exists()]
    assert not missing, f'notebooks without a page: {missing}'


@pytest.mark.parametrize('nb', notebooks(), ids=lambda p: p.stem)
def test_page(page, site, nb):
    """One load per page: a title and no traceback; math typeset by the bundled MathJax (no raw `$` left), every image
    decoded, nothing fetched from outside; then the layout checks of `_layout_problems`."""
    _open(page, f'{site}/{page_name(nb.stem)}.html')
    h1 = page.locator('main h1').first.inner_text().strip()
    assert h1, f'{nb.name}: page has no title'
    assert 'Traceback' not in page.locator('main').inner_text() or 'Traceback' in _nb_text(nb), \
        f'{nb.name}: the page shows a traceback'
    typeset = _wait_math(page)
    if _has_math(nb):
        assert typeset, f'{nb.name} has math but its page does not load MathJax'
        n = page.locator('main mjx-container').count()
        assert n > 0, f'{nb.name}: no MathJax output (mjx-container) on the page'
        assert page.locator('main mjx-container mjx-merror, main mjx-container [data-mjx-error]').count() == 0, \
            f'{nb.name}: MathJax reported TeX errors'
        raw = page.evaluate(RAW_MATH_JS)
        assert '$$' not in raw, f'{nb.name}: raw $$ left in the page text'
        left = re.findall(r'.{0,30}\\(?:frac|varepsilon|Delta|sqrt|sum|mathbb)\b.{0,30}', raw)
        assert not left, f'{nb.name}: raw TeX left in the page text: {left[:3]}'
    text = page.locator('main').inner_text()
    assert 'children=(' not in text, f'{nb.name}: a widget shows as its Python repr'
    imgs = page.evaluate(IMAGES_JS)
    bad = [i for i in imgs if not (i['complete'] and i['w'] > 0)]
    assert not bad, f'{nb.name}: images that did not load: {bad}'
    if re.search(r'\bplt\.|\.plot\(|sns\.', _default_code(nb)):
        assert imgs, f'{nb.name} plots (in cells run by default) but its page shows no image'
    assert not page.external, f'{nb.name}: requests leaving the site (CDN?): {page.external}'
    assert not page.failed, f'{nb.name}: failed requests: {page.failed}'
    assert not page.errors, f'{nb.name}: JavaScript errors: {page.errors}'
    # the layout of the same page, in the same load (one page load per notebook keeps the browser tests short)
    problems = _layout_problems(page, nb)
    problems += _screens_problems(page, nb)
    for width in WIDER:                   # the side columns at wider windows too: the same load, the window resized
        page.set_viewport_size({'width': width, 'height': 1000})
        problems += [f'at {width} px: {p}' for p in page.evaluate(SIDE_JS)]
    assert not problems, f'{nb.name}: {len(problems)} layout problems:\n' + '\n'.join(problems)


def test_navigation(page, site):
    "The sidebar of the home page lists every notebook's page in order, and following a link lands on it."
    _open(page, f'{site}/index.html')
    links = page.locator('nav.bd-docs-nav a.reference.internal')
    hrefs = [urlparse(links.nth(i).get_attribute('href')).path.lstrip('./') for i in range(links.count())]
    expected = [f'{page_name(nb.stem)}.html' for nb in notebooks() if nb.stem != 'index']
    listed = [h for h in hrefs if h and h != 'index.html' and h != '#']
    assert listed == expected, f'sidebar links {listed} != pages in notebook order {expected}'
    for i, href in enumerate(expected[:3]):
        page.locator(f'nav.bd-docs-nav a.reference.internal[href$="{href}"]').first.click()
        page.wait_for_load_state('load')
        assert page.url.endswith(href), f'clicked {href}, landed on {page.url}'
        assert page.locator('main h1').count() >= 1
        # "next" button of the book theme links onward through the pages
        if i + 1 < len(expected):
            nxt = page.locator('a.right-next')
            assert nxt.count() == 1 and nxt.get_attribute('href').endswith(expected[i + 1])
        page.go_back()
    # every internal link of every page points to an existing file: read from the HTML files themselves (each page is
    # loaded in the browser by the per-page tests; resolving the hrefs here does not need a second load)
    broken = []
    for html in sorted(HTML.glob('*.html')):
        base = f'{site}/{html.name}'
        for href in re.findall(r'<a\b[^>]*?\bhref\s*=\s*["\']([^"\']*)["\']', html.read_text(encoding='utf-8'), flags=re.I):
            u = urlparse(urljoin(base, unescape(href)))
            if u.netloc != urlparse(site).netloc or not u.path.endswith('.html'): continue
            if not (HTML / u.path.lstrip('/')).exists(): broken.append(f'{html.name} -> {u.path}')
    assert not broken, f'broken internal links: {broken}'


def test_search(page, site):
    "The search page exists and finds a word that occurs in the notebooks."
    _open(page, f'{site}/search.html?q=privacy')
    page.wait_for_selector('#search-results ul.search li', timeout=30_000)
    n = page.locator('#search-results ul.search li').count()
    assert n >= 1, 'search for "privacy" found nothing'
    assert page.locator('input[name="q"]').count() >= 1, 'no search box'


def test_screenshot(page, site, capsys):
    "One screenshot for the CI log: the first numbered notebook, at its first plot (with math around it)."
    nbs = [nb for nb in notebooks() if nb.stem != 'index'] or notebooks()
    _open(page, f'{site}/{page_name(nbs[0].stem)}.html')
    _wait_math(page)
    if page.locator('main img').count():  # show a plot beside the typeset text
        page.locator('main img').first.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    out = ARTIFACTS / 'site.png'
    page.screenshot(path=str(out), full_page=False)
    assert out.stat().st_size > 10_000, 'screenshot is (nearly) empty'
    with capsys.disabled(): print(f'\nscreenshot of {nbs[0].name}: {out}')


# ----------------------------------------------------------------------------- the reader's view
def _pages() -> list[tuple[Path, str]]:
    return [(nb, page_name(nb.stem)) for nb in notebooks()]


def _visible_text(html: str) -> str:
    html = re.sub(r'<(script|style)\b.*?</\1>', ' ', html, flags=re.S | re.I)
    return re.sub(r'\s+', ' ', re.sub(r'<[^>]+>', ' ', html))


def _api_names() -> dict[str, list[tuple[str, str, str]]]:
    """Page → [(qualified name, anchor, kind)] for every name of each module's `__all__` and every public method
    defined by an exported class (properties are documented with their class); page and anchor as nbdev's
    `_modidx.py` has them."""
    import importlib
    import inspect
    import sys
    if str(ROOT) not in sys.path: sys.path.insert(0, str(ROOT))
    modidx = importlib.import_module('dpnotes._modidx').d['syms']
    out = {}
    for mod, syms in sorted(modidx.items()):
        m = importlib.import_module(mod)
        default_page = next(iter(syms.values()))[0].split('#')[0] if syms else f'{mod.split(".")[-1]}.html'
        for name in getattr(m, '__all__', []):
            obj = getattr(m, name)
            kind = 'class' if inspect.isclass(obj) else 'function' if callable(obj) else 'constant'
            entries = [(name, kind)]
            if inspect.isclass(obj):
                entries += [(f'{name}.{k}', 'method') for k, v in vars(obj).items() if not k.startswith('_') and
                            (inspect.isfunction(v) or isinstance(v, (staticmethod, classmethod)))]
            for qual, kind in entries:
                page, _, anchor = syms.get(f'{mod}.{qual}', (f'{default_page}#{qual.lower()}',))[0].partition('#')
                out.setdefault(page, []).append((qual, anchor, kind))
    return out


def test_api_reference_complete(site):
    "Every exported name and public method has an entry (show_doc) at nbdev's anchor; constants are named on their page."
    missing, n = [], 0
    for page, names in _api_names().items():
        html = (HTML / page).read_text() if (HTML / page).exists() else ''
        text = _visible_text(html)
        for qual, anchor, kind in names:
            n += 1
            if kind == 'constant':
                if qual not in text: missing.append(f'{page}: constant {qual} is not named on its page')
            elif f'id="{anchor}"' not in html:
                missing.append(f'{page}: no API entry for {kind} {qual} (anchor #{anchor})')
    assert not missing, f'{len(missing)} of {n} API entries missing:\n' + '\n'.join(missing)


def test_no_paper_file_numbers_or_issue_refs(site):
    "Papers are named by their authors, never by a file number; pages do not talk about the project's issues."
    hits = []
    for _, page in _pages():
        f = HTML / f'{page}.html'
        if not f.exists(): continue
        text = _visible_text(f.read_text())
        hits += [f'{page}.html: ...{text[max(0, m.start() - 60):m.end() + 30]}...' for m in FORBIDDEN.finditer(text)]
    assert not hits, f'{len(hits)} references to file numbers or issues:\n' + '\n'.join(hits)


TABLES_JS = r"""() => {
  const bad = [];
  const items = (window.MathJax && MathJax.startup && MathJax.startup.document) ?
      Array.from(MathJax.startup.document.math) : [];
  for (const it of items) {
    const host = it.start && it.start.node && it.start.node.parentElement;
    if (host && host.closest('main table') && /(^|[^\\])\|/.test(it.math))
      bad.push('math in a table has a bare | (a norm \\| lost its backslash?): ' + it.math.slice(0, 60));
  }
  for (const td of document.querySelectorAll('main table td, main table th')) {
    const c = td.cloneNode(true);
    c.querySelectorAll('code, pre, mjx-container, script').forEach(e => e.remove());
    const t = c.textContent;
    if (t.includes('`')) bad.push('table cell with a stray backtick (a code span split by |?): ' + td.innerText.slice(0, 60));
    if (t.includes('$')) bad.push('table cell with a stray $ (math split by |?): ' + td.innerText.slice(0, 60));
  }
  return bad;
}"""


OVERFLOW_JS = r"""() => {
  const col = document.querySelector('main article.bd-article') || document.querySelector('main');
  const cs = getComputedStyle(col), colBox = col.getBoundingClientRect();
  const right = colBox.right - parseFloat(cs.paddingRight) + 1;   // the right edge of the column's content
  const scrolls = (e) => { const o = getComputedStyle(e).overflowX; return o === 'auto' || o === 'scroll'; };
  const out = {cut: [], code: 0, codeScroll: [], colWidth: Math.round(colBox.width)};
  const els = [...col.querySelectorAll('table'), ...col.querySelectorAll('mjx-container[display="true"]'),
               ...col.querySelectorAll('pre'), ...col.querySelectorAll('.dpnotes-panel')];
  for (const e of els) {
    // how far right the element or anything inside it reaches (cells' content can overflow a table's box)
    let reach = e.getBoundingClientRect().right;
    for (const d of e.querySelectorAll('*')) { const r = d.getBoundingClientRect(); if (r.width) reach = Math.max(reach, r.right); }
    reach = Math.max(reach, e.getBoundingClientRect().left + e.scrollWidth);
    if (reach <= right) continue;
    // fine if a box between it and the column (itself included) scrolls sideways and ends inside the column
    let a = e, ok = false;
    while (a && a !== col) {
      if (scrolls(a) && a.getBoundingClientRect().right <= right) { ok = true; break; }
      a = a.parentElement;
    }
    if (!ok) out.cut.push(`${e.tagName.toLowerCase()} reaching ${Math.round(reach - right)} px past the column: ` +
                          (e.innerText || e.textContent).replace(/\s+/g, ' ').slice(0, 70));
  }
  for (const pre of col.querySelectorAll('.cell_input pre, section > div[class*="highlight-"] pre')) {
    out.code += 1;
    if (pre.scrollWidth > pre.clientWidth + 1) out.codeScroll.push(pre.innerText.split('\n')[0].slice(0, 60));
  }
  return out;
}"""


# the side columns and the static panels' text: nothing reaches past the window or a column's right edge (a long code span in a
# heading widened the "Contents" column past the window; a panel's printed conclusion ran off to the right in a scrolled box)
WIDER = (1400, 1920)   # window widths checked after the 1280 px load (side columns, panel text wrapping)
SIDE_JS = r"""() => {
  const bad = [];
  if (document.documentElement.scrollWidth > innerWidth + 1)
    bad.push(`the page is ${document.documentElement.scrollWidth - innerWidth} px wider than the ${innerWidth} px window`);
  for (const sel of ['.bd-sidebar-secondary', '.bd-sidebar-primary']) {
    const side = document.querySelector(sel);
    if (!side || !side.offsetParent) continue;
    const r = side.getBoundingClientRect();
    if (r.right > innerWidth + 1) bad.push(`${sel} ends ${Math.round(r.right - innerWidth)} px past the window`);
    for (const e of side.querySelectorAll('a, code, li, nav, div')) {
      const q = e.getBoundingClientRect();
      if (q.width && q.right > r.right + 1) { bad.push(`${sel}: "${(e.innerText || '').trim().slice(0, 50)}" reaches ${Math.round(q.right - r.right)} px past the column`); break; }
    }
  }
  for (const pre of document.querySelectorAll('main .dpnotes-panel .dpnotes-panel-view:not([hidden]) pre.dpnotes-panel-text'))
    if (pre.scrollWidth > pre.clientWidth + 1)
      bad.push(`panel text does not wrap (${pre.scrollWidth - pre.clientWidth} px hidden to the right): ` + pre.innerText.split('\n').pop().slice(0, 60));
  return bad;
}"""


FIG_JS = """() => Array.from(document.querySelectorAll('main .cell_output img')).filter(i => !i.closest('.dpnotes-panel')).map(i => ({
  shown: i.getBoundingClientRect().width, natural: i.naturalWidth, src: i.getAttribute('src')}))"""

# figures inside static panels carry their own record (data-min-font-pt, data-px-per-pt); a hidden view's image would be
# shown at min(its natural width, the width of the panel's content box)
PANEL_FIG_JS = """() => Array.from(document.querySelectorAll('main .dpnotes-panel img[data-min-font-pt]')).map(i => {
  const box = i.closest('.dpnotes-panel'), cs = getComputedStyle(box);
  const avail = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  return {shown: Math.min(i.naturalWidth, avail), natural: i.naturalWidth, pt: parseFloat(i.dataset.minFontPt),
          pxPerPt: parseFloat(i.dataset.pxPerPt), panel: box.id, key: i.closest('.dpnotes-panel-view').dataset.key};
})"""


def _figure_report(page, name: str, recs: list[dict]) -> list[str]:
    "Figures of the open page whose smallest text is displayed under MIN_TEXT_PX."
    if not recs: return []
    page.wait_for_function('() => Array.from(document.images).every(i => i.complete)')
    imgs = page.evaluate(FIG_JS)
    if len(imgs) != len(recs): return [f'{name}.html: {len(recs)} figures recorded by the build, {len(imgs)} on the page']
    small = []
    for k, (img, rec) in enumerate(zip(imgs, recs)):
        if 'min_font_pt' not in rec or not img['natural']: continue
        px = img['shown'] / img['natural'] * rec['min_font_pt'] * rec['px_per_pt']
        if px < MIN_TEXT_PX - 0.05:
            small.append(f"{name}.html figure {k + 1} (figsize {rec['figsize_in'][0]} x {rec['figsize_in'][1]} in, shown "
                         f"at {img['shown']:.0f} px of {img['natural']} px): '{rec['smallest_text']}' at "
                         f"{rec['min_font_pt']} pt is {px:.1f} px")
    return small


_re_code_span = re.compile(r'```.*?```|`[^`\n]*`', re.S)
_re_math = re.compile(r'\$\$(.+?)\$\$|(?<![\\$])\$(?!\s)([^$\n]+?)(?<![\s\\])\$', re.S)
_re_norm = re.compile(r'\\\||\\[lr]?Vert\b|‖')


def _source_norms(nb: Path) -> list[str]:
    "Math snippets of the notebook's markdown that contain a norm (`\\|`, `\\Vert`, `\\lVert`), code spans left out."
    cells = json.loads(nb.read_text())['cells']
    md = _re_code_span.sub(' ', '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown'))
    return [a or b for a, b in _re_math.findall(md) if _re_norm.search(a or b)]


NORMS_JS = r"""() => ((window.MathJax && MathJax.startup && MathJax.startup.document) ?
  Array.from(MathJax.startup.document.math).map(it => it.math).filter(t => /\\\||\\[lr]?Vert\b|‖/.test(t)).length : -1)"""


def _norm_report(page, nb: Path) -> list[str]:
    """A norm `\\|x\\|` that a table (or an escape) stripped of its backslash renders as bars |x|: every math snippet of the
    notebook written with a norm must still be typeset with one (the page may have more: API entries)."""
    want = _source_norms(nb)
    if not want: return []
    got = page.evaluate(NORMS_JS)
    if got < len(want):
        return [f'{len(want)} math snippets of the notebook contain a norm but only {got} on the page do: a `\\|` rendered as '
                f'a bar? (first ones in the source: {want[:3]})']
    return []


def _layout_problems(page, nb) -> list:
    """What a reader sees at 1280 px on one open page: tables intact (`|` of a code span or `\\|` of math splits no row), norms
    still norms, wide tables, display formulas, code blocks and panels scroll inside their own box, at most 10 % of code
    cells scroll sideways (they wrap), and every figure's smallest text is at least 10 CSS px (the build's records, the
    page's sizes; a static panel's figures by their own records)."""
    name = page_name(nb.stem)
    records = json.loads(STAMP.read_text()).get('figures')
    if records is None: pytest.fail('the site build recorded no figure sizes (docs/build.py too old?)')
    _wait_math(page)
    problems = page.evaluate(TABLES_JS)
    if re.search(r'^\|.*`#\| slow`', _nb_text(nb), re.M) and not page.locator('main table code', has_text='#| slow').count():
        problems.append('the table row with `#| slow` is lost')  # e.g. the command table of the home page
    r = page.evaluate(OVERFLOW_JS)
    problems += r['cut']
    if len(r['codeScroll']) > MAX_SCROLLING_CODE * r['code']:
        problems.append(f"{len(r['codeScroll'])} of {r['code']} code cells scroll sideways: {r['codeScroll'][:5]}")
    problems += _figure_report(page, name, records.get(name, []))
    for f in page.evaluate(PANEL_FIG_JS):
        px = f['shown'] / f['natural'] * f['pt'] * f['pxPerPt'] if f['natural'] else 0
        if px < MIN_TEXT_PX - 0.05:
            problems.append(f"{name}.html panel {f['panel']} view {f['key']}: smallest text {f['pt']} pt is {px:.1f} px")
    problems += _norm_report(page, nb)
    problems += page.evaluate(WIDE_JS)
    problems += page.evaluate(SIDE_JS)
    return problems


SCREENS_JS = "() => document.documentElement.scrollHeight"


def _screens_problems(page, nb) -> list:
    """The page's length in screens of a 1280 x 800 window (recorded in artifacts/site-screens/), against MAX_SCREENS or
    the page's ceiling in SCREEN_CEILINGS."""
    name = page_name(nb.stem)
    page.set_viewport_size({'width': SCREEN[0], 'height': SCREEN[1]})
    screens = page.evaluate(SCREENS_JS) / SCREEN[1]
    out = ARTIFACTS / 'site-screens'
    out.mkdir(parents=True, exist_ok=True)
    (out / f'{name}.txt').write_text(f'{screens:.1f}\n')
    limit = SCREEN_CEILINGS.get(name, MAX_SCREENS)
    if screens > limit:
        why = 'its ceiling (a page not yet rewritten may not grow)' if name in SCREEN_CEILINGS else 'the limit'
        return [f'{screens:.1f} screens of {SCREEN[0]} x {SCREEN[1]} px, above {why} of {limit}']
    if name in SCREEN_CEILINGS and screens <= MAX_SCREENS:
        return [f'{screens:.1f} screens: within {MAX_SCREENS} now, remove it from SCREEN_CEILINGS']
    return []


WIDE_JS = r"""() => {
  const col = document.querySelector('main article.bd-article') || document.querySelector('main');
  const cs = getComputedStyle(col), box = col.getBoundingClientRect();
  const right = box.right - parseFloat(cs.paddingRight) + 1;
  const out = [];
  for (const t of col.querySelectorAll('table')) {
    const r = t.getBoundingClientRect(), reach = Math.max(r.right, r.left + t.scrollWidth);
    if (reach > right) out.push(`a table ${Math.round(reach - right)} px wider than its column: ` +
                                t.innerText.replace(/\s+/g, ' ').slice(0, 70));
  }
  for (const e of col.querySelectorAll('.cell_output .stderr, .cell_output .output.stderr')) {
    const t = e.innerText.trim();
    if (t) out.push('stderr output shown on the page: ' + t.replace(/\s+/g, ' ').slice(0, 100));
  }
  return out;
}"""


def test_screen_ceilings_name_long_pages():
    "Every page of SCREEN_CEILINGS exists and has a ceiling above MAX_SCREENS (else it needs no entry)."
    pages = {page_name(nb.stem) for nb in notebooks()}
    assert set(SCREEN_CEILINGS) <= pages, f'not pages: {sorted(set(SCREEN_CEILINGS) - pages)}'
    low = {k: v for k, v in SCREEN_CEILINGS.items() if v <= MAX_SCREENS}
    assert not low, f'ceilings within the {MAX_SCREENS}-screen limit (remove these entries): {low}'


def test_build_had_no_failed_pages(site):
    "The site build wrote every page; none of them is a page whose notebook failed (the build lists those in its stamp)."
    failed = json.loads(STAMP.read_text()).get('failed', [])
    assert not failed, f'notebooks that failed to execute when the site was built (their pages carry an error box): {failed}'


def test_llms_txt_links_resolve(site):
    "The site serves llms.txt, and every page it links (nbdev's `<page>.html.md` markdown twins) exists."
    llms = HTML / 'llms.txt'
    assert llms.exists(), 'llms.txt is not on the site (docs/build.py copies nbs/llms.txt)'
    links = re.findall(r'\]\((https?://[^)\s]+)\)', llms.read_text())
    assert links, 'llms.txt links no module page'
    missing = [u for u in links if not (HTML / urlparse(u).path.rsplit('/', 1)[-1]).exists()]
    assert not missing, f'llms.txt links pages the site does not have: {missing}'
    for nb, name in _pages():
        assert (HTML / f'{name}.html.md').exists(), f'{name}.html.md (markdown twin of {nb.name}) is missing'


# ----------------------------------------------------------------------------- static panels
PANEL_STATE_JS = """(id) => { const r = document.getElementById(id);
  const vis = Array.from(r.querySelectorAll('.dpnotes-panel-view')).filter(v => !v.hidden && v.offsetParent !== null);
  return {current: r.dataset.current, visible: vis.map(v => v.dataset.key), html: vis.length ? vis[0].innerHTML.length + ':' +
          vis[0].innerHTML.slice(-200) : '', controls: Array.from(r.querySelectorAll('[data-dpnotes-param]')).map(c =>
          ({id: c.id, tag: c.tagName.toLowerCase(), value: c.value, n: c.tagName === 'SELECT' ? c.options.length : +c.max + 1})),
          views: r.querySelectorAll('.dpnotes-panel-view').length}; }"""


def _move_panels(page, where: str) -> list[str]:
    """Operate every control of every static panel of the open page as a reader would (arrow key on a slider, a choice in a
    menu) and check that exactly one view is visible, that its key is the controls' indices, and that it changed."""
    bad = []
    ids = page.evaluate("() => Array.from(document.querySelectorAll('.dpnotes-panel')).map(p => p.id)")
    for pid in ids:
        st = page.evaluate(PANEL_STATE_JS, pid)
        if len(st['visible']) != 1: bad.append(f'{where} {pid}: {len(st["visible"])} views visible before any change'); continue
        if not st['controls']: continue
        for c in st['controls']:
            before = page.evaluate(PANEL_STATE_JS, pid)
            loc = page.locator(f'#{c["id"]}')
            loc.scroll_into_view_if_needed()
            new = (int(before['controls'][[x['id'] for x in before['controls']].index(c['id'])]['value']) + 1) % c['n']
            if c['tag'] == 'select': loc.select_option(str(new))
            else:
                loc.focus()
                page.keyboard.press('Home' if new == 0 else 'ArrowRight')
            after = page.evaluate(PANEL_STATE_JS, pid)
            want = '-'.join(x['value'] for x in after['controls'])
            if [x['value'] for x in after['controls']] == [x['value'] for x in before['controls']]:
                bad.append(f'{where} {pid}: operating {c["id"]} did not change its value'); continue
            if after['visible'] != [want]:
                bad.append(f'{where} {pid}: controls at {want} but visible views are {after["visible"]}')
            elif after['html'] == before['html']:
                bad.append(f'{where} {pid}: operating {c["id"]} left the same view on screen')
    return bad


def test_static_panels_respond(page, site):
    "On every page with static panels, each control moves the view (pages whose notebooks build panels must show them)."
    bad, n = [], 0
    for nb, name in _pages():
        builds = 'static_panel(' in _default_code(nb)
        if 'dpnotes-panel' not in (HTML / f'{name}.html').read_text(encoding='utf-8'):   # no panel in the file: no need to load it
            if builds: bad.append(f'{name}.html: the notebook builds a static panel but the page shows none')
            continue
        _open(page, f'{site}/{name}.html')
        count = page.locator('.dpnotes-panel').count()
        if builds and not count: bad.append(f'{name}.html: the notebook builds a static panel but the page shows none'); continue
        if not count: continue
        n += count
        assert 'pre-rendered' in page.locator('.dpnotes-panel').first.inner_text().lower(), f'{name}.html: the panel does not say it is pre-rendered'
        bad += _move_panels(page, f'{name}.html')
        if 'An interactive widget is here' in page.locator('main').inner_text():
            bad.append(f'{name}.html has a static panel but its widget note does not point to it')
    assert n, 'no static panel on any page'
    assert not page.errors, f'JavaScript errors: {page.errors}'
    assert not page.external, f'requests leaving the site: {page.external}'
    assert not bad, '\n'.join(bad)


def test_static_panel_standalone(browser, tmp_path):
    "A panel written to a file on its own (no site, no Sphinx, no network) responds to its controls in Chromium."
    import sys
    if str(ROOT) not in sys.path: sys.path.insert(0, str(ROOT))
    from dpnotes.panel import static_panel
    p = static_panel(lambda a, b, c: f'a={a} b={b} c={c}', {'a': [1, 2, 3], 'b': ['x', 'y'], 'c': [0.5]}, title='t')
    f = tmp_path / 'panel.html'
    f.write_text(f'<!doctype html><html><body><main>{p._repr_html_()}</main></body></html>')
    ctx = browser.new_context(viewport={'width': 1280, 'height': 900})
    pg = ctx.new_page()
    errors, external = [], []
    pg.on('pageerror', lambda e: errors.append(str(e)))
    pg.route('**/*', lambda r: (external.append(r.request.url), r.abort()) if r.request.url.startswith('http') else r.continue_())
    pg.goto(f.as_uri())
    visible = lambda: pg.locator('.dpnotes-panel-view:visible').all_inner_texts()
    assert visible() == ['a=2 b=x c=0.5'], visible()            # the middle of each list is shown first
    pg.locator('input[type=range]').focus(); pg.keyboard.press('ArrowRight')
    assert visible() == ['a=3 b=x c=0.5'], visible()
    pg.locator('select').select_option('1')
    assert visible() == ['a=3 b=y c=0.5'], visible()
    assert pg.locator('output').inner_text() == '3'
    assert not errors and not external, (errors, external)
    ctx.close()
