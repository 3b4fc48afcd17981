#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# browser_check.py: opens one HTML page from disk in headless Chromium and reports what a reader
# would see: the console errors (and uncaught exceptions, CSP violations, failed loads), every
# request that left the file, the dashboard table's rows in order (the state and each cell's
# text), for every <canvas> whether Chart.js drew it (the page marks it data-drawn="1"), how many
# of its pixels are painted and how many change-point markers it drew (data-markers), the
# listed change points and the top's items, and how wide the page and the table are against the
# window, with the table's details folded and open; optionally a PNG screenshot of the whole
# page. It judges nothing about a particular report but that the page is clean: the tests do
# (run_report_html.py, run_results.py).
#
# Python's standard library only: the DevTools protocol over --remote-debugging-pipe (fd 3 is
# Chromium's input, fd 4 its output, one JSON message per NUL-terminated chunk), so no websocket
# and no port. As root, Chromium runs with --no-sandbox (it refuses to start otherwise).
#
# usage: browser_check.py PAGE.html [--json OUT.json] [--screenshot OUT.png] [--width N]
# exit: 0 the page is clean (no console error, no request off the file, every canvas drawn and
#       painted, nothing scrolls sideways); 1 it is not (each problem on stderr); 2 usage, or the browser failed;
#       77 Chromium is not installed (the reason on stdout).
import argparse
import base64
import fcntl
import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77

COLLECT = r"""(() => {
  const rows = [...document.querySelectorAll('#dashboard tbody tr')].map(tr => ({
    state: tr.getAttribute('data-state'),
    state_cell: (tr.querySelector('td.state') || {}).textContent || null,
    cells: [...tr.children].map(td => td.textContent)}));
  const charts = [...document.querySelectorAll('canvas')].map(c => {
    let painted = -1;
    try {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      painted = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) painted++;
    } catch (e) { painted = -1; }
    return {id: c.id, drawn: c.getAttribute('data-drawn') === '1', width: c.width,
            height: c.height, painted: painted,
            markers: c.hasAttribute('data-markers') ? Number(c.getAttribute('data-markers'))
                                                    : null};
  });
  const tags = {};
  for (const e of document.body.querySelectorAll('*')) {
    const n = e.tagName.toLowerCase(); tags[n] = (tags[n] || 0) + 1; }
  return JSON.stringify({title: document.title, rows: rows, charts: charts, tags: tags,
                         text: document.body.innerText, layout: LAYOUT(),
                         change_points: document.querySelectorAll('li.cp').length,
                         open_regressions: document.querySelectorAll('li.open-regression').length,
                         watch_items: document.querySelectorAll('li.watch-item').length});
})()"""

# How wide the page and the dashboard table are against the window: a table that fits has
# nothing to scroll sideways.
LAYOUT_JS = r"""(() => {
  const t = document.getElementById('dashboard');
  const wrap = t ? t.parentElement : null;
  return {window: window.innerWidth, doc_scroll: document.documentElement.scrollWidth,
          doc_client: document.documentElement.clientWidth,
          table_scroll: t ? t.scrollWidth : null, table_width: t ? t.offsetWidth : null,
          wrap_client: wrap ? wrap.clientWidth : null, wrap_scroll: wrap ? wrap.scrollWidth : null};
})"""
COLLECT = COLLECT.replace('LAYOUT()', '(' + LAYOUT_JS + ')()')
# The same with every <details> of the table folded out.
OPEN_LAYOUT = ("(() => { document.querySelectorAll('details').forEach(d => d.open = true);"
               " return JSON.stringify((" + LAYOUT_JS + ")()); })()")

ALL_DRAWN = ("[...document.querySelectorAll('canvas')]"
             ".every(c => c.getAttribute('data-drawn') === '1')")


def find_chromium():
    override = os.environ.get('CHROMIUM')
    if override:
        return override if os.access(override, os.X_OK) else None
    for name in ('chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process driven over the DevTools pipe."""

    def __init__(self, exe, profile_dir):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Move the child's ends above 9 so that putting them at 3 and 4 cannot overwrite each other.
        hi_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, '--headless', '--remote-debugging-pipe', '--disable-gpu',
                '--no-first-run', '--no-default-browser-check', '--disable-extensions',
                '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--disable-dev-shm-usage', '--mute-audio', '--hide-scrollbars',
                '--user-data-dir=' + profile_dir, 'about:blank']
        if os.geteuid() == 0:
            args.insert(1, '--no-sandbox')
        self.log = open(os.path.join(profile_dir, 'chromium.log'), 'w+b')
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, close_fds=False, preexec_fn=child_fds)
        os.close(hi_r)
        os.close(hi_w)
        self.messages = queue.Queue()
        self.events = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        pending = b''
        while True:
            try:
                chunk = os.read(self.from_child, 1 << 16)
            except OSError:
                chunk = b''
            if not chunk:
                self.messages.put(None)
                return
            pending += chunk
            while b'\0' in pending:
                message, pending = pending.split(b'\0', 1)
                self.messages.put(json.loads(message))

    def _pump(self, deadline):
        """One message (an event goes to self.events), or None at the deadline."""
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            message = self.messages.get(timeout=left)
        except queue.Empty:
            return None
        if message is None:
            self.messages.put(None)  # the pipe stays closed for every later call
            try:
                status = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                status = 'none yet'
            raise RuntimeError('Chromium closed the DevTools pipe (exit status %s)' % status)
        if 'method' in message:
            self.events.append(message)
        return message

    def call(self, method, params=None, session=None, timeout=30.0):
        self.next_id += 1
        message = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        os.write(self.to_child, json.dumps(message).encode() + b'\0')
        deadline = time.monotonic() + timeout
        while True:
            reply = self._pump(deadline)
            if reply is None:
                raise RuntimeError('no answer to %s within %.0f s' % (method, timeout))
            if reply.get('id') == self.next_id:
                if 'error' in reply:
                    raise RuntimeError('%s: %s' % (method, reply['error'].get('message')))
                return reply.get('result', {})

    def wait_event(self, method, session, timeout, since=0):
        """The first event `method` of the session from self.events[since:] on."""
        deadline = time.monotonic() + timeout
        seen = since
        while True:
            for event in self.events[seen:]:
                if event['method'] == method and event.get('sessionId') == session:
                    return event
            seen = len(self.events)
            if self._pump(deadline) is None:
                raise RuntimeError('no %s within %.0f s' % (method, timeout))

    def close(self):
        try:
            self.call('Browser.close', timeout=5)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_child)
        os.close(self.from_child)
        self.log.seek(0)
        self.log_tail = self.log.read().decode(errors='replace').splitlines()[-15:]
        self.log.close()


def evaluate(browser, session, expression):
    result = browser.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True},
                          session)
    if 'exceptionDetails' in result:
        raise RuntimeError('evaluation failed: %s' % result['exceptionDetails'].get('text'))
    return result['result'].get('value')


def console_problems(events, session):
    """The console errors, uncaught exceptions and browser log errors, one line each."""
    problems = []
    for event in events:
        if event.get('sessionId') != session:
            continue
        method, params = event['method'], event.get('params', {})
        if method == 'Runtime.consoleAPICalled' and params.get('type') in ('error', 'assert'):
            text = ' '.join(str(a.get('value', a.get('description', ''))) for a in params['args'])
            problems.append('console.%s: %s' % (params['type'], text))
        elif method == 'Runtime.exceptionThrown':
            details = params['exceptionDetails']
            text = details.get('exception', {}).get('description') or details.get('text')
            problems.append('exception: %s (line %s)' % (text, details.get('lineNumber')))
        elif method == 'Log.entryAdded' and params['entry'].get('level') == 'error':
            entry = params['entry']
            problems.append('log %s: %s %s' % (entry.get('source'), entry.get('text'),
                                               entry.get('url', '')))
    return problems


def off_file_requests(events, session):
    return [e['params']['request']['url'] for e in events
            if e.get('sessionId') == session and e['method'] == 'Network.requestWillBeSent'
            and not e['params']['request']['url'].startswith(('file:', 'data:', 'about:'))]


def check(page, width, screenshot):
    exe = find_chromium()
    if exe is None:
        return None
    with tempfile.TemporaryDirectory(prefix='browser_check.') as profile_dir:
        browser = Browser(exe, profile_dir)
        try:
            target = browser.call('Target.createTarget', {'url': 'about:blank'})['targetId']
            session = browser.call('Target.attachToTarget',
                                   {'targetId': target, 'flatten': True})['sessionId']
            for domain in ('Runtime', 'Log', 'Page', 'Network'):
                browser.call(domain + '.enable', session=session)
            browser.call('Emulation.setDeviceMetricsOverride',
                         {'width': width, 'height': 900, 'deviceScaleFactor': 1,
                          'mobile': False}, session)
            since = len(browser.events)  # the load may come before navigate's answer
            browser.call('Page.navigate', {'url': pathlib.Path(page).resolve().as_uri()},
                         session)
            browser.wait_event('Page.loadEventFired', session, 30, since)
            deadline = time.monotonic() + 15
            while not evaluate(browser, session, ALL_DRAWN) and time.monotonic() < deadline:
                time.sleep(0.1)
            report = json.loads(evaluate(browser, session, COLLECT))
            if screenshot:
                metrics = browser.call('Page.getLayoutMetrics', session=session)
                size = metrics['cssContentSize']
                browser.call('Emulation.setDeviceMetricsOverride',
                             {'width': width, 'height': int(size['height']) + 1,
                              'deviceScaleFactor': 1, 'mobile': False}, session)
                time.sleep(0.5)  # let a resized chart draw again
                shot = browser.call('Page.captureScreenshot', {'format': 'png'}, session)
                pathlib.Path(screenshot).write_bytes(base64.b64decode(shot['data']))
                browser.call('Emulation.setDeviceMetricsOverride',
                             {'width': width, 'height': 900, 'deviceScaleFactor': 1,
                              'mobile': False}, session)
            report['layout_details_open'] = json.loads(evaluate(browser, session, OPEN_LAYOUT))
            time.sleep(0.2)  # messages logged by the last draws
            while browser._pump(time.monotonic() + 0.05) is not None:
                pass
            report['console'] = console_problems(browser.events, session)
            report['requests'] = off_file_requests(browser.events, session)
        except RuntimeError as e:
            browser.close()
            raise RuntimeError('%s; Chromium said:\n  %s' % (e, '\n  '.join(browser.log_tail)))
        browser.close()
    report['page'] = str(page)
    report['browser'] = exe
    return report


def main():
    parser = argparse.ArgumentParser(description='Open a page in headless Chromium and report.')
    parser.add_argument('page')
    parser.add_argument('--json', help='write the report (JSON) to this file ("-": stdout)')
    parser.add_argument('--screenshot', help='write a PNG of the whole page to this file')
    parser.add_argument('--width', type=int, default=1600)
    args = parser.parse_args()
    if not os.path.isfile(args.page):
        print('browser_check: no such page: %s' % args.page, file=sys.stderr)
        return 2
    try:
        report = check(args.page, args.width, args.screenshot)
    except RuntimeError as e:
        print('browser_check: %s' % e, file=sys.stderr)
        return 2
    if report is None:
        print('SKIP: Chromium is not installed (no chromium on PATH, or $CHROMIUM is not '
              'executable): Debian package chromium')
        return SKIP
    if args.json == '-':
        json.dump(report, sys.stdout, indent=2)
        print()
    elif args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=2) + '\n')
    problems = list(report['console'])
    problems += ['request off the file: %s' % url for url in report['requests']]
    for what, layout in (('', report['layout']),
                         (' with its details open', report['layout_details_open'])):
        if layout['doc_scroll'] > layout['doc_client'] or (
                layout['wrap_scroll'] is not None and layout['wrap_scroll'] > layout['wrap_client']):
            problems.append('the page scrolls sideways at %d px%s: %r'
                            % (layout['window'], what, layout))
    for chart in report['charts']:
        if not chart['drawn']:
            problems.append('chart %s: not drawn' % chart['id'])
        elif chart['painted'] <= 0:
            problems.append('chart %s: drawn but blank (%d painted pixels)'
                            % (chart['id'], chart['painted']))
    for problem in problems:
        print('browser_check: %s' % problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
