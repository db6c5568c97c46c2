#!/usr/bin/env python3
"""Opens a kscope atlas.html in headless Chromium and looks at it as report.html's check does.

Fails (exit 1, one line per problem) when the page logs a console error or warning, throws,
or asks the network for anything; when a chart named in --charts did not render (no Vega
marks, or a blank screenshot; others must render or say why they are empty); when a family
or kernel name of the atlas is not shown as a table cell's text, a name cell holds text that
is no name of the atlas, or the page holds an element it does not write itself (what an
unescaped name would inject); when hovering the matrix's first cell does not show that
family's name; when the atlas embedded in the page differs from --json.
"""

import argparse
import json
import pathlib
import sys
import time

from browser import Browser, BrowserError
import check_report
import png

CHARTS = ["atlas-popularity", "atlas-classes", "atlas-correlates"]


def atlas_names(atlas):
    names = []
    for view in ("popularity", "performance", "correlates"):
        for row in atlas.get(view) or []:
            names += [row.get("family"), row.get("kernel")]
            names += [o.get("kernel") for o in row.get("outliers") or []]
    for signal in atlas.get("signals") or []:
        names += [f.get("family") for f in signal.get("families") or []]
    names += [row.get("model") for row in atlas.get("communication") or []]
    return sorted({n for n in names if n})


def content_problems(facts, atlas):
    problems = []
    injected = sorted(set(facts["tags"]) - check_report.ELEMENTS)
    if injected:
        problems.append(f"elements the page does not write (unescaped text?): {injected}")
    if facts["data"] is None:
        return problems + ["no embedded atlas (script#kscope-report)"]
    embedded = json.loads(facts["data"])
    if atlas is not None and embedded != atlas:
        problems.append("the atlas embedded in the page differs from the JSON file")
    names = atlas_names(embedded)
    cells = set(facts["cells"])
    for name in names:
        if name not in cells:
            problems.append(f"name not shown as a table cell's text: {name[:120]}")
    for cell in sorted(set(facts["name_cells"]) - set(names) - {""}):
        problems.append(f"a name cell whose text is no name of the atlas: {cell[:120]}")
    return problems


def tooltip_problems(browser, facts, atlas):
    """Hovering the matrix's first cell shows its family's whole name."""
    rows = atlas.get("popularity") or []
    if not rows or not any(c["name"] == "atlas-popularity" and c["state"] == "rendered" for c in facts["charts"]):
        return []
    cell = browser.evaluate("""(() => {
      const cell = document.querySelector('[data-chart="atlas-popularity"] g.role-mark > path');
      cell.scrollIntoView({block: 'center'});
      const box = cell.getBoundingClientRect();
      return {x: box.left + box.width / 2, y: box.top + box.height / 2};
    })()""")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": cell["x"], "y": cell["y"]})
    title = browser.evaluate(
        "document.querySelector('[data-chart=\"atlas-popularity\"] .chart-canvas').getAttribute('title') || ''")
    if rows[0]["family"] not in title:
        return [f"hovering the matrix's first cell does not show its family (tooltip: {title[:120]!r})"]
    return []


def check(args):
    page = pathlib.Path(args.page).resolve()
    if not page.is_file():
        return [f"no such page: {page}"]
    url = page.as_uri()
    atlas = json.loads(pathlib.Path(args.json).read_text()) if args.json else None
    browser = Browser(args.chromium, args.browser_log)
    try:
        browser.open_page()
        browser.call("Page.navigate", {"url": url})
        browser.wait_for_event("Page.loadEventFired", timeout=args.timeout)
        deadline = time.monotonic() + args.timeout
        while browser.evaluate("document.documentElement.dataset.charts || ''") != "done":
            if time.monotonic() > deadline:
                return ["the charts did not finish rendering in time"] + check_report.console_problems(browser.events, url)
            time.sleep(0.1)
        facts = browser.evaluate(check_report.PAGE_FACTS)
        required = set(args.charts.split(",")) if args.charts else set()
        problems = check_report.chart_problems(browser, facts, required, CHARTS)
        problems += content_problems(facts, atlas)
        if facts["data"] is not None:
            problems += tooltip_problems(browser, facts, json.loads(facts["data"]))
        if args.screenshot:
            import base64
            shot = browser.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": facts["width"], "height": facts["height"], "scale": 1}})
            pathlib.Path(args.screenshot).write_bytes(base64.b64decode(shot["data"]))
        return check_report.console_problems(browser.events, url) + problems
    finally:
        browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", help="atlas.html")
    parser.add_argument("--json", help="the atlas as JSON (kscope atlas --format json) the page must embed")
    parser.add_argument("--charts", default=",".join(CHARTS), help="charts that must render (comma-separated)")
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
        print(f"check_atlas: {args.page}: {p}")
    if problems:
        return 1
    print(f"check_atlas: {args.page}: ok ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
