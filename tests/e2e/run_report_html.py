#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_report_html.py: the HTML dashboard of `libbench report --html` (tools/results/results_html.c) end
# to end. The report documents of tests/data/report-*.json are rendered by render_report_html
# and opened in headless Chromium by browser_check.py: no console error, no request off the
# file, the table's rows in the document's order with their states, every chart drawn and
# painted; hostile strings stay text; null and unmeasured never read as 0 or a pass; errors
# name their cause; the same document gives the same bytes. The browser cases skip (77) with
# the reason where Chromium is missing.
#
# usage: run_report_html.py CASE   (environment: REPORT_HTML_RENDER, REPORT_HTML_BROWSER_CHECK,
#                                   REPORT_HTML_DATA)
import json
import os
import pathlib
import struct
import subprocess
import sys
import tempfile

SKIP = 77
EM_DASH = '\u2014'
RENDER = os.environ['REPORT_HTML_RENDER']
BROWSER_CHECK = os.environ['REPORT_HTML_BROWSER_CHECK']
DATA = pathlib.Path(os.environ['REPORT_HTML_DATA'])
# The Chart.js file the build found (Debian's libjs-chart.js), or '' when it found none: then
# the renderer's refusal is checked, the browser cases skip with the reason, and the others
# render with a stand-in file.
CHARTJS = os.environ.get('REPORT_HTML_CHARTJS', '')
STAND_IN = None

# Cell indexes of a dashboard row (the table's columns, tools/results/results_html_table.c).
STATE, BENCH, N, P50, P90, P99, FAILURES, SINCE, WHY = range(9)
N_CELLS = 9


class Failure(Exception):
    pass


def expect(condition, what):
    if not condition:
        raise Failure(what)


def render(document, out, chartjs=None):
    chartjs = chartjs or STAND_IN
    args = [RENDER, str(document), str(out)] + ([str(chartjs)] if chartjs else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def rendered(tmp, name):
    out = tmp / (name + '.html')
    if not CHARTJS:
        r = render(DATA / ('report-%s.json' % name), out)
        expect(r.returncode == 1 and "install Debian's libjs-chart.js package" in r.stderr,
               'without Chart.js: exit %d, stderr %r' % (r.returncode, r.stderr))
        print('skipped: the build found no Chart.js (Debian package libjs-chart.js), so the page '
              'cannot draw its charts; the refusal that names the package was checked')
        sys.exit(SKIP)
    r = render(DATA / ('report-%s.json' % name), out)
    expect(r.returncode == 0, 'render %s: exit %d, stderr %r' % (name, r.returncode, r.stderr))
    return out


def browse(page, screenshot=None):
    """browser_check.py's report of the page; None when Chromium is missing (the reason said)."""
    report_path = page.with_suffix('.check.json')
    args = [sys.executable, BROWSER_CHECK, str(page), '--json', str(report_path)]
    args += ['--width', '1400']
    if screenshot:
        args += ['--screenshot', str(screenshot)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=100)
    if r.returncode == SKIP:
        print(r.stdout.strip())
        return None
    expect(r.returncode == 0, 'browser_check %s: exit %d\n%s%s'
           % (page.name, r.returncode, r.stdout, r.stderr))
    report = json.loads(report_path.read_text())
    expect(report['console'] == [], 'console errors: %r' % report['console'])
    expect(report['requests'] == [], 'requests off the file: %r' % report['requests'])
    for chart in report['charts']:
        expect(chart['drawn'] and chart['painted'] > 0, 'chart not drawn: %r' % chart)
    # at 1400 px nothing scrolls sideways, the details folded or open
    for layout in (report['layout'], report['layout_details_open']):
        expect(layout['window'] == 1400 and layout['doc_scroll'] <= layout['doc_client']
               and layout['table_scroll'] <= layout['wrap_client'],
               'the table does not fit 1400 px: %r' % layout)
    return report


def identity(row):
    parts = [row['profile'], row['scenario'], row['operation']]
    return ' / '.join(p for p in parts if p)


def check_rows_match_document(report, document):
    """The table holds the document's rows in the document's order, with their states."""
    rows = json.loads(document.read_text())['rows']
    got = [(r['state'], r['state_cell'], r['cells'][BENCH]) for r in report['rows']]
    want = [(r['state'], r['state'], '%s (%s%s)' % (identity(r), r['subject'],
                                                   ', whole process' if r['whole_process']
                                                   else '')) for r in rows]
    expect(got == want, 'rows:\n got  %r\n want %r' % (got, want))
    for row in report['rows']:
        expect(len(row['cells']) == N_CELLS, 'a row has %d cells: %r' % (len(row['cells']),
                                                                          row['cells']))


def check_charts(report, document):
    """One history chart per row with recorded runs, one distribution chart per row whose
    latest run has 10 successful samples or more, in the rows' order; a history chart marks
    each change point, and the run an open state holds since when no change point opened it."""
    doc = json.loads(document.read_text())
    want, markers = [], {}
    for i, r in enumerate(doc['rows']):
        h = r['history']
        if h['points']:
            want.append('history-%d' % i)
            opened = any(c['open'] for c in h['changes'])
            markers['history-%d' % i] = len(h['changes']) + (1 if r['since'] and not opened
                                                             else 0)
        if len(r['values_ns']) >= 10:
            want.append('dist-%d' % i)
    got = [c['id'] for c in report['charts']]
    expect(got == want, 'charts: got %r, want %r' % (got, want))
    for c in report['charts']:
        if c['id'] in markers:
            expect(c['markers'] == markers[c['id']],
                   '%s: %r markers, %d wanted' % (c['id'], c['markers'], markers[c['id']]))
    changes = sum(len(r['history']['changes']) for r in doc['rows'])
    expect(report['change_points'] == changes, 'listed change points: %r of %d'
           % (report['change_points'], changes))


def case_normal(tmp):
    page = rendered(tmp, 'normal')
    report = browse(page)
    if report is None:
        return SKIP
    check_rows_match_document(report, DATA / 'report-normal.json')
    check_charts(report, DATA / 'report-normal.json')
    expect([r['state'] for r in report['rows']] == ['watch', 'ok', 'ok'], 'states')
    watch = report['rows'][0]['cells']
    # absolute and relative together: 1180 ns against 1100 ns
    expect(watch[P50] == '1.2\u00b5s+80.00ns (+7.3%)', 'p50 cell %r' % watch[P50])
    expect(report['watch_items'] == 1 and report['open_regressions'] == 0, 'the top')
    return 0


def case_states(tmp):
    page = rendered(tmp, 'states')
    shot = tmp / 'states.png'
    report = browse(page, screenshot=shot)
    if report is None:
        return SKIP
    check_rows_match_document(report, DATA / 'report-states.json')
    check_charts(report, DATA / 'report-states.json')
    states = [r['state'] for r in report['rows']]
    expect(states == ['fail', 'unmeasured', 'regression', 'guardrail', 'watch', 'ok'],
           'states %r' % states)
    rows = {r['state']: r['cells'] for r in report['rows']}
    # fail: no successful sample, so no percentile and no delta; its failures say it
    fail = rows['fail']
    for i in (P50, P90, P99):
        expect(fail[i] == EM_DASH, 'fail row cell %d is %r, not an em dash' % (i, fail[i]))
    expect(fail[FAILURES].startswith('4/4') and fail[N] == '0', 'fail row %r' % fail)
    # unmeasured: said as such, no delta, never 0 or a pass
    unmeasured = rows['unmeasured']
    expect(unmeasured[STATE] == 'unmeasured', 'state cell %r' % unmeasured[STATE])
    for i in (P50, P90, P99):
        expect(unmeasured[i].endswith(EM_DASH), 'unmeasured row cell %d is %r' % (i,
                                                                               unmeasured[i]))
    # every delta shown is absolute and relative together, never a percentage alone; a tail
    # not judged for its samples says the n it needs
    for cells in report['rows']:
        for i in (P50, P90, P99):
            cell = cells['cells'][i]
            expect(cell.endswith(EM_DASH) or 's (' in cell and cell.count('%') == 1
                   or cell.endswith(EM_DASH + ' n < 100') or cell.endswith(EM_DASH + ' n < 10'),
                   'delta cell %r' % cell)
    expect(rows['regression'][P90].endswith(EM_DASH + ' n < 10')
           and rows['regression'][P99].endswith(EM_DASH + ' n < 100'),
           'the tails of 5 samples %r' % rows['regression'])
    expect('decided by reference (the guardrail)' in rows['guardrail'][WHY],
           'guardrail %r' % rows['guardrail'])
    expect('+400.0ms (+20.0%)' in rows['regression'][P50], 'regression %r' % rows['regression'])
    # the open regression at the top, since the run of its change point, which the chart marks
    expect(report['open_regressions'] == 1 and report['watch_items'] == 1, 'the top')
    expect('regressed since' in report['text'] and 'commit 9f3c2e1d0b4a' in report['text'],
           'the open regression says since when and which commit')
    expect(rows['regression'][SINCE] != EM_DASH and rows['ok'][SINCE] == EM_DASH, 'since')
    # an estimate keeps its mark in the details
    expect('cycles \u22483.10G' in rows['regression'][WHY], 'metrics %r' % rows['regression'])
    expect('No successful measurement in the latest run' in report['text'],
           'the fail row says why it has no distribution')
    expect('5 successful samples in the latest run' in report['text']
           and '(no histogram under 10)' in report['text'], 'no histogram of 5 samples')
    # the screenshot: a PNG of the whole page, 1400 px wide
    png = shot.read_bytes()
    expect(png[:8] == b'\x89PNG\r\n\x1a\n', 'screenshot is not a PNG')
    width, height = struct.unpack('>II', png[16:24])
    expect(width == 1400 and height > 900, 'screenshot %dx%d' % (width, height))
    return 0


def case_hostile(tmp):
    page = rendered(tmp, 'hostile')
    html = page.read_text()
    # The only "</script" are the closers of the page's three script elements.
    expect(html.lower().count('</script') == 3, 'a "</script" from the data reached the page')
    expect('<b>' not in html and '<img' not in html and '<i>' not in html,
           'markup from the data reached the page')
    report = browse(page)
    if report is None:
        return SKIP
    check_rows_match_document(report, DATA / 'report-hostile.json')
    check_charts(report, DATA / 'report-hostile.json')
    for tag in ('b', 'i', 'img'):
        expect(tag not in report['tags'], 'a <%s> element from the data: %r' % (tag,
                                                                            report['tags']))
    expect(report['tags'].get('script') == 3, 'scripts: %r' % report['tags'])
    doc = json.loads((DATA / 'report-hostile.json').read_text())
    first = report['rows'][0]['cells']
    expect(doc['rows'][0]['scenario'] in first[BENCH], 'scenario text %r' % first[BENCH])
    expect(first[WHY].startswith('<b>why</b>, ]]></script>'), 'why text %r' % first[WHY])
    expect(doc['selection']['target']['subject'] in report['text'], 'target subject text')
    expect(doc['results'] in report['text'], 'results dir text')
    return 0


def case_errors(tmp):
    """Each refusal exits 1 with its cause on one line, and leaves no file."""
    out = tmp / 'out.html'
    good = DATA / 'report-normal.json'
    bad_json = tmp / 'bad.json'
    bad_json.write_text('{"schema": "libbench-report/2", "rows": [}')
    wrong_schema = tmp / 'schema.json'
    wrong_schema.write_text('{"schema": "libbench-report/1", "rows": [], "history": [], '
                            '"latest": []}')
    rows_not_array = tmp / 'rows.json'
    rows_not_array.write_text('{"schema": "libbench-report/2", "rows": {}}')
    row_not_object = tmp / 'row.json'
    row_not_object.write_text('{"schema": "libbench-report/2", "rows": [1]}')
    closer = tmp / 'closer.js'
    closer.write_text('var s = "</SCRIPT>";\n')
    cases = [
        (bad_json, out, None, 'report document: line 1:'),
        (wrong_schema, out, None, '"schema" is not "libbench-report/2"'),
        (rows_not_array, out, None, '"rows" is not an array'),
        (row_not_object, out, None, 'rows[0] is not an object'),
        (good, out, tmp / 'missing' / 'chart.min.js', "install Debian's libjs-chart.js package"),
        (good, out, closer, 'cannot be inlined'),
        (good, tmp, None, 'cannot write'),
    ]
    for document, dest, chartjs, message in cases:
        r = render(document, dest, chartjs)
        expect(r.returncode == 1, '%s: exit %d' % (document.name, r.returncode))
        expect(message in r.stderr and r.stderr.count('\n') == 1,
               '%s: stderr %r lacks %r' % (document.name, r.stderr, message))
        expect(not out.exists(), '%s: a page was written' % document.name)
    return 0


def case_deterministic(tmp):
    """The same document gives the same bytes; the page's own text names no URL; Chart.js is
    inlined as the build found it."""
    a, b = tmp / 'a.html', tmp / 'b.html'
    for out in (a, b):
        r = render(DATA / 'report-states.json', out)
        expect(r.returncode == 0, 'render: %r' % r.stderr)
    expect(a.read_bytes() == b.read_bytes(), 'two renders of one document differ')
    html = a.read_text()
    start = html.index('/* Chart.js, inlined')
    end = html.index('</script>', start)
    own = html[:start] + html[end:]
    expect('http:' not in own and 'https:' not in own, 'the page names a URL outside Chart.js')
    expect('src=' not in own and 'href="http' not in own, 'the page loads a resource')
    chartjs = pathlib.Path('/usr/share/javascript/chart.js/chart.min.js')
    if chartjs.is_file():
        expect(chartjs.read_text() in html, 'Chart.js is not inlined verbatim')
    return 0


CASES = {'normal': case_normal, 'states': case_states, 'hostile': case_hostile,
         'errors': case_errors, 'deterministic': case_deterministic}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print('usage: run_report_html.py {%s}' % ','.join(CASES), file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix='report_html.') as tmp:
        if not CHARTJS and sys.argv[1] in ('errors', 'deterministic'):
            global STAND_IN
            STAND_IN = pathlib.Path(tmp) / 'stand-in-chart.js'
            STAND_IN.write_text('/* a stand-in for Chart.js: the build found none */\n')
        try:
            return CASES[sys.argv[1]](pathlib.Path(tmp))
        except Failure as e:
            print('FAIL: %s' % e, file=sys.stderr)
            return 1


if __name__ == '__main__':
    sys.exit(main())
