#!/usr/bin/env python3
"""Opens a kscope report.html in headless Chromium and looks at it as a person would.

Fails (exit 1, one line per problem) when:
- the page logs a console error or warning, throws an uncaught exception, or asks for
  anything but itself over the network (the page must work offline);
- a chart named in --charts did not render: its SVG has no Vega data marks, or its
  screenshot is blank (almost every pixel the background colour); a chart not named there
  must render or say why it is empty;
- a kernel name of the report is not shown as text in a table cell, a kernel name cell
  holds other text, or the page holds an element that the page itself does not write (what
  an unescaped name would inject);
- hovering the first bar of the top kernels does not show that kernel's whole name;
- a kernel cell does not show the report's short name with the full name on hover and on
  expand, or the top kernels chart's labels repeat or are not the short names;
- the report embedded in the page differs from --json.
Writes a screenshot of the whole page to --screenshot.
"""

import argparse
import base64
import json
import pathlib
import re
import sys
import time

from browser import Browser, BrowserError
import png

CHARTS = ["top-kernels", "roofline", "stages", "bottleneck-mix", "timeline", "critical-path"]

# Every element the page writes: its own HTML and what Vega's SVG renderer draws.
ELEMENTS = {
    "html", "head", "meta", "title", "style", "script", "body", "header", "main", "section",
    "footer", "h1", "h2", "h3", "p", "div", "span", "table", "caption", "thead", "tbody", "tr",
    "th", "td", "ul", "li", "code", "details", "summary", "noscript",
    "form", "svg", "g", "path", "rect", "line", "text", "defs", "clippath", "lineargradient", "stop",
}

PAGE_FACTS = """(() => {
  const charts = [...document.querySelectorAll('[data-chart]')].map(el => {
    const box = el.getBoundingClientRect();
    return {name: el.dataset.chart, state: el.dataset.state || '',
            marks: el.querySelectorAll('svg g.role-mark > *').length,
            empty: el.querySelector('.chart-empty') ? el.querySelector('.chart-empty').textContent : '',
            x: box.left + scrollX, y: box.top + scrollY, width: box.width, height: box.height};
  });
  const tags = [...new Set([...document.querySelectorAll('*')].map(e => e.tagName.toLowerCase()))];
  // A kernel cell shows its short name (summary, the full name as its title) and holds the
  // full name for when it is expanded (code); a cell's text is that full name.
  const full = (e) => { const code = e.querySelector('details.kernel > code'); return code ? code.textContent : e.textContent; };
  const cells = [...document.querySelectorAll('td')].map(full);
  const nameCells = [...document.querySelectorAll('td.name')].map(full);
  const kernelCells = [...document.querySelectorAll('td.name details.kernel')].map(d => {
    const summary = d.querySelector('summary');
    return {shown: summary.textContent, title: summary.getAttribute('title') || '', full: full(d.parentElement),
            open_height: d.getBoundingClientRect().height};
  });
  const labels = [...document.querySelectorAll('[data-chart="top-kernels"] .role-axis-label text')]
    .map(e => e.textContent);
  const data = document.getElementById('kscope-report');
  return {charts, tags, cells, name_cells: nameCells, kernel_cells: kernelCells, top_kernel_labels: labels,
          data: data ? data.textContent : null,
          width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight};
})()"""


def kernel_names(report):
    names = [k.get("name") for k in report.get("top_kernels") or []]
    for stage in report.get("stages") or []:
        names += [k.get("name") for k in stage.get("top_kernels") or []]
    names += [p.get("kernel") for p in (report.get("roofline") or {}).get("points") or []]
    names += [k.get("name") for k in report.get("profiled_kernels") or []]
    return sorted({n for n in names if n})


def console_problems(events, page_url):
    problems = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            problems.append(f"console {params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            problems.append(f"uncaught exception: {text}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            problems.append(f"browser error: {params['entry'].get('text')}")
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if url != page_url:
                problems.append(f"network request (the page must be self-contained): {url[:200]}")
    return problems


def chart_problems(browser, facts, required, charts=None):
    problems, seen = [], {c["name"]: c for c in facts["charts"]}
    for name in charts or CHARTS:
        chart = seen.get(name)
        if chart is None:
            problems.append(f"chart {name}: not on the page")
            continue
        if chart["state"] == "empty" and name not in required and chart["empty"].strip():
            continue
        if chart["state"] != "rendered" or chart["marks"] == 0:
            problems.append(f"chart {name}: not rendered (state '{chart['state']}', "
                            f"{chart['marks']} marks)")
            continue
        clip = {k: chart[k] for k in ("x", "y", "width", "height")}
        if clip["width"] < 1 or clip["height"] < 1:
            problems.append(f"chart {name}: takes no space on the page")
            continue
        shot = browser.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True, "optimizeForSpeed": True,
            "clip": {**clip, "scale": 1}})
        drawn, total = png.count_unlike(base64.b64decode(shot["data"]))
        if drawn < 0.01 * total:
            problems.append(f"chart {name}: blank screenshot ({drawn} of {total} pixels drawn)")
    return problems


def tooltip_problems(browser, facts, report):
    """Hovering the first bar of the top kernels shows that kernel's whole name."""
    kernels = report.get("top_kernels") or []
    if not kernels or not any(c["name"] == "top-kernels" and c["state"] == "rendered" for c in facts["charts"]):
        return []
    bar = browser.evaluate("""(() => {
      const bar = document.querySelector('[data-chart="top-kernels"] g.role-mark > path');
      bar.scrollIntoView({block: 'center'});
      const box = bar.getBoundingClientRect();
      return {x: box.left + box.width / 2, y: box.top + box.height / 2};
    })()""")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": bar["x"], "y": bar["y"]})
    title = browser.evaluate(
        "document.querySelector('[data-chart=\"top-kernels\"] .chart-canvas').getAttribute('title') || ''")
    if kernels[0].get("name") and kernels[0]["name"] not in title:
        return [f"hovering the first top kernel's bar does not show its whole name (tooltip: {title[:120]!r})"]
    return []


def content_problems(facts, report):
    problems = []
    injected = sorted(set(facts["tags"]) - ELEMENTS)
    if injected:
        problems.append(f"elements the page does not write (unescaped text?): {injected}")
    if facts["data"] is None:
        return problems + ["no embedded report (script#kscope-report)"]
    if report is not None and json.loads(facts["data"]) != report:
        problems.append("the report embedded in the page differs from the JSON file")
    names = kernel_names(json.loads(facts["data"]))
    cells = set(facts["cells"])
    for name in names:
        if name not in cells:
            problems.append(f"kernel name not shown as a table cell's text: {name[:120]}")
    for cell in sorted(set(facts["name_cells"]) - set(names)):
        problems.append(f"a kernel name cell whose text is no kernel name of the report: {cell[:120]}")
    return problems + short_name_problems(facts, json.loads(facts["data"]))


def short_names(report):
    """Full name -> short name, over every kernel the report names."""
    pairs = [(k.get("name"), k.get("short_name")) for k in report.get("top_kernels") or []]
    for stage in report.get("stages") or []:
        pairs += [(k.get("name"), k.get("short_name")) for k in stage.get("top_kernels") or []]
    pairs += [(p.get("kernel"), p.get("short_name")) for p in (report.get("roofline") or {}).get("points") or []]
    pairs += [(k.get("name"), k.get("short_name")) for k in report.get("profiled_kernels") or []]
    return dict(pairs)


def short_name_problems(facts, report):
    """Kernel cells show the report's short name, the full name on hover and on expand; the top
    kernels chart's labels are unique and carry the short names."""
    problems, shorts = [], short_names(report)
    for cell in facts["kernel_cells"]:
        if shorts.get(cell["full"]) != cell["shown"]:
            problems.append(f"a kernel cell shows {cell['shown'][:80]!r}, not the short name of {cell['full'][:80]}")
        if cell["title"] != cell["full"]:
            problems.append(f"hovering the kernel cell {cell['shown'][:80]!r} does not show its full name")
    labels = [l for l in facts["top_kernel_labels"] if re.match(r"\d+\. ", l)]  # the y axis's, not the x axis's numbers
    if len(labels) != len(set(labels)):
        problems.append(f"the top kernels chart repeats a label: {labels}")
    expected = [f"{k.get('rank')}. {k.get('short_name')}" for k in report.get("top_kernels") or []]
    if labels and labels != expected:
        problems.append(f"the top kernels chart's labels {labels} are not the short names {expected}")
    return problems


def check(args, browser=None):
    """The problems of the page args.page, seen in `browser` (a new one when None)."""
    page = pathlib.Path(args.page).resolve()
    if not page.is_file():
        return [f"no such page: {page}"]
    url = page.as_uri()
    report = json.loads(pathlib.Path(args.json).read_text()) if args.json else None
    own_browser = browser is None
    if own_browser:
        browser = Browser(args.chromium, args.browser_log)
    try:
        browser.open_page()
        browser.call("Page.navigate", {"url": url})
        browser.wait_for_event("Page.loadEventFired", timeout=args.timeout)
        deadline = time.monotonic() + args.timeout
        while browser.evaluate("document.documentElement.dataset.charts || ''") != "done":
            if time.monotonic() > deadline:
                return ["the charts did not finish rendering in time"] + console_problems(browser.events, url)
            time.sleep(0.1)
        facts = browser.evaluate(PAGE_FACTS)
        # The critical path's chart is on a page whose report has a path to draw.
        embedded = json.loads(facts["data"]) if facts["data"] is not None else {}
        charts = [c for c in CHARTS
                  if c != "critical-path" or ((embedded.get("critical_path") or {}).get("drawing"))]
        required = set(args.charts.split(",")) & set(charts) if args.charts else set()
        problems = chart_problems(browser, facts, required, charts)
        problems += content_problems(facts, report)
        if facts["data"] is not None:
            problems += tooltip_problems(browser, facts, json.loads(facts["data"]))
        if args.screenshot:
            shot = browser.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": facts["width"], "height": facts["height"], "scale": 1}})
            pathlib.Path(args.screenshot).write_bytes(base64.b64decode(shot["data"]))
        return console_problems(browser.events, url) + problems
    finally:
        if own_browser:
            browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", help="report.html")
    parser.add_argument("--json", help="report.json the page must embed")
    parser.add_argument("--charts", default=",".join(CHARTS),
                        help="charts that must render (comma-separated; others may be empty)")
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--screenshot", help="where to write a PNG of the whole page")
    parser.add_argument("--browser-log", default="/dev/null", help="chromium's own stderr")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    started = time.monotonic()
    try:
        problems = check(args)
    except (BrowserError, png.PngError) as e:
        problems = [str(e)]
    for p in problems:
        print(f"check_report: {args.page}: {p}")
    if problems:
        return 1
    print(f"check_report: {args.page}: ok ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
